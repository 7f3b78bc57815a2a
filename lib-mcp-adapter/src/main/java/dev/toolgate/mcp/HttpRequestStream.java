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
 * JSON response if the first message is the response itself, and otherwise with an SSE stream: a
 * priming event (an id, {@code retry:} and empty data), then requests and notifications and finally
 * the response, each recorded in the session's {@link HttpEventLog} with its id.
 *
 * <p>The stream is detached from its connection when the client goes away or, with polling
 * configured, when no response came within the poll time (the server then closes the stream after the
 * priming event: SSE polling). From then on every message is only recorded; the client resumes with
 * GET and {@code Last-Event-ID} and receives them there, the response last.
 */
final class HttpRequestStream implements McpStreamableServerTransport {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();

    private final Object requestId;
    private final HttpResponses responses;
    private final Duration timeout;
    private final Duration pollAfter;
    private final long retryMillis;
    private final HttpEventLog log;
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    /** The log's stream once the answer is an event stream, else -1. Guarded by this. */
    private int stream = -1;
    /** True once the pump has left: messages go straight to the log. Guarded by this. */
    private boolean detached;

    HttpRequestStream(Object requestId, HttpResponses responses, HttpSettings settings, HttpEventLog log) {
        this.requestId = requestId;
        this.responses = responses;
        this.timeout = settings.requestTimeout();
        this.pollAfter = settings.pollAfter();
        this.retryMillis = settings.retry().toMillis();
        this.log = log;
    }

    private record Outgoing(McpSchema.JSONRPCMessage message, String json) {
    }

    private record End(Throwable error) {
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return sendMessage(message, null);
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String messageId) {
        return Mono.fromRunnable(() -> {
            String json;
            try {
                json = responses.mapper().writeValueAsString(message);
            } catch (IOException e) {
                LOG.warn("Could not serialize a message for request {}: {}", requestId, e.toString());
                return;
            }
            synchronized (this) {
                if (detached) {
                    log.record(stream, json, isResponse(message));
                } else {
                    queue.add(new Outgoing(message, json));
                }
            }
        });
    }

    /** The SDK finished the request (null) or failed it. */
    void finish(Throwable error) {
        synchronized (this) {
            if (detached) {
                if (error != null) {
                    LOG.error("MCP request {} failed", requestId, LOGGED.redactThrowable(error));
                    record(JsonRpc.error(requestId, JsonRpc.INTERNAL_ERROR, "Internal error", null));
                }
                return;
            }
            queue.add(new End(error));
        }
    }

    private boolean isResponse(McpSchema.JSONRPCMessage message) {
        return message instanceof McpSchema.JSONRPCResponse response && Objects.equals(response.id(), requestId);
    }

    /** Records a final error response (detached: the client will read it on resuming). Guarded by this. */
    private void record(Object error) {
        try {
            log.record(stream, responses.mapper().writeValueAsString(error), true);
        } catch (IOException e) {
            LOG.warn("Could not serialize an error for request {}: {}", requestId, e.toString());
        }
    }

    /** Leaves the connection: what is queued and all that follows goes to the log only. */
    private synchronized void detach(boolean answered) {
        detached = true;
        Object item;
        while ((item = queue.poll()) != null) {
            if (item instanceof Outgoing outgoing && !answered) {
                log.record(stream, outgoing.json(), isResponse(outgoing.message()));
                answered = isResponse(outgoing.message());
            } else if (item instanceof End end && end.error() != null && !answered) {
                LOG.error("MCP request {} failed", requestId, end.error());
                record(JsonRpc.error(requestId, JsonRpc.INTERNAL_ERROR, "Internal error", null));
            }
        }
    }

    /** Writes what the SDK sends until the request is finished or the stream detached; runs on the HTTP thread. */
    void pump(HttpExchange exchange) throws IOException {
        OutputStream sse = null;
        boolean answered = false;
        long start = System.nanoTime();
        try {
            while (true) {
                long waitMillis = timeout.toMillis();
                boolean polling = pollAfter != null && !answered;
                if (polling) {
                    waitMillis = Math.max(0, pollAfter.toMillis() - (System.nanoTime() - start) / 1_000_000);
                }
                Object item = queue.poll(waitMillis, TimeUnit.MILLISECONDS);
                if (item == null && polling) {
                    // SSE polling: the client comes back with Last-Event-ID for the rest
                    if (sse == null) {
                        sse = startStream(exchange);
                    }
                    detach(false);
                    return;
                }
                if (item == null || item instanceof End) {
                    Throwable error = item == null ? new IllegalStateException("no answer in time") : ((End) item).error();
                    if (error != null) {
                        LOG.error("MCP request {} failed", requestId, LOGGED.redactThrowable(error));
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
                boolean isResponse = isResponse(outgoing.message());
                if (sse == null && isResponse) {
                    respondJson(exchange, (McpSchema.JSONRPCResponse) outgoing.message(), outgoing.json());
                    answered = true;
                    continue;
                }
                if (sse == null) {
                    sse = startStream(exchange);
                }
                String chunk;
                synchronized (this) {
                    chunk = log.record(stream, outgoing.json(), isResponse);
                }
                try {
                    sse.write(chunk.getBytes(StandardCharsets.UTF_8));
                    sse.flush();
                } catch (IOException e) {
                    detach(isResponse); // the client went away: it may resume with Last-Event-ID
                    throw e;
                }
                answered = isResponse;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exchange.close();
        }
    }

    /** Starts the event stream: headers and the priming event. */
    private OutputStream startStream(HttpExchange exchange) throws IOException {
        String priming;
        synchronized (this) {
            stream = log.open();
            priming = log.prime(stream, retryMillis);
        }
        Headers headers = exchange.getResponseHeaders();
        headers.set("Content-Type", HttpResponses.TEXT_EVENT_STREAM);
        headers.set("Cache-Control", "no-cache");
        try {
            exchange.sendResponseHeaders(200, 0);
            OutputStream sse = exchange.getResponseBody();
            sse.write(priming.getBytes(StandardCharsets.UTF_8));
            sse.flush();
            return sse;
        } catch (IOException e) {
            detach(false);
            throw e;
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
