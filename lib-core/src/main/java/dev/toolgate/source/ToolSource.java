package dev.toolgate.source;

import java.util.List;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * A source of tools the host did not write in code: a remote MCP server, a database. The gate lists
 * a source's tools (caching the list, by default for five minutes), registers each as
 * {@code <id>.<tool>} and governs them like code tools: one resolver, one schema check, one budget,
 * one policy cascade with drift review, one audit trail. A source only lists and runs; it never
 * decides who may call what and never reads Toolgate's storage.
 *
 * <p>Give sources to {@code Toolgate.builder().source(...)}, or list an implementation in
 * {@code META-INF/services/dev.toolgate.source.ToolSource}. Implementations must be thread-safe.
 *
 * <p>A source that cannot be reached while listing is reported by {@code Toolgate.listSources()} with
 * its error and never holds up the others; tools it listed before stay registered, and calling one
 * while it is down fails with {@link dev.toolgate.call.SourceUnavailableException}, recorded.
 */
@SuppressWarnings("try") // close() may throw what a source's client throws; the gate closes sources itself
public interface ToolSource extends AutoCloseable {

    /** What a source id looks like: a kind and a name, such as {@code mcp:github} or {@code db:reports}. */
    Pattern ID = Pattern.compile("[a-z][a-z0-9]{0,7}:[A-Za-z0-9_-]{1,32}");

    /**
     * The id that qualifies the source's tool names: {@code <kind>:<name>}, the kind 1-8 lower-case
     * letters and digits, the name 1-32 characters of {@code A-Za-z0-9_-}.
     */
    String id();

    /** A name for people, such as {@code GitHub}; the id by default. */
    default String displayName() {
        return id();
    }

    /**
     * The tools the source offers now. Tools whose definition the gate cannot accept (a bad name, a
     * schema that is not an object) are skipped and reported, without failing the listing.
     *
     * @throws Exception if the source cannot be reached or refuses; the gate reports it unavailable
     */
    List<SourceTool> listTools(SourceContext context) throws Exception;

    /**
     * Runs one tool with arguments the gate has validated against the listed schema, as the principal
     * of {@code context.call()}. Return the result as JSON; the gate redacts and caps it.
     *
     * @throws dev.toolgate.call.SourceUnavailableException if the source cannot be reached
     * @throws Exception                                    if the tool failed
     */
    JsonNode callTool(String tool, JsonNode arguments, SourceContext context) throws Exception;

    /**
     * Says what a MUTATE or DESTRUCTIVE call would do, for the proposal an operator approves: for an
     * HTTP API, the method and the resolved URL. Called with validated arguments before the proposal
     * is stored; it must not contact the source. Arguments the schema allows but the source could not
     * send safely are refused here, so nothing is proposed.
     *
     * @return one line for the confirm card, or null to show the payload and the tool's description
     * @throws dev.toolgate.tool.ToolValidationException if the arguments cannot be sent; the model gets
     *                                                    the issues as feedback
     */
    default String describeCall(String tool, JsonNode arguments) {
        return null;
    }

    /**
     * Called once when the gate starts using the source: a source that learns of changes to its tools
     * (an MCP server's {@code notifications/tools/list_changed}) runs {@code changed}, and the gate lists
     * it again at once instead of waiting for the cache TTL. The default ignores it.
     */
    default void watch(Runnable changed) {
    }

    /** Releases connections and processes. Called once when the gate closes. */
    @Override
    default void close() throws Exception {
    }
}
