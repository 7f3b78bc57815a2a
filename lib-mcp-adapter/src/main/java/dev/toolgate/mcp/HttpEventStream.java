package dev.toolgate.mcp;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * An open SSE response to a GET: the session's listening stream (stream 0 of its
 * {@link HttpEventLog}), or a POST's stream resumed with {@code Last-Event-ID}. Messages the SDK
 * sends on the listening stream are recorded in the log, which delivers them to the stream's current
 * connection ({@link #deliver}). Writes run in order on the transport's writer threads, never on the
 * caller's: a Reactor thread can be interrupted when a subscription is cancelled, and an interrupted
 * write closes the socket.
 */
final class HttpEventStream implements McpStreamableServerTransport, HttpEventLog.Sink {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    private final HttpExchange exchange;
    private final McpJsonMapper mapper;
    private final String sessionId;
    private final SerialExecutor writer;
    private final HttpWatchdog watchdog;
    private final Duration writeTimeout;
    private final Runnable onClose;
    private final HttpEventLog log;
    private volatile int stream;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile OutputStream body;
    private volatile boolean closed;

    /**
     * A stream on {@code exchange}; {@code onClose} runs once when it closes. Each write that the
     * client does not take within {@code writeTimeout} closes the stream.
     */
    HttpEventStream(HttpExchange exchange, McpJsonMapper mapper, String sessionId, Executor writers, HttpWatchdog watchdog,
                    Duration writeTimeout, Runnable onClose, HttpEventLog log, int stream) {
        this.log = log;
        this.stream = stream;
        this.exchange = exchange;
        this.mapper = mapper;
        this.sessionId = sessionId;
        this.writer = new SerialExecutor(writers);
        this.watchdog = watchdog;
        this.writeTimeout = writeTimeout;
        this.onClose = onClose;
    }

    /** Sets the log's stream this connection resumed (it was created before the id was checked). */
    void resumed(int number) {
        this.stream = number;
        if (closed) {
            log.detach(number, this);
        }
    }

    /** Queues the response headers, ahead of any event. */
    void open() {
        submit(() -> {
            boolean failed = false;
            lock.lock();
            try {
                if (closed) {
                    return;
                }
                Headers headers = exchange.getResponseHeaders();
                headers.set("Content-Type", HttpResponses.TEXT_EVENT_STREAM);
                headers.set("Cache-Control", "no-cache");
                watchdog.guard(writeTimeout, () -> exchange.sendResponseHeaders(200, 0));
                body = exchange.getResponseBody();
            } catch (IOException e) {
                LOG.debug("SSE stream of session {} could not start: {}", sessionId, e.toString());
                failed = true;
            } finally {
                lock.unlock();
            }
            if (failed) {
                close(); // outside the lock: closing detaches from the log, whose lock a delivery may hold
            }
        });
    }

    boolean closed() {
        return closed;
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
                json = mapper.writeValueAsString(message);
            } catch (IOException e) {
                LOG.warn("Could not serialize a message for session {}: {}", sessionId, e.toString());
                return;
            }
            // kept for a client that resumes, and written to the listening stream's connection if one is open
            log.record(stream, json, false);
        });
    }

    @Override
    public void deliver(String chunk, boolean last) {
        if (!chunk.isEmpty()) {
            submit(() -> {
                if (!write(chunk)) {
                    LOG.debug("Event for session {} not written: its SSE stream is closed", sessionId);
                }
            });
        }
        if (last) {
            submit(this::close); // the POST's response was the stream's last event
        }
    }

    /** Queues a keep-alive comment; returns whether the stream was still open. */
    boolean ping() {
        submit(() -> write(": keepalive\n\n"));
        return !closed;
    }

    private void submit(Runnable task) {
        try {
            writer.execute(task);
        } catch (RejectedExecutionException e) {
            close();
        }
    }

    private boolean write(String chunk) {
        boolean failed = false;
        lock.lock();
        try {
            if (closed || body == null) {
                return false;
            }
            OutputStream out = body;
            byte[] bytes = chunk.getBytes(StandardCharsets.UTF_8);
            watchdog.guard(writeTimeout, () -> {
                out.write(bytes);
                out.flush();
            });
            return true;
        } catch (IOException e) {
            LOG.debug("SSE stream of session {} closed by the client: {}", sessionId, e.toString());
            failed = true;
            return false;
        } finally {
            lock.unlock();
            if (failed) {
                close(); // outside the lock, as in open()
            }
        }
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return mapper.convertValue(data, typeRef);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(this::close);
    }

    /** Closes the stream; waits for a write in progress, which its write timeout bounds. */
    @Override
    public void close() {
        boolean first = false;
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                first = true;
                exchange.close();
            }
        } finally {
            lock.unlock();
        }
        if (first) {
            log.detach(stream, this);
            onClose.run();
        }
    }
}
