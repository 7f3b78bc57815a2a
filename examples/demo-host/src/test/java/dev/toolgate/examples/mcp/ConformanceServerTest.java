package dev.toolgate.examples.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.json.Json;
import dev.toolgate.mcp.ToolgateMcpServer;
import dev.toolgate.spi.InMemoryStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The conformance host serves the suite's fixtures under the suite's names (the suite itself runs in
 * CI: examples/demo-host/src/conformance/run.sh); here, without Node, what a broken fixture would show first.
 */
// a separate thread: JDK 17's HttpClient response stream swallows a same-thread timeout's interrupt
@org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
class ConformanceServerTest {

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void servesTheFixturesUnderTheSuitesNames() throws Exception {
        try (InMemoryStore store = new InMemoryStore();
             Toolgate gate = ConformanceServer.gate(store);
             ToolgateMcpServer server = ConformanceServer.start(gate, 0)) {
            URI endpoint = server.endpoint().orElseThrow();
            HttpResponse<String> init = post(endpoint, null, """
                    {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",
                     "capabilities":{},"clientInfo":{"name":"test","version":"1"}}}""");
            assertThat(init.statusCode()).isEqualTo(200);
            String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
            assertThat(Json.parse(body(endpoint, session, init)).at("/result/capabilities").has("resources")).isTrue();
            post(endpoint, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

            JsonNode tools = Json.parse(body(endpoint, session, post(endpoint, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}")));
            List<String> names = new ArrayList<>();
            tools.at("/result/tools").forEach(tool -> names.add(tool.path("name").asString()));
            assertThat(names).containsExactlyInAnyOrder("test_simple_text", "test_image_content", "test_audio_content",
                    "test_embedded_resource", "test_multiple_content_types", "test_tool_with_logging",
                    "test_tool_with_progress", "test_error_handling", "test_sampling", "test_elicitation",
                    "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums", "json_schema_2020_12_tool",
                    "test_reconnection");

            JsonNode image = Json.parse(body(endpoint, session, post(endpoint, session, """
                    {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_image_content","arguments":{}}}""")));
            assertThat(image.at("/result/content/0/type").asString()).isEqualTo("image");
            assertThat(image.at("/result/content/0/mimeType").asString()).isEqualTo("image/png");

            JsonNode template = Json.parse(body(endpoint, session, post(endpoint, session, """
                    {"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://template/123/data"}}""")));
            assertThat(Json.parse(template.at("/result/contents/0/text").asString()))
                    .isEqualTo(Json.parse("{\"id\":\"123\",\"templateTest\":true,\"data\":\"Data for ID: 123\"}"));
        }
    }

    private HttpResponse<String> post(URI endpoint, String session, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
                .header("Authorization", "Bearer " + ConformanceServer.TOKEN)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (session != null) {
            request.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The JSON-RPC message of a JSON answer or of an event stream's data line. The host polls (a call not
     * answered within 100 ms ends its stream after the priming event, see {@link ConformanceServer}): a
     * stream that ended without a message is resumed as a client resumes it, with a GET that names the
     * last event it received, and the answer is the first message there (on a slow machine any call may
     * take longer than 100 ms).
     */
    private String body(URI endpoint, String session, HttpResponse<String> response) throws Exception {
        String text = response.body();
        if (!response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
            return text;
        }
        Optional<String> message = text.lines().filter(line -> line.startsWith("data:") && line.length() > 6)
                .map(line -> line.substring(5).strip()).reduce((first, second) -> second);
        if (message.isPresent()) {
            return message.get();
        }
        String lastEventId = text.lines().filter(line -> line.startsWith("id:")).map(line -> line.substring(3).strip())
                .reduce((first, second) -> second).orElseThrow(() -> new AssertionError("an event stream with no event: " + text));
        HttpRequest resume = HttpRequest.newBuilder(endpoint)
                .header("Authorization", "Bearer " + ConformanceServer.TOKEN)
                .header("Accept", "text/event-stream")
                .header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "2025-11-25")
                .header("Last-Event-ID", lastEventId)
                .timeout(Duration.ofSeconds(30))
                .GET().build();
        HttpResponse<Stream<String>> resumed = http.send(resume, HttpResponse.BodyHandlers.ofLines());
        assertThat(resumed.statusCode()).as("the resumed stream").isEqualTo(200);
        try (Stream<String> lines = resumed.body()) {
            return lines.filter(line -> line.startsWith("data:") && line.length() > 6).map(line -> line.substring(5).strip())
                    .findFirst().orElseThrow(() -> new AssertionError("the resumed stream ended without the answer"));
        }
    }
}
