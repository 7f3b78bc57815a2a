package dev.toolgate.mcp;

import dev.toolgate.json.Json;
import dev.toolgate.tool.ClientChannel;
import dev.toolgate.tool.ClientInteractionException;
import dev.toolgate.tool.ClientInteractionUnsupportedException;
import dev.toolgate.tool.Elicitation;
import dev.toolgate.tool.SamplingRequest;
import dev.toolgate.tool.SamplingResult;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool's {@link ClientChannel} to the MCP client of one {@code tools/call}: progress with the
 * request's {@code _meta.progressToken} (none without one), log messages through the exchange (which
 * drops those below the client's {@code logging/setLevel}), and sampling and elicitation requests only
 * when the client declared the capability. Every send blocks the tool's thread (never a transport's)
 * until the message is out or the client answered, at most the server's request timeout.
 *
 * <p>A tool cannot flood the client: progress that does not increase is dropped, progress is sent at
 * most every {@link #PROGRESS_INTERVAL_NANOS} apart (the final value, {@code progress >= total}, always; an
 * update the interval held back is sent when the call returns unless a later one went first),
 * and a call sends at most {@link #MAX_NOTIFICATIONS} progress and as many log notifications, each log
 * message cut at {@link #MAX_LOG_CHARS}; once a notification cannot be handed to the transport within
 * {@link #NOTIFICATION_TIMEOUT}, the call sends no more. Closed when the call returns: later use is a
 * no-op or refused.
 */
final class McpClientChannel implements ClientChannel, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    /** The least time between two progress notifications of a call, unless the second is the final one: 10 ms. */
    static final long PROGRESS_INTERVAL_NANOS = 10_000_000L;
    /** The most progress notifications, and the most log notifications, one call sends. */
    static final int MAX_NOTIFICATIONS = 1_000;
    /** The longest log message sent; longer ones are cut. */
    static final int MAX_LOG_CHARS = 16 * 1024;
    /** How long a notification may take to hand to the transport before the call stops sending them. */
    static final Duration NOTIFICATION_TIMEOUT = Duration.ofSeconds(10);
    /** The longest elicitation message. */
    static final int MAX_MESSAGE_CHARS = 16 * 1024;

    private final McpAsyncServerExchange exchange;
    private final Object progressToken;
    private final Duration timeout;
    private final Object progressLock = new Object();
    private final AtomicInteger logs = new AtomicInteger();
    private volatile boolean closed;
    /** Set when a notification could not be sent in time: the client is not reading; later ones are dropped. */
    private volatile boolean stalled;
    private double lastProgress = Double.NEGATIVE_INFINITY;
    private long lastProgressAt;
    private int progressSent;
    /** The latest update held back by the interval; sent with the next one that goes, or when the call returns. */
    private McpSchema.ProgressNotification heldBack;

    /**
     * @param exchange      the call's exchange with the client
     * @param progressToken the request's {@code _meta.progressToken}, or null
     * @param timeout       how long to wait for the client (the server's request timeout)
     */
    McpClientChannel(McpAsyncServerExchange exchange, Object progressToken, Duration timeout) {
        this.exchange = Objects.requireNonNull(exchange, "exchange");
        this.progressToken = progressToken instanceof String || progressToken instanceof Number ? progressToken : null;
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /** The channel of {@code request}, with its progress token if it has one. */
    static McpClientChannel of(McpAsyncServerExchange exchange, McpSchema.CallToolRequest request, Duration timeout) {
        Object token = request.meta() == null ? null : request.meta().get("progressToken");
        return new McpClientChannel(exchange, token, timeout);
    }

    @Override
    public void progress(double progress, Double total, String message) {
        if (closed || stalled || progressToken == null || !Double.isFinite(progress)
                || (total != null && !Double.isFinite(total))) {
            return;
        }
        synchronized (progressLock) {
            long now = System.nanoTime();
            boolean last = total != null && progress >= total;
            if (progress <= lastProgress || progressSent >= MAX_NOTIFICATIONS) {
                return;
            }
            McpSchema.ProgressNotification update =
                    new McpSchema.ProgressNotification(progressToken, progress, total, cut(message, MAX_LOG_CHARS));
            if (!last && progressSent > 0 && now - lastProgressAt < PROGRESS_INTERVAL_NANOS) {
                heldBack = update; // thinned out, not lost: the latest state still reaches the client
                return;
            }
            sendProgress(update, now);
        }
    }

    /** Sends {@code update}; the caller holds {@link #progressLock}. */
    private void sendProgress(McpSchema.ProgressNotification update, long now) {
        heldBack = null;
        lastProgress = update.progress();
        lastProgressAt = now;
        progressSent++;
        send("progress", exchange.progressNotification(update));
    }

    @Override
    public void log(LogLevel level, String logger, Object data) {
        Objects.requireNonNull(level, "level");
        if (closed || stalled || logs.incrementAndGet() > MAX_NOTIFICATIONS) {
            return;
        }
        String text = data instanceof String s ? s : json(data);
        McpSchema.LoggingLevel mcpLevel = McpSchema.LoggingLevel.valueOf(level.name());
        send("log", exchange.loggingNotification(McpSchema.LoggingMessageNotification.builder()
                .level(mcpLevel).logger(cut(logger, 256)).data(cut(text, MAX_LOG_CHARS)).build()));
    }

    @Override
    public boolean canSample() {
        McpSchema.ClientCapabilities capabilities = exchange.getClientCapabilities();
        return !closed && capabilities != null && capabilities.sampling() != null;
    }

    @Override
    public boolean canElicit() {
        McpSchema.ClientCapabilities capabilities = exchange.getClientCapabilities();
        return !closed && capabilities != null && capabilities.elicitation() != null;
    }

    @Override
    public SamplingResult sample(SamplingRequest request) {
        Objects.requireNonNull(request, "request");
        if (!canSample()) {
            throw unsupported("sampling");
        }
        McpSchema.CreateMessageRequest mcp = McpSchema.CreateMessageRequest.builder()
                .messages(request.messages().stream().map(McpContent::message).toList())
                .systemPrompt(request.systemPrompt())
                .maxTokens(request.maxTokens())
                .temperature(request.temperature())
                .stopSequences(request.stopSequences().isEmpty() ? null : request.stopSequences())
                .build();
        McpSchema.CreateMessageResult answer = await("sampling", exchange.createMessage(mcp));
        try {
            SamplingRequest.Role role = answer.role() == McpSchema.Role.USER ? SamplingRequest.Role.USER
                    : SamplingRequest.Role.ASSISTANT;
            return new SamplingResult(role, McpContent.fromSampled(answer.content()), answer.model(),
                    McpContent.stopReason(answer.stopReason()));
        } catch (RuntimeException e) {
            throw new ClientInteractionException("sampling", "the client's sampling answer is unusable: " + e.getMessage(), e);
        }
    }

    @Override
    public Elicitation elicit(String message, ObjectNode requestedSchema) {
        if (message == null || message.isBlank() || message.length() > MAX_MESSAGE_CHARS) {
            throw new IllegalArgumentException("an elicitation message must be 1-" + MAX_MESSAGE_CHARS + " characters");
        }
        if (requestedSchema == null || !"object".equals(requestedSchema.path("type").asString(""))) {
            throw new IllegalArgumentException("an elicitation's requestedSchema must be a JSON Schema with \"type\": \"object\"");
        }
        if (!canElicit()) {
            throw unsupported("elicitation");
        }
        Map<String, Object> schema = Json.mapper().convertValue(requestedSchema, MAP);
        McpSchema.ElicitResult answer = await("elicitation",
                exchange.createElicitation(new ClientConsent.FormElicitation(message, schema)));
        Elicitation.Action action = switch (answer.action()) {
            case ACCEPT -> Elicitation.Action.ACCEPT;
            case DECLINE -> Elicitation.Action.DECLINE;
            default -> Elicitation.Action.CANCEL;
        };
        ObjectNode content = action == Elicitation.Action.ACCEPT && answer.content() != null
                ? (ObjectNode) Json.toTree(answer.content()) : null;
        return new Elicitation(action, content);
    }

    /** Ends the channel: the call has returned. */
    @Override
    public void close() {
        synchronized (progressLock) {
            // the update the interval held back goes before the call's result, so the client sees where it ended
            if (heldBack != null && !closed && !stalled && progressSent < MAX_NOTIFICATIONS) {
                sendProgress(heldBack, System.nanoTime());
            }
            closed = true;
        }
    }

    private ClientInteractionUnsupportedException unsupported(String interaction) {
        return new ClientInteractionUnsupportedException(interaction, closed ? "the tool call has already returned"
                : "the MCP client did not declare the " + interaction + " capability");
    }

    private <T> T await(String interaction, reactor.core.publisher.Mono<T> request) {
        T answer;
        try {
            answer = request.block(timeout.plusSeconds(5));
        } catch (McpError e) {
            throw new ClientInteractionException(interaction, "the client answered the " + interaction
                    + " request with an error: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (Thread.currentThread().isInterrupted() || e.getCause() instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                throw new ClientInteractionException(interaction, "the tool was interrupted waiting for the client", e);
            }
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof java.util.concurrent.TimeoutException) {
                    throw new ClientInteractionException(interaction, "the client did not answer the " + interaction
                            + " request within the server's request timeout (" + timeout.toMillis() + " ms)", e);
                }
            }
            throw new ClientInteractionException(interaction, "the " + interaction + " request failed: " + e, e);
        }
        if (answer == null) {
            throw new ClientInteractionException(interaction, "the client sent no answer to the " + interaction + " request");
        }
        return answer;
    }

    private void send(String what, reactor.core.publisher.Mono<Void> notification) {
        try {
            notification.block(NOTIFICATION_TIMEOUT.compareTo(timeout) < 0 ? NOTIFICATION_TIMEOUT : timeout);
        } catch (RuntimeException e) {
            stalled = true; // a client that does not take notifications gets no more of this call's
            LOG.debug("An MCP {} notification was not sent; dropping this call's later ones: {}", what, e.toString());
        }
    }

    private static String json(Object data) {
        if (data == null) {
            return "null";
        }
        try {
            return Json.write(Json.toTree(data));
        } catch (RuntimeException e) {
            return String.valueOf(data);
        }
    }

    private static String cut(String text, int max) {
        return text == null || text.length() <= max ? text : text.substring(0, max) + "...";
    }
}
