package dev.toolgate.execution;

import dev.toolgate.tool.InputSchema;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * Host code that calls governed tools through a {@link Run} handle, as if every call returned
 * normally: a multi-step run that can pause for consent, resume later on any instance by replay, and
 * roll back.
 *
 * <pre>{@code
 * Program escalate = run -> {
 *     Incident incident = run.call("incident.create", run.input(), Incident.class);   // may pause here
 *     run.call("pager.page", Map.of("team", incident.owner()));
 *     return run.call("statuspage.update", Map.of("incident", incident.id(), "status", "investigating"));
 * };
 * }</pre>
 *
 * <p><b>A program is replayed.</b> When a step needs consent the run pauses and the program is
 * abandoned; after an approval it runs again from the start, and every step already in the run's log
 * is answered from the log (nothing runs, nothing is charged) until the approved step, which runs
 * once. So a program must be deterministic: given its input and the results of its calls, it makes
 * the same calls with the same arguments in the same order. It must not act on the world except
 * through {@code run.call} (no direct writes, no clock or random numbers that shape its calls), and
 * must not feed a redacted or truncated part of a result into later arguments: results are logged as
 * every call's are (secrets redacted, capped), and the program sees exactly what the log will serve
 * on replay. A replay that asks for another tool or other arguments at a logged step stops the run as
 * failed, running nothing.
 *
 * <p><b>Input.</b> A program built with {@link #withInput(Class, Typed)} declares its input's JSON
 * Schema, generated from the type as a tool's input is: a run whose input does not match is refused
 * before it starts ({@link dev.toolgate.tool.ToolValidationException} naming each wrong field), and
 * transports advertise the schema (the MCP server's {@code run.<program>} tools). A plain lambda takes
 * any object.
 *
 * <p>Register programs by name with the builder ({@code program(name, program)}) or a
 * {@link ProgramProvider} in {@code META-INF/services}, so that any instance, including one started
 * after a crash, can resume a run it did not start.
 */
@FunctionalInterface
public interface Program {

    /**
     * Runs the program. What it returns (converted to JSON, redacted and capped) is the run's result;
     * what it throws fails the run.
     */
    Object run(Run run) throws Exception;

    /**
     * The JSON Schema (2020-12) of the program's input; empty (the default) when it takes any object.
     * Asked when a run starts, never on a replay: the input was checked once and is logged.
     */
    default Optional<ObjectNode> inputSchema() {
        return Optional.empty();
    }

    /**
     * A program whose input is a {@code type}: its schema is the type's, as a tool with that input
     * would advertise it, and the body gets the input bound to it.
     *
     * <pre>{@code
     * record Escalation(String systemId, String title, Severity severity) { }
     * Program escalate = Program.withInput(Escalation.class, (run, in) -> run.call("incident.create", in));
     * }</pre>
     */
    static <I> Program withInput(Class<I> type, Typed<I> body) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(body, "body");
        ObjectNode schema = InputSchema.of(type);
        return new Program() {
            @Override
            public Object run(Run run) throws Exception {
                return body.run(run, run.input(type));
            }

            @Override
            public Optional<ObjectNode> inputSchema() {
                return Optional.of(schema.deepCopy());
            }
        };
    }

    /** The body of a program of a typed input; see {@link #withInput(Class, Typed)}. */
    @FunctionalInterface
    interface Typed<I> {
        /** Runs the program on its input, as {@link Program#run} does. */
        Object run(Run run, I input) throws Exception;
    }
}
