package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.json.Json;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Tools returning MCP content (text, image, audio, embedded resources, links, mixed, with structured
 * content) through the SDK's own client over Streamable HTTP and stdio, and what the audit keeps of them.
 */
class McpContentTest {

    private static final String PNG64 = Base64.getEncoder().encodeToString(MediaTools.PNG);

    private Toolgate gate;
    private ServedMcp server;
    private McpSyncClient client;

    /** Serves the gate the way this suite tests; the servlet suite overrides it. */
    ServedMcp serve(Toolgate gate, McpAuthenticator authenticator) {
        return ServedMcp.standalone(ToolgateMcpServer.http(gate, authenticator).start());
    }

    @BeforeEach
    void start() {
        gate = MediaTools.gate();
        server = serve(gate, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)));
        client = Fixtures.http(server.endpoint(), "alice-token");
    }

    @AfterEach
    void stop() {
        client.closeGracefully();
        server.close();
        gate.close();
    }

    private static McpSchema.Content only(CallToolResult result) {
        assertThat(result.isError()).as("%s", result).isFalse();
        assertThat(result.content()).hasSize(1);
        return result.content().get(0);
    }

    @Test
    void eachKindOfContentArrivesIntact() {
        assertThat(only(Fixtures.call(client, "media.image", Map.of())))
                .isEqualTo(new McpSchema.ImageContent(null, PNG64, "image/png"));
        assertThat(only(Fixtures.call(client, "media.audio", Map.of())))
                .isEqualTo(new McpSchema.AudioContent(null, Base64.getEncoder().encodeToString(MediaTools.WAV), "audio/wav"));
        assertThat(only(Fixtures.call(client, "media.resource", Map.of()))).isEqualTo(new McpSchema.EmbeddedResource(null,
                new McpSchema.TextResourceContents("test://embedded-resource", "text/plain", "This is an embedded resource content.")));
        assertThat(only(Fixtures.call(client, "media.blob", Map.of()))).isEqualTo(new McpSchema.EmbeddedResource(null,
                new McpSchema.BlobResourceContents("test://blob", "image/png", PNG64)));
        assertThat(only(Fixtures.call(client, "media.link", Map.of()))).isEqualTo(new McpSchema.ResourceLink("report.txt",
                "The report", "file:///tmp/report.txt", "Last week's report", "text/plain", 1234L, null, null));
        CallToolResult image = Fixtures.call(client, "media.image", Map.of());
        assertThat(image.structuredContent()).isNull();
        assertThat(image.meta()).containsEntry(McpContent.STATUS_META, "executed").containsKey(McpContent.CALL_ID_META);
    }

    @Test
    void mixedContentKeepsItsOrderAndStructuredContentMatchingTheAdvertisedSchema() {
        CallToolResult result = Fixtures.call(client, "media.mixed", Map.of());
        assertThat(result.isError()).isFalse();
        assertThat(result.content()).containsExactly(new McpSchema.TextContent("Multiple content types test:"),
                new McpSchema.ImageContent(null, PNG64, "image/png"),
                new McpSchema.EmbeddedResource(null, new McpSchema.TextResourceContents("test://mixed-content-resource",
                        "application/json", "{\"test\":\"data\",\"value\":123}")));
        assertThat(result.structuredContent()).isEqualTo(Map.of("test", "data", "value", 123));

        McpSchema.Tool mixed = client.listTools().tools().stream().filter(t -> t.name().equals("media.mixed")).findFirst().orElseThrow();
        assertThat(mixed.outputSchema()).containsEntry("type", "object").containsEntry("required", List.of("test", "value"));
        McpSchema.Tool image = client.listTools().tools().stream().filter(t -> t.name().equals("media.image")).findFirst().orElseThrow();
        assertThat(image.outputSchema()).as("no declared output, none advertised").isNull();
    }

    @Test
    void ordinaryOutputsKeepTheGatesEnvelope() {
        CallToolResult result = Fixtures.call(client, "media.plain", Map.of());
        assertThat(Fixtures.structured(result)).containsEntry("status", "executed").containsEntry("result", Map.of("answer", 42));
        assertThat(Json.parse(Fixtures.text(result))).isEqualTo(Json.toTree(result.structuredContent()));
    }

    @Test
    void theAuditKeepsDigestsNotBase64AndStaysBounded() {
        Fixtures.call(client, "media.mixed", Map.of());
        CallToolResult big = Fixtures.call(client, "media.big", Map.of());
        String bigData = ((McpSchema.ImageContent) only(big)).data();
        assertThat(Base64.getDecoder().decode(bigData)).hasSize(3 * 1024 * 1024);

        List<CallRecord> records = gate.findCalls(CallQuery.latest(10));
        CallRecord mixed = records.stream().filter(r -> r.toolName().equals("media.mixed")).findFirst().orElseThrow();
        JsonNode view = Json.parse(mixed.resultJson());
        assertThat(view.path("content").get(1).path("type").asString()).isEqualTo("image");
        assertThat(view.path("content").get(1).path("bytes").asInt()).isEqualTo(MediaTools.PNG.length);
        assertThat(view.path("content").get(1).path("sha256").asString()).hasSize(64);
        assertThat(view.path("content").get(1).has("data")).isFalse();
        assertThat(view.path("content").get(0).path("text").asString()).isEqualTo("Multiple content types test:");
        assertThat(view.path("structuredContent").path("value").asInt()).isEqualTo(123);
        assertThat(mixed.resultJson()).doesNotContain(PNG64);

        CallRecord bigRecord = records.stream().filter(r -> r.toolName().equals("media.big")).findFirst().orElseThrow();
        assertThat(bigRecord.status()).isEqualTo(CallStatus.EXECUTED);
        assertThat(bigRecord.resultJson().length()).isLessThan(1024);
        assertThat(bigRecord.resultJson()).contains("\"bytes\":" + 3 * 1024 * 1024);
    }

    @Test
    void longTextReachesTheClientWholeWhileTheAuditKeepsItsCap() {
        CallToolResult result = Fixtures.call(client, "media.longtext", Map.of());
        assertThat(((McpSchema.TextContent) result.content().get(0)).text()).hasSize(1_000_000);
        McpSchema.EmbeddedResource resource = (McpSchema.EmbeddedResource) result.content().get(1);
        assertThat(((McpSchema.TextResourceContents) resource.resource()).text()).hasSize(1_000_000);
        CallRecord record = gate.findCalls(CallQuery.latest(1)).get(0);
        assertThat(record.resultJson().length()).isLessThanOrEqualTo(10 * 1024);
        JsonNode view = Json.parse(record.resultJson());
        assertThat(view.path("_truncated").asBoolean()).isTrue();
        assertThat(view.path("content").get(0).path("chars").asInt()).isEqualTo(1_000_000);
    }

    @Test
    void textIsRedactedForTheClientAndTheAuditButBinaryPassesIntact() {
        CallToolResult result = Fixtures.call(client, "media.secret", Map.of());
        assertThat(((McpSchema.TextContent) result.content().get(0)).text()).doesNotContain(MediaTools.SECRET).contains("[REDACTED]");
        assertThat(((McpSchema.ImageContent) result.content().get(1)).data()).isEqualTo(PNG64);
        CallRecord record = gate.findCalls(CallQuery.latest(1)).get(0);
        assertThat(record.resultJson()).doesNotContain(MediaTools.SECRET).contains("[REDACTED]");
    }

    @Test
    void badContentFailsTheCallWithATypedErrorNamingTheField() {
        CallToolResult result = Fixtures.call(client, "media.bad", Map.of());
        assertThat(result.isError()).isTrue();
        assertThat(Fixtures.structured(result)).containsEntry("status", "failed").containsEntry("kind", "execution");
        assertThat((String) Fixtures.structured(result).get("message"))
                .doesNotContain("InvalidContentException").contains("/data").contains("not base64");
        assertThat(gate.findCalls(CallQuery.latest(1)).get(0).status()).isEqualTo(CallStatus.FAILED);
        assertThat(gate.findCalls(CallQuery.latest(1)).get(0).error()).as("the audit keeps the type for operators")
                .startsWith("InvalidContentException: /data");
    }

    @Test
    void contentArrivesIntactOverStdioToo() {
        ServerParameters parameters = ServerParameters.builder(Path.of(System.getProperty("java.home"), "bin", "java").toString())
                .args("-cp", System.getProperty("java.class.path"), MediaStdioServer.class.getName()).build();
        McpSyncClient stdio = McpClient.sync(new StdioClientTransport(parameters, McpJsonDefaults.getMapper()))
                .requestTimeout(Duration.ofSeconds(30)).initializationTimeout(Duration.ofSeconds(30)).build();
        try {
            stdio.initialize();
            CallToolResult result = Fixtures.call(stdio, "media.mixed", Map.of());
            assertThat(result.content()).extracting(McpSchema.Content::type).containsExactly("text", "image", "resource");
            assertThat(((McpSchema.ImageContent) result.content().get(1)).data()).isEqualTo(PNG64);
            assertThat(result.structuredContent()).isEqualTo(Map.of("test", "data", "value", 123));
            assertThat(only(Fixtures.call(stdio, "media.link", Map.of()))).isInstanceOf(McpSchema.ResourceLink.class);
            assertThat(only(Fixtures.call(stdio, "media.audio", Map.of()))).isInstanceOf(McpSchema.AudioContent.class);
        } finally {
            stdio.closeGracefully();
        }
    }
}
