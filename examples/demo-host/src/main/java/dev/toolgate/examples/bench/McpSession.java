package dev.toolgate.examples.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One MCP client session over Streamable HTTP, as a client keeps it: {@code initialize} and
 * {@code notifications/initialized} once, then requests one after the other on one kept-alive
 * HTTP/1.1 connection. Two clients send the same bytes: {@link Client#SOCKET}, a
 * blocking socket read and written on the caller's thread ({@link KeptAliveConnection}), which is what
 * a client's HTTP stack amounts to on the wire, so the latency measured is the server's and the
 * network's; and {@link Client#HTTP_CLIENT}, the JDK's {@link HttpClient} (one per session, HTTP/1.1),
 * which adds its own thread hand-offs to every call (its selector thread reads the response and a pool
 * thread completes the caller's future): on a 2-core machine they cost more per call than the server's
 * whole path (November 2026, 1 client: p50 0.33-0.42 ms against 0.14-0.15 ms on the socket). Not
 * thread-safe: one caller at a time.
 */
final class McpSession {

    static final String PROTOCOL = "2025-11-25";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** The HTTP client a session sends its requests with. */
    enum Client {
        /** One kept-alive socket, blocking I/O on the caller's thread ({@link KeptAliveConnection}). */
        SOCKET,
        /** The JDK's {@link HttpClient} on HTTP/1.1, one per session. */
        HTTP_CLIENT;

        /** {@code socket} or {@code httpclient}. */
        static Client parse(String name) {
            return switch (name.toLowerCase(Locale.ROOT)) {
                case "socket" -> SOCKET;
                case "httpclient" -> HTTP_CLIENT;
                default -> throw new IllegalArgumentException("--client takes socket or httpclient, not " + name);
            };
        }
    }

    /** A call that did not come back as a successful result. */
    static final class CallFailed extends IOException {
        CallFailed(String message) {
            super(message);
        }
    }

    /** What a request came back as. */
    private record Reply(int status, String sessionId, String body) {
    }

    /** Sends a session's requests: a POST of a JSON-RPC message, or the DELETE that ends it. */
    private interface Wire {
        Reply post(String sessionId, String body) throws IOException, InterruptedException;

        void delete(String sessionId) throws IOException, InterruptedException;

        void close();
    }

    private final Wire wire;
    private final String id;
    private long nextId = 1;

    private McpSession(Wire wire, String id) {
        this.wire = wire;
        this.id = id;
    }

    /** Opens a session with {@code client}: {@code initialize}, then {@code notifications/initialized}. */
    static McpSession open(URI endpoint, String token, String clientName, Client client)
            throws IOException, InterruptedException {
        Wire wire = client == Client.SOCKET ? new SocketWire(endpoint, token) : new HttpClientWire(endpoint, token);
        try {
            String init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + PROTOCOL
                    + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"" + clientName + "\",\"version\":\"1\"}}}";
            Reply response = wire.post(null, init);
            if (response.status() != 200 || response.sessionId() == null) {
                throw new CallFailed("initialize: HTTP " + response.status() + " " + abbreviate(response.body()));
            }
            Reply initialized = wire.post(response.sessionId(), "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            if (initialized.status() != 202) {
                throw new CallFailed("notifications/initialized: HTTP " + initialized.status());
            }
            return new McpSession(wire, response.sessionId());
        } catch (IOException | InterruptedException | RuntimeException e) {
            wire.close();
            throw e;
        }
    }

    /**
     * {@code tools/call}; returns the response body.
     *
     * @param params the call's params, such as {@code {"name":"bench.ping","arguments":{}}}
     * @throws CallFailed unless the answer is HTTP 200 with a JSON-RPC result that is not {@code isError}
     */
    String call(String params) throws IOException, InterruptedException {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":" + nextId++ + ",\"method\":\"tools/call\",\"params\":" + params + "}";
        Reply response = wire.post(id, body);
        String text = response.body();
        if (response.status() != 200 || !text.contains("\"result\"") || text.contains("\"isError\":true")) {
            throw new CallFailed("tools/call " + abbreviate(params) + ": HTTP " + response.status() + " " + abbreviate(text));
        }
        return text;
    }

    /** Ends the session (DELETE) and its connection; errors are ignored, the server also ends idle sessions itself. */
    void close() {
        try {
            wire.delete(id);
        } catch (IOException e) {
            // the session ends by idling out
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            wire.close();
        }
    }

    static String abbreviate(String text) {
        String flat = text == null ? "" : text.replaceAll("\\s+", " ");
        return flat.length() <= 300 ? flat : flat.substring(0, 300) + "...";
    }

    /** {@link Client#SOCKET}. */
    private static final class SocketWire implements Wire {
        private final KeptAliveConnection connection;
        private final String token;

        SocketWire(URI endpoint, String token) {
            this.connection = new KeptAliveConnection(endpoint, (int) TIMEOUT.toMillis());
            this.token = token;
        }

        private Map<String, String> headers(String sessionId, boolean json) {
            Map<String, String> headers = new LinkedHashMap<>();
            if (json) {
                headers.put("Content-Type", "application/json");
                headers.put("Accept", "application/json, text/event-stream");
            }
            headers.put("Authorization", "Bearer " + token);
            headers.put("MCP-Protocol-Version", PROTOCOL);
            if (sessionId != null) {
                headers.put("Mcp-Session-Id", sessionId);
            }
            return headers;
        }

        @Override
        public Reply post(String sessionId, String body) throws IOException {
            KeptAliveConnection.Response response = connection.send("POST", headers(sessionId, true), body);
            return new Reply(response.status(), response.headers().get("mcp-session-id"), response.body());
        }

        @Override
        public void delete(String sessionId) throws IOException {
            connection.send("DELETE", headers(sessionId, false), null);
        }

        @Override
        public void close() {
            connection.close();
        }
    }

    /** {@link Client#HTTP_CLIENT}: its sequential requests share one kept-alive connection. */
    private static final class HttpClientWire implements Wire {
        private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        private final URI endpoint;
        private final String token;

        HttpClientWire(URI endpoint, String token) {
            this.endpoint = endpoint;
            this.token = token;
        }

        @Override
        public Reply post(String sessionId, String body) throws IOException, InterruptedException {
            HttpRequest.Builder request = HttpRequest.newBuilder(endpoint).timeout(TIMEOUT)
                    .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                    .header("Authorization", "Bearer " + token).header("MCP-Protocol-Version", PROTOCOL)
                    .POST(HttpRequest.BodyPublishers.ofString(body));
            if (sessionId != null) {
                request.header("Mcp-Session-Id", sessionId);
            }
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(response.statusCode(), response.headers().firstValue("Mcp-Session-Id").orElse(null), response.body());
        }

        @Override
        public void delete(String sessionId) throws IOException, InterruptedException {
            http.send(HttpRequest.newBuilder(endpoint).timeout(TIMEOUT).header("Authorization", "Bearer " + token)
                    .header("MCP-Protocol-Version", PROTOCOL).header("Mcp-Session-Id", sessionId).DELETE().build(),
                    HttpResponse.BodyHandlers.discarding());
        }

        @Override
        public void close() {
            // Java 17's HttpClient has no close(): once collected, its selector thread ends and closes the connection
        }
    }
}
