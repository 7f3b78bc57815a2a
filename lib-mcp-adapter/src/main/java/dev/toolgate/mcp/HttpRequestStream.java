package dev.toolgate.mcp;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The answer to one POST request. The SDK hands it messages on its own threads; they are queued
 * and written by the HTTP thread that received the request ({@link #pump}), which answers with one
 * JSON response if the first message is the response itself, and otherwise with an SSE stream
 * carrying requests and notifications and finally the response.
 */
final class HttpRequestStream implements McpStreamableServerTransport {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    private final Object requestId;
    private final HttpResponses responses;
    private final Duration timeout;
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();

    HttpRequestStream(Object requestId, HttpResponses responses, Duration timeout) {
        this.requestId = requestId;
        this.responses = responses;
        this.timeout = timeout;
    }

    private record Outgoing(McpSchema.JSONRPCMessage message, String id) {
    }

    private record End(Throwable error) {
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return sendMessage(message, null);
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String messageId) {
        return Mono.fromRunnable(() -> queue.add(new Outgoing(message, messageId)));
    }

    /** The SDK finished the request (null) or failed it. */
    void finish(Throwable error) {
        queue.add(new End(error));
    }

    /** Writes what the SDK sends until the request is finished; runs on the HTTP thread. */
    void pump(HttpExchange exchange) throws IOException {
        OutputStream sse = null;
        boolean answered = false;
        try {
            while (true) {
                Object item = queue.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
                if (item == null || item instanceof End) {
                    Throwable error = item == null ? new IllegalStateException("no answer in time") : ((End) item).error();
                    if (error != null) {
                        LOG.error("MCP request {} failed", requestId, error);
                    }
                    if (!answered && sse == null) {
                        responses.sendError(exchange, 500, requestId, JsonRpc.INTERNAL_ERROR, "Internal error");
                    }
                    return;
                }
                Outgoing outgoing = (Outgoing) item;
                if (answered) {
                    continue;
                }
                boolean isResponse = outgoing.message() instanceof McpSchema.JSONRPCResponse response
                        && Objects.equals(response.id(), requestId);
                String json = responses.mapper().writeValueAsString(outgoing.message());
                if (sse == null && isResponse) {
                    respondJson(exchange, (McpSchema.JSONRPCResponse) outgoing.message(), json);
                    answered = true;
                    continue;
                }
                if (sse == null) {
                    Headers headers = exchange.getResponseHeaders();
                    headers.set("Content-Type", HttpResponses.TEXT_EVENT_STREAM);
                    headers.set("Cache-Control", "no-cache");
                    exchange.sendResponseHeaders(200, 0);
                    sse = exchange.getResponseBody();
                }
                sse.write(HttpResponses.event(outgoing.id(), json).getBytes(StandardCharsets.UTF_8));
                sse.flush();
                answered = isResponse;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exchange.close();
        }
    }

    private static void respondJson(HttpExchange exchange, McpSchema.JSONRPCResponse response, String json) throws IOException {
        int status = 200;
        McpSchema.JSONRPCResponse.JSONRPCError error = response.error();
        if (error != null && error.code() != null && error.code() == ToolgateMcpServer.RATE_LIMITED) {
            status = 429;
            exchange.getResponseHeaders().set("Retry-After", String.valueOf(retryAfterSeconds(error.data())));
        }
        HttpResponses.sendBytes(exchange, status, json.getBytes(StandardCharsets.UTF_8));
    }

    private static long retryAfterSeconds(Object data) {
        if (data instanceof Map<?, ?> map && map.get("retryAfterSeconds") instanceof Number seconds) {
            return Math.max(1, seconds.longValue());
        }
        return 1;
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return responses.mapper().convertValue(data, typeRef);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.empty();
    }

    @Override
    public void close() {
        // the stream ends when the SDK finishes the request (see finish)
    }
}
