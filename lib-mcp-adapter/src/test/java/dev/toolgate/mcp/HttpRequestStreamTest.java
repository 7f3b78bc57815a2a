package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which thread writes a POST's answer, on the stream itself with a recording exchange (the HTTP suites
 * cover the wire): a response that comes first is written by the thread that produced it, with no
 * hand-off back to the HTTP thread, unless that thread has an interrupt pending; anything sent before it
 * makes the HTTP thread write an event stream.
 */
class HttpRequestStreamTest {

    private static final HttpSettings SETTINGS = new HttpSettings("/mcp", Set.of(), 1 << 20, Duration.ofMinutes(1),
            Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(10), 4, 4, 4, 4, Duration.ofSeconds(1),
            Set.of(), null, 100, 1 << 20, null, Duration.ofSeconds(1));

    private final HttpWatchdog watchdog = new HttpWatchdog(Duration.ofSeconds(10), task -> {
        Thread thread = new Thread(task, "test-watchdog");
        thread.setDaemon(true);
        return thread;
    });

    @AfterEach
    void closeWatchdog() {
        watchdog.close();
    }

    @Test
    void aResponseThatComesFirstIsWrittenByTheThreadThatProducedIt() throws Exception {
        Recording exchange = new Recording();
        HttpRequestStream stream = stream(exchange, 7);
        CompletableFuture<Void> pumped = pumpOnAnHttpThread(stream);
        Thread producer = start("producer", () -> {
            stream.sendMessage(new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, 7, Map.of("ok", true), null)).block();
            stream.finish(null);
        });
        pumped.get(10, TimeUnit.SECONDS);
        producer.join(10_000);

