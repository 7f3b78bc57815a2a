package dev.toolgate.examples.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * One MCP client session over Streamable HTTP, as a client keeps it: {@code initialize} and
 * {@code notifications/initialized} once, then requests one after the other. Each session has its own
 * {@link HttpClient} on HTTP/1.1, so its sequential requests share one kept-alive connection (a client
 * opens a second connection only for a request sent while another is in flight). Not thread-safe: one
 * caller at a time.
 */
final class McpSession {

    static final String PROTOCOL = "2025-11-25";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** A call that did not come back as a successful result. */
    static final class CallFailed extends IOException {
        CallFailed(String message) {
            super(message);
        }
    }

    private final HttpClient http;
    private final URI endpoint;
    private final String token;
    private final String id;
    private long nextId = 1;

    private McpSession(HttpClient http, URI endpoint, String token, String id) {
        this.http = http;
        this.endpoint = endpoint;
        this.token = token;
        this.id = id;
    }

    /** Opens a session: {@code initialize}, then {@code notifications/initialized}. */
    static McpSession open(URI endpoint, String token, String clientName) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        String init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + PROTOCOL
                + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"" + clientName + "\",\"version\":\"1\"}}}";
        HttpResponse<String> response = http.send(post(endpoint, token, null, init), HttpResponse.BodyHandlers.ofString());
        String id = response.headers().firstValue("Mcp-Session-Id").orElse(null);
        if (response.statusCode() != 200 || id == null) {
            throw new CallFailed("initialize: HTTP " + response.statusCode() + " " + abbreviate(response.body()));
        }
        HttpResponse<Void> initialized = http.send(post(endpoint, token, id,
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"), HttpResponse.BodyHandlers.discarding());
        if (initialized.statusCode() != 202) {
            throw new CallFailed("notifications/initialized: HTTP " + initialized.statusCode());
        }
        return new McpSession(http, endpoint, token, id);
    }

    /**
     * {@code tools/call}; returns the response body.
     *
     * @param params the call's params, such as {@code {"name":"bench.ping","arguments":{}}}
     * @throws CallFailed unless the answer is HTTP 200 with a JSON-RPC result that is not {@code isError}
     */
    String call(String params) throws IOException, InterruptedException {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":" + nextId++ + ",\"method\":\"tools/call\",\"params\":" + params + "}";
        HttpResponse<String> response = http.send(post(endpoint, token, id, body), HttpResponse.BodyHandlers.ofString());
        String text = response.body();
        if (response.statusCode() != 200 || !text.contains("\"result\"") || text.contains("\"isError\":true")) {
            throw new CallFailed("tools/call " + abbreviate(params) + ": HTTP " + response.statusCode() + " " + abbreviate(text));
        }
        return text;
    }

    /** Ends the session (DELETE); errors are ignored, the server also ends idle sessions itself. */
    void close() {
        try {
            http.send(HttpRequest.newBuilder(endpoint).timeout(TIMEOUT).header("Authorization", "Bearer " + token)
                    .header("MCP-Protocol-Version", PROTOCOL).header("Mcp-Session-Id", id).DELETE().build(),
                    HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            // the session ends by idling out
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static HttpRequest post(URI endpoint, String token, String session, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint).timeout(TIMEOUT)
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + token).header("MCP-Protocol-Version", PROTOCOL)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            request.header("Mcp-Session-Id", session);
        }
        return request.build();
    }

    static String abbreviate(String text) {
        String flat = text == null ? "" : text.replaceAll("\\s+", " ");
        return flat.length() <= 300 ? flat : flat.substring(0, 300) + "...";
    }
}
