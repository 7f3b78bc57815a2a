package dev.toolgate.mcp;

import dev.toolgate.json.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;

/**
 * A raw Streamable HTTP session that also holds the session's GET event stream open and reads the
 * server's messages on it in order, to see exactly which notifications the server sent (the SDK's
 * client re-reads an updated resource before telling its consumer, which hides a notification the
 * server should not have sent when that read fails).
 */
final class RawEvents implements AutoCloseable {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final URI endpoint;
    private final String token;
    private final String session;
    private final BufferedReader events;
    private final InputStream body;

    RawEvents(URI endpoint, String token) throws IOException, InterruptedException {
        this.endpoint = endpoint;
        this.token = token;
        HttpResponse<String> init = send(null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw-events\",\"version\":\"1\"}}}");
        this.session = init.headers().firstValue("Mcp-Session-Id").orElseThrow(() -> new IOException("no session: " + init.body()));
        send(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        HttpResponse<InputStream> stream = http.send(HttpRequest.newBuilder(endpoint).header("Authorization", "Bearer " + token)
                .header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25")
                .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        if (stream.statusCode() != 200) {
            throw new IOException("GET stream refused: " + stream.statusCode());
        }
        this.body = stream.body();
        this.events = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
    }

    /** Posts one message in the session; the response body. */
    String post(String json) throws IOException, InterruptedException {
        return send(session, json).body();
    }

    private HttpResponse<String> send(String sessionId, String json) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2025-11-25")
                .timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (sessionId != null) {
            request.header("Mcp-Session-Id", sessionId);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The messages on the event stream up to and including the first that {@code until} accepts. */
    List<JsonNode> readUntil(Predicate<JsonNode> until) throws IOException {
        List<JsonNode> seen = new ArrayList<>();
        String line;
        while ((line = events.readLine()) != null) {
            if (line.startsWith("data:")) {
                String data = line.substring(5).strip();
                if (data.isEmpty()) {
                    continue;
                }
                JsonNode message = Json.parse(data);
                seen.add(message);
                if (until.test(message)) {
                    return seen;
                }
            }
        }
        throw new IOException("the stream ended; saw " + seen);
    }

    /** Whether {@code message} is a resources/updated notification for {@code uri}. */
    static boolean updated(JsonNode message, String uri) {
        return "notifications/resources/updated".equals(message.path("method").asString(""))
                && uri.equals(message.path("params").path("uri").asString(""));
    }

    @Override
    public void close() throws IOException {
        body.close();
    }
}