        assertThat(exchange.status).isEqualTo(200);
        assertThat(exchange.body()).contains("\"id\":7").contains("\"ok\":true");
        assertThat(exchange.writers).as("threads that wrote the response body").isNotEmpty().containsOnly("producer");
    }

    @Test
    void theHttpThreadNeverClosesTheExchangeUnderADirectWriteEvenWhenTheRequestFinishesFirst() throws Exception {
        Recording exchange = new Recording();
        exchange.writeGate = new CountDownLatch(1);
        HttpRequestStream stream = stream(exchange, 11);
        CompletableFuture<Void> pumped = pumpOnAnHttpThread(stream);
        Thread producer = start("producer", () ->
                stream.sendMessage(new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, 11, Map.of("ok", true), null)).block());
        assertThat(exchange.writing.await(10, TimeUnit.SECONDS)).as("the producer started writing").isTrue();
        // the SDK finishes the request on another thread while the producer's write is still on the wire
        stream.finish(null);
        Thread.sleep(300);
        boolean returnedDuringTheWrite = pumped.isDone();
        exchange.writeGate.countDown();
        pumped.get(10, TimeUnit.SECONDS);
        producer.join(10_000);

        assertThat(returnedDuringTheWrite).as("the HTTP thread left (and closed the exchange) while the response was being written")
                .isFalse();
        assertThat(exchange.closedDuringAWrite).isFalse();
        assertThat(exchange.bodyAtClose).as("the body when the exchange was closed").contains("\"id\":11").contains("\"ok\":true");
        assertThat(exchange.writers).containsOnly("producer");
    }

    @Test
    void aProducerWithAnInterruptPendingLeavesTheResponseToTheHttpThread() throws Exception {
        Recording exchange = new Recording();
        HttpRequestStream stream = stream(exchange, 9);
        CompletableFuture<Void> pumped = pumpOnAnHttpThread(stream);
        boolean[] stillInterrupted = {false};
        Thread producer = start("producer", () -> {
            // on a socket, a write from this thread would fail (ClosedByInterruptException) and close the connection
            Thread.currentThread().interrupt();
            stream.sendMessage(new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, 9, Map.of("ok", true), null)).block();
            stillInterrupted[0] = Thread.currentThread().isInterrupted();
            Thread.interrupted();
            stream.finish(null);
        });
        pumped.get(10, TimeUnit.SECONDS);
        producer.join(10_000);

        assertThat(exchange.status).isEqualTo(200);
        assertThat(exchange.body()).contains("\"id\":9").contains("\"ok\":true");
        assertThat(exchange.writers).as("threads that wrote the response body").isNotEmpty().containsOnly("http-worker");
        assertThat(stillInterrupted[0]).as("the producer's interrupt is left to its owner").isTrue();
    }

    @Test
    void aMessageBeforeTheResponseMakesTheHttpThreadWriteAnEventStream() throws Exception {
        Recording exchange = new Recording();
        HttpRequestStream stream = stream(exchange, 8);
        CompletableFuture<Void> pumped = pumpOnAnHttpThread(stream);
        Thread producer = start("producer", () -> {
            stream.sendMessage(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, "notifications/progress",
                    Map.of("progress", 1))).block();
            stream.sendMessage(new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, 8, Map.of("ok", true), null)).block();
            stream.finish(null);
        });
        pumped.get(10, TimeUnit.SECONDS);
        producer.join(10_000);

        assertThat(exchange.responseHeaders.getFirst("Content-Type")).isEqualTo(HttpResponses.TEXT_EVENT_STREAM);
        assertThat(exchange.body()).contains("notifications/progress").contains("\"id\":8");
        assertThat(exchange.writers).as("threads that wrote the event stream").isNotEmpty().containsOnly("http-worker");
    }

    /** The stream of the POST with JSON-RPC id {@code requestId}, answering on {@code exchange}. */
    private HttpRequestStream stream(Recording exchange, int requestId) {
        return new HttpRequestStream(exchange, requestId, new HttpResponses(McpJsonDefaults.getMapper()), SETTINGS,
                new HttpEventLog(100, 1 << 20), watchdog);
    }

    /** Runs the stream's pump on a thread named "http-worker", as the server's HTTP thread would. */
    private static CompletableFuture<Void> pumpOnAnHttpThread(HttpRequestStream stream) {
        return CompletableFuture.runAsync(() -> pump(stream), runnable -> start("http-worker", runnable));
    }

    private static void pump(HttpRequestStream stream) {
        try {
            stream.pump();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Thread start(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** An exchange that records the status, the body and the names of the threads that wrote to it. */
    private static final class Recording extends HttpExchange {
        final Headers responseHeaders = new Headers();
        final List<String> writers = new CopyOnWriteArrayList<>();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        volatile int status = -1;
        /** When set, a body write waits for it (a client slow to take the bytes), after signalling {@link #writing}. */
        volatile CountDownLatch writeGate;
        final CountDownLatch writing = new CountDownLatch(1);
        volatile boolean inWrite;
        /** The body as it was when the exchange was first closed, or null if it never was. */
        volatile String bodyAtClose;
        volatile boolean closedDuringAWrite;
        private final OutputStream body = new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                writers.add(Thread.currentThread().getName());
                CountDownLatch gate = writeGate;
                inWrite = true;
                try {
                    writing.countDown();
                    if (gate != null) {
                        try {
                            gate.await(10, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    synchronized (bytes) {
                        bytes.write(b, off, len);
                    }
                } finally {
                    inWrite = false;
                }
            }
        };

        String body() {
            synchronized (bytes) {
                return bytes.toString(StandardCharsets.UTF_8);
            }
        }

        @Override
        public Headers getRequestHeaders() {
            return new Headers();
        }

        @Override
        public Headers getResponseHeaders() {
            return responseHeaders;
        }

        @Override
        public URI getRequestURI() {
            return URI.create("/mcp");
        }

        @Override
        public String getRequestMethod() {
            return "POST";
        }

        @Override
        public HttpContext getHttpContext() {
            return null;
        }

        @Override
        public void close() {
            if (bodyAtClose == null) {
                closedDuringAWrite = inWrite;
                bodyAtClose = body();
            }
        }

        @Override
        public InputStream getRequestBody() {
            return InputStream.nullInputStream();
        }

        @Override
        public OutputStream getResponseBody() {
            return body;
        }

        @Override
        public void sendResponseHeaders(int code, long length) {
            status = code;
        }

        @Override
        public InetSocketAddress getRemoteAddress() {
            return new InetSocketAddress("127.0.0.1", 1);
        }

        @Override
        public int getResponseCode() {
            return status;
        }

        @Override
        public InetSocketAddress getLocalAddress() {
            return new InetSocketAddress("127.0.0.1", 2);
        }

        @Override
        public String getProtocol() {
            return "HTTP/1.1";
        }

        @Override
        public Object getAttribute(String name) {
            return null;
        }

        @Override
        public void setAttribute(String name, Object value) {
            // not used
        }

        @Override
        public void setStreams(InputStream in, OutputStream out) {
            // not used
        }

        @Override
        public HttpPrincipal getPrincipal() {
            return null;
        }
    }
}
