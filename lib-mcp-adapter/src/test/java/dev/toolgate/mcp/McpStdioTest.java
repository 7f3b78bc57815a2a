package dev.toolgate.mcp;

import static dev.toolgate.mcp.Fixtures.call;
import static dev.toolgate.mcp.Fixtures.names;
import static dev.toolgate.mcp.Fixtures.structured;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.toolgate.json.Json;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * The governed tools through the MCP SDK's own client over stdio, with the server launched as a
 * subprocess exactly as an MCP client launches it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class McpStdioTest {

    private final List<String> carolStderr = new CopyOnWriteArrayList<>();
    private final List<ElicitResult.Action> answers = new CopyOnWriteArrayList<>();
    private final List<String> asked = new CopyOnWriteArrayList<>();
    private McpSyncClient carol;
    private McpSyncClient bob;

    static List<String> command(String principal, int budget) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), StdioTestServer.class.getName(), principal, String.valueOf(budget));
    }

    static McpSyncClient launch(String principal, int budget, List<String> stderr, UnaryOperator<McpClient.SyncSpec> customize) {
        List<String> command = command(principal, budget);
        ServerParameters parameters = ServerParameters.builder(command.get(0)).args(command.subList(1, command.size())).build();
        StdioClientTransport transport = new StdioClientTransport(parameters, McpJsonDefaults.getMapper());
        transport.setStdErrorHandler(stderr::add);
        McpSyncClient client = customize.apply(McpClient.sync(transport)
                .requestTimeout(Duration.ofSeconds(30))
                .initializationTimeout(Duration.ofSeconds(30))).build();
        client.initialize();
        return client;
    }

    @BeforeAll
    void launchServers() {
        carol = launch("carol", 100, carolStderr, spec -> spec
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                .elicitation(request -> {
                    asked.add(request.message());
                    return new ElicitResult(answers.isEmpty() ? ElicitResult.Action.DECLINE : answers.remove(0), Map.of());
                }));
        bob = launch("bob", 2, new CopyOnWriteArrayList<>(), spec -> spec);
    }

    @AfterAll
    void stopServers() {
        if (carol != null) {
            carol.closeGracefully();
        }
        if (bob != null) {
            bob.closeGracefully();
        }
    }

    @Test
    void listsPerPrincipal() {
        assertThat(names(carol.listTools())).as("server log: %s", carolStderr).containsExactlyElementsOf(Fixtures.CAROL_TOOLS);
        assertThat(names(bob.listTools())).containsExactlyElementsOf(Fixtures.BOB_TOOLS);
        assertThat(carol.getCurrentInitializationResult().protocolVersion()).isEqualTo("2025-11-25");
    }

    @Test
    void readCallRuns() {
        CallToolResult result = call(carol, "ticket.get", Map.of("id", "T-1"));
        assertThat(result.isError()).isFalse();
        assertThat(structured(result)).containsEntry("status", "executed")
                .containsEntry("result", Map.of("id", "T-1", "title", "Printer on fire"));
    }

    @Test
    void proposeThenApplyOnceThenReplayIsRefused() {
        Map<String, Object> proposal = structured(call(carol, "ticket.create", Map.of("title", "Stdio ticket")));
        assertThat(proposal).containsEntry("status", "awaiting_user").containsKeys("token", "summary", "payload", "diff", "expiresAt");
        assertThat(structured(call(carol, "ticket.list", Map.of("titleContains", "Stdio"))).get("result")).isEqualTo(Map.of());

        CallToolResult applied = call(carol, "toolgate.apply", Map.of("token", proposal.get("token")));
        assertThat(applied.isError()).isFalse();
        assertThat(structured(applied)).containsEntry("status", "applied");
        assertThat((Map<?, ?>) structured(call(carol, "ticket.list", Map.of("titleContains", "Stdio"))).get("result")).hasSize(1);

        CallToolResult replayed = call(carol, "toolgate.apply", Map.of("token", proposal.get("token")));
        assertThat(replayed.isError()).isTrue();
        assertThat(structured(replayed)).containsEntry("code", "already_used");
    }

    @Test
    void unknownAndHiddenToolsAreInvalidParams() {
        for (String name : List.of("ticket.nope", "admin.secret")) {
            McpError error = catchThrowableOfType(McpError.class, () -> call(carol, name, Map.of()));
            assertThat(error.getJsonRpcError().code()).isEqualTo(-32602);
            assertThat(error.getJsonRpcError().message()).isEqualTo("Unknown tool: invalid_tool_name");
        }
    }

    @Test
    void badArgumentsAreToolErrors() {
        CallToolResult result = call(carol, "ticket.create", Map.of("title", 42));
        assertThat(result.isError()).isTrue();
        assertThat(structured(result)).containsEntry("kind", "validation").containsKey("issues");
    }

    @Test
    void destructiveApplyAsksThroughElicitation() {
        String declinedToken = (String) structured(call(carol, "ticket.create", Map.of("title", "To be deleted"))).get("token");
        call(carol, "toolgate.apply", Map.of("token", declinedToken));
        String id = ((Map<?, ?>) structured(call(carol, "ticket.list", Map.of("titleContains", "To be deleted"))).get("result"))
                .keySet().iterator().next().toString();

        String token = (String) structured(call(carol, "ticket.delete", Map.of("id", id))).get("token");
        answers.add(ElicitResult.Action.DECLINE);
        assertThat(structured(call(carol, "toolgate.apply", Map.of("token", token)))).containsEntry("code", "declined");
        answers.add(ElicitResult.Action.ACCEPT);
        assertThat(structured(call(carol, "toolgate.apply", Map.of("token", token)))).containsEntry("status", "applied");
        assertThat(asked).hasSize(2).allSatisfy(message -> assertThat(message).contains("Delete " + id));
    }

    @Test
    void overBudgetIsTheRateLimitedError() {
        call(bob, "ticket.list", Map.of());
        call(bob, "ticket.list", Map.of());
        McpError error = catchThrowableOfType(McpError.class, () -> call(bob, "ticket.list", Map.of()));

        assertThat(error.getJsonRpcError().code()).isEqualTo(ToolgateMcpServer.RATE_LIMITED);
        assertThat(error.getJsonRpcError().message()).startsWith("Rate limited");
        assertThat(error.getJsonRpcError().data()).isInstanceOfSatisfying(Map.class,
                data -> assertThat(data.get("retryAfterSeconds")).isInstanceOf(Number.class));
        assertThat(names(bob.listTools())).containsExactlyElementsOf(Fixtures.BOB_TOOLS);
    }

    @Test
    void malformedLinesGetErrorsStdoutStaysProtocolOnlyAndEofStopsTheServer() throws Exception {
        List<String> command = new ArrayList<>(command("carol", 100));
        command.add(1, "-Dorg.slf4j.simpleLogger.log.dev.toolgate.mcp.ToolgateMcpServer=info"); // the start-up line
        Process process = new ProcessBuilder(command).start();
        List<String> stdout = new ArrayList<>();
        try (OutputStream in = process.getOutputStream();
             BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String[] lines = {
                "{this is not json",
                "[1,2,3]",
                "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
            };
            for (String line : lines) {
                in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            }
            in.flush();
            for (int i = 0; i < 5; i++) {
                stdout.add(out.readLine());
            }
        }
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).as("the server exits when stdin ends").isTrue();
        assertThat(process.exitValue()).isZero();
        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(stderr).contains("this stray line must not reach the protocol stream");
        assertThat(stderr).as("the start-up line counts what tools/list returns, the apply tool included")
                .contains("tools/list offers 5 tool(s) (4 of the gate's, 1 added by the MCP layer: apply, run and decision tools)");

        List<JsonNode> messages = stdout.stream().map(Json::parse).toList();
        assertThat(messages.get(0).path("error").path("code").asInt()).isEqualTo(-32700);
        assertThat(messages.get(1).path("error").path("code").asInt()).isEqualTo(-32600);
        assertThat(messages.get(2).path("error").path("code").asInt()).isEqualTo(-32600);
        assertThat(messages.get(3).path("id").asInt()).isEqualTo(1);
        assertThat(messages.get(3).path("result").path("serverInfo").path("name").asString()).isEqualTo("toolgate");
        assertThat(messages.get(4).path("id").asInt()).isEqualTo(2);
        assertThat(messages.get(4).path("result").path("tools").size()).isEqualTo(5);
    }
}
