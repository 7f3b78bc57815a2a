package dev.toolgate.execution;

import java.time.Instant;
import java.util.SortedSet;
import dev.toolgate.access.Principal;
import tools.jackson.databind.JsonNode;

/**
 * A program's handle on its run: its input, and the governed calls it makes. Each call is one step of
 * the run's durable log. Not thread-safe: a program makes its calls one after another.
 *
 * <p>What a call throws into the program, which may catch it: the typed denial of a DENY step
 * ({@link dev.toolgate.call.PolicyDeniedException}), a dry-run's rejection
 * ({@link dev.toolgate.tool.ToolValidationException}) and a tool's failure
 * ({@link dev.toolgate.call.ToolExecutionException}), the same again on a replay. A call the gate
 * refuses before it is logged (an unknown or forbidden tool, arguments its schema rejects, the
 * budget, the pending cap) ends the run as failed: nothing of it is in the log, so a replay could not
 * repeat it.
 */
public interface Run {

    /** The run's id. */
    String executionId();

    /** The principal the run's calls are made for. */
    Principal principal();

    /** The input the run started with. */
    JsonNode input();

    /** The input bound to {@code type}. */
    <T> T input(Class<T> type);

    /**
     * Calls a governed tool as the run's next step and returns its result (as logged: redacted and
     * capped). A step that needs consent pauses the run here; the program does not go on in this
     * attempt.
     *
     * @param tool      the qualified tool name
     * @param arguments the arguments: a {@link JsonNode}, a {@code Map} or a record or bean; null for none
     */
    JsonNode call(String tool, Object arguments);

    /** {@link #call(String, Object)} with the result bound to {@code resultType}. */
    <T> T call(String tool, Object arguments, Class<T> resultType);

    /** Adds a line to the run's log (redacted; the last attempt's lines are kept with the outcome). */
    void log(String message);

    /**
     * When the run started (store time), the same on every attempt: a program that needs "now" uses
     * this, so that a replay makes the same calls.
     */
    Instant startedAt();

    /**
     * The names of the tools the run's principal may call on this attempt, sorted (the principal's
     * rules as the directory has them now). A script runner builds its tool bindings from them.
     */
    SortedSet<String> tools();
}
