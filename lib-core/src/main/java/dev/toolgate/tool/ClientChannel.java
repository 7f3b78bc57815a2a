package dev.toolgate.tool;

import tools.jackson.databind.node.ObjectNode;

/**
 * The way from a running tool back to the client that called it, through {@link ToolContext#channel()}:
 * progress notifications, log messages, and requests to the client's model (sampling) or to its user
 * (elicitation). Only an MCP client offers these, and only what it declared: over MCP, progress is sent
 * only when the request carried a {@code _meta.progressToken}, log messages only at or above the level
 * the client set with {@code logging/setLevel}, sampling only if the client declared the
 * {@code sampling} capability and elicitation only if it declared {@code elicitation}.
 *
 * <p>Everywhere else (plain Java calls, code mode, other transports), and in every
 * {@link ToolContext.Phase#DRY_RUN dry-run} (a proposal must not talk to the user before consent),
 * the channel is {@link #none()}: {@link #progress} and {@link #log} do nothing, and {@link #sample}
 * and {@link #elicit} throw {@link ClientInteractionUnsupportedException}, which a tool can catch to
 * decide what to do without the client. Once the call has returned, the channel is closed the same way.
 *
 * <p>{@link #sample} and {@link #elicit} block the tool's thread until the client answers, at most the
 * server's request timeout; a tool's own timeout still applies. Implementations are thread-safe.
 *
 * <pre>{@code
 * .execute((in, ctx) -> {
 *     ctx.channel().progress(0, 100.0, "starting");
 *     Elicitation answer = ctx.channel().elicit("Which region?", schema);
 *     ...
 * })
 * }</pre>
 */
public interface ClientChannel {

    /** Log levels, as MCP (RFC 5424 syslog) orders them, lowest first. */
    enum LogLevel {
        /** Detailed debugging information. */
        DEBUG,
        /** Normal progress. */
        INFO,
        /** A normal but significant event. */
        NOTICE,
        /** A warning. */
        WARNING,
        /** An error. */
        ERROR,
        /** A critical condition. */
        CRITICAL,
        /** Action must be taken immediately. */
        ALERT,
        /** The system is unusable. */
        EMERGENCY
    }

    /**
     * Reports progress. Ignored without a client that asked for progress; also ignored when
     * {@code progress} does not increase (MCP requires increasing values) or is not a finite number,
     * and thinned out when a tool reports faster than a client can usefully show.
     *
     * @param progress how far along, increasing with each call
     * @param total    the total, if known; null otherwise
     * @param message  a short human-readable message, or null
     */
    void progress(double progress, Double total, String message);

    /**
     * Sends a log message to the client, if it wants messages of this level.
     *
     * @param level  the level
     * @param logger the logger's name, or null
     * @param data   the message: a string as it is, anything else written as JSON; long messages are cut
     */
    void log(LogLevel level, String logger, Object data);

    /** True if {@link #sample} can reach the client's model. */
    boolean canSample();

    /** True if {@link #elicit} can reach the client's user. */
    boolean canElicit();

    /**
     * Asks the client's model for a message ({@code sampling/createMessage}). The client (and usually
     * its user) decides whether and how to answer.
     *
     * @throws ClientInteractionUnsupportedException if the client cannot be asked (see the class description)
     * @throws ClientInteractionException            if the client refused, failed or did not answer in time
     */
    SamplingResult sample(SamplingRequest request);

    /**
     * Asks the client's user for input ({@code elicitation/create}, form mode).
     *
     * @param message         what to ask, shown to the user
     * @param requestedSchema a JSON Schema of a flat object of primitive properties (strings, numbers,
     *                        integers, booleans, enums, with defaults) as MCP allows; passed on as it is
     * @return the user's answer: accept with content, decline, or cancel
     * @throws ClientInteractionUnsupportedException if the client cannot be asked (see the class description)
     * @throws ClientInteractionException            if the request failed or was not answered in time
     */
    Elicitation elicit(String message, ObjectNode requestedSchema);

    /** The channel of a call that has no client to talk to: no-ops, and typed refusals. */
    static ClientChannel none() {
        return NoClientChannel.NONE;
    }
}
