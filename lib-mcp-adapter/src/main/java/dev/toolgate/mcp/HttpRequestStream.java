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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The answer to one POST request. The SDK hands it messages on its own threads. When the first of
 * them is the response itself (a call that sent nothing before its result: the common case), the
 * thread that produced it writes it at once as one JSON response, under a write timeout
 * ({@link HttpWatchdog#guard}); handing it back to the HTTP thread first would cost the client a
 * thread wake-up per call, which on a busy machine is a wait for a core. Otherwise messages are queued
 * and written by the HTTP thread that received the request ({@link #pump}): an SSE stream, a priming
 * event (an id, {@code retry:} and empty data), then requests and notifications and finally the
 * response, each recorded in the session's {@link HttpEventLog} with its id. The HTTP thread waits in
 * {@link #pump} either way, until the SDK has finished the request and a direct write has returned
 * (it closes the exchange, which under a write in progress would cut the response and the
 * connection), so a request holds its worker as long as before.
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

    private final HttpExchange exchange;
    private final Object requestId;
    private final HttpResponses responses;
    private final HttpWatchdog watchdog;
    private final Duration writeTimeout;
    private final Duration timeout;
    private final Duration pollAfter;
    private final long retryMillis;
    private final HttpEventLog log;
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    /** The log's stream once the answer is an event stream, else -1. Guarded by this. */
    private int stream = -1;
    /** True once the pump has left: messages go straight to the log. Guarded by this. */
    private boolean detached;
    /** Who writes the answer, decided by the first message (or the pump's timeout). Guarded by this. */
    private Writer writer = Writer.UNDECIDED;
    /**
     * Open until a direct write ({@link #writeDirect}) has returned: the pump never closes the exchange
     * under it, whatever order the SDK finishes the request in.
     */
    private final CountDownLatch directWritten = new CountDownLatch(1);

    /** Who writes the answer to the client. */
    private enum Writer {
        /** Nothing sent yet. */
        UNDECIDED,
        /** The HTTP thread ({@link #pump}): a JSON response after a wait, an error, or an event stream. */
        PUMP,
        /** The thread that produced the response, which came first: one JSON response ({@link #writeDirect}). */
        DIRECT
    }

    HttpRequestStream(HttpExchange exchange, Object requestId, HttpResponses responses, HttpSettings settings,
                      HttpEventLog log, HttpWatchdog watchdog) {
        this.exchange = exchange;
        this.requestId = requestId;
        this.responses = responses;
        this.watchdog = watchdog;
        this.writeTimeout = settings.readTimeout();
        this.timeout = settings.requestTimeout();
        this.pollAfter = settings.pollAfter();
        this.retryMillis = settings.retry().toMillis();
        this.log = log;
    }

    private record Outgoing(McpSchema.JSONRPCMessage message, String json) {
    }

    private record End(Throwable error) {
    }

    /** The response's producer failed to write it. */
    private record Failed(IOException failure) {
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
            boolean direct;
            synchronized (this) {
                if (detached) {
                    log.record(stream, json, isResponse(message));
                    return;
                }
                // a thread with an interrupt pending (a cancelled task's, left on a pooled thread) would have
                // its write to the socket fail and the connection closed: the HTTP thread writes it then. So it
                // does an error response (rare, off the fast path): written directly, two of them (a tool's
                // Error, over budget) lost their connection once each in CI, a cause not found yet
                direct = writer == Writer.UNDECIDED && isResponse(message)
                        && ((McpSchema.JSONRPCResponse) message).error() == null && !Thread.currentThread().isInterrupted();
                if (direct) {
                    writer = Writer.DIRECT;
                } else {
                    if (writer == Writer.UNDECIDED) {
                        writer = Writer.PUMP;
                    }
                    queue.add(new Outgoing(message, json));
                }
            }
            if (direct) {
                writeDirect((McpSchema.JSONRPCResponse) message, json);
            }
        });
    }

    /**
     * Writes the response on this thread, the one that produced it (unless it has an interrupt pending:
     * then the HTTP thread does, see {@link #sendMessage}), under the write timeout. A failure
     * (the connection is gone) goes to the pump, which rethrows it; after a success the pump has nothing
     * to do but wait for the end of the request, so it is not woken for it (one wake-up per call, as before).
     */
    private void writeDirect(McpSchema.JSONRPCResponse response, String json) {
        try {
            watchdog.guard(writeTimeout, () -> respondJson(exchange, response, json));
        } catch (IOException | RuntimeException e) {
            queue.add(new Failed(e instanceof IOException io ? io : new IOException("the response could not be written", e)));
        } finally {
            directWritten.countDown();
        }
    }

    /**
     * Before the pump closes the exchange: waits for a direct write still in progress (the SDK may finish
     * the request on another thread before the producer's write returns; closing the exchange under it
     * would cut the response and the kept-alive connection), then rethrows its failure. Bounded by the
     * write's own timeout, which the watchdog enforces.
     */
    private void awaitDirectWrite() throws IOException, InterruptedException {
        synchronized (this) {
            if (writer != Writer.DIRECT) {
                return;
            }
        }
        if (!directWritten.await(writeTimeout.toMillis() + 1_000, TimeUnit.MILLISECONDS)) {
            throw new IOException("the response's producer did not finish writing it in time");
        }
        Object item;
        while ((item = queue.poll()) != null) {
            if (item instanceof Failed failed) {
                throw failed.failure();
            }
        }
    }

    /** The pump writes the answer unless the response's producer does; true if the pump does. */
    private synchronized boolean pumpWrites() {
        if (writer == Writer.UNDECIDED) {
            writer = Writer.PUMP;
        }
        return writer == Writer.PUMP;
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
            if (writer == Writer.UNDECIDED) {
                writer = Writer.PUMP; // an error before any message: the pump answers 500
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

    /**
     * Writes what the SDK sends until the request is finished or the stream detached (or waits while the
     * response's producer writes it); runs on the HTTP thread.
     */
    void pump() throws IOException {
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
                if (item instanceof Failed failed) {
                    throw failed.failure();
                }
                if (!answered && !pumpWrites()) {
                    answered = true; // the response's producer is writing it: wait for the end of the request
                    if (item == null) {
                        continue;
                    }
                }
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
                    awaitDirectWrite();
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
        } else if (error != null && error.code() != null && error.code() == ToolgateMcpServer.STORE_UNAVAILABLE) {
            status = 503;
            if (error.data() instanceof Map<?, ?> map && Boolean.TRUE.equals(map.get("retryable"))) {
                exchange.getResponseHeaders().set("Retry-After", String.valueOf(retryAfterSeconds(error.data())));
            }
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
