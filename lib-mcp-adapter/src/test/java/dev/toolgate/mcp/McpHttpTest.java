package dev.toolgate.mcp;

import static dev.toolgate.mcp.Fixtures.ALICE;
import static dev.toolgate.mcp.Fixtures.BOB_TOOLS;
import static dev.toolgate.mcp.Fixtures.CAROL;
import static dev.toolgate.mcp.Fixtures.CAROL_TOOLS;
import static dev.toolgate.mcp.Fixtures.call;
import static dev.toolgate.mcp.Fixtures.names;
import static dev.toolgate.mcp.Fixtures.structured;
import static dev.toolgate.mcp.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.json.Json;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The governed tools through the MCP SDK's own client over Streamable HTTP. */
class McpHttpTest {

    /** Serves the gate the way this suite tests; the servlet suite overrides it. */
    ServedMcp serve(Toolgate gate, McpAuthenticator authenticator, PermissionMode mode) {
        return ServedMcp.standalone(ToolgateMcpServer.http(gate, authenticator).permissionMode(mode).start());
    }


    private final Fixtures.Tickets tickets = new Fixtures.Tickets();
    private final Map<String, Principal> tokens = new ConcurrentHashMap<>(Fixtures.TOKENS);
    private final List<McpSyncClient> clients = new ArrayList<>();
    private Toolgate gate;
    private ServedMcp server;

    @BeforeEach
    void start() {
        startWith(ToolBudget.unlimited(), PermissionMode.APPROVE);
    }

    private void startWith(ToolBudget budget, PermissionMode mode) {
        stop();
        gate = Fixtures.gate(tickets, budget);
        server = serve(gate, token -> Optional.ofNullable(tokens.get(token)), mode);
    }

    @AfterEach
    void stop() {
        clients.forEach(McpSyncClient::closeGracefully);
        clients.clear();
        if (server != null) {
            server.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    private McpSyncClient client(String token) {
        McpSyncClient client = Fixtures.http(server.endpoint(), token);
        clients.add(client);
        return client;
    }

    private McpSyncClient client(String token, java.util.function.UnaryOperator<io.modelcontextprotocol.client.McpClient.SyncSpec> spec) {
        McpSyncClient client = Fixtures.http(server.endpoint(), token, spec);
        clients.add(client);
        return client;
    }

    @Test
    void bindsToLoopbackByDefault() {
        assertThat(server.endpoint().toString()).startsWith("http://127.0.0.1:").endsWith("/mcp");
    }

    @Test
    void listsExactlyWhatTheResolverOffersEachPrincipal() {
        assertThat(names(client("carol-token").listTools())).containsExactlyElementsOf(CAROL_TOOLS);
        assertThat(names(client("bob-token").listTools())).containsExactlyElementsOf(BOB_TOOLS);
        assertThat(names(client("alice-token").listTools())).contains("admin.secret", "toolgate.apply").hasSize(6);
        assertThat(names(client("robot-token").listTools())).isEmpty();
        assertThat(gate.listTools(CAROL)).hasSize(4);
    }

    @Test
    void describesToolsWithSchemaTitleAndEffectAnnotations() {
        Map<String, McpSchema.Tool> tools = new java.util.HashMap<>();
        client("alice-token").listTools().tools().forEach(tool -> tools.put(tool.name(), tool));

        McpSchema.Tool list = tools.get("ticket.list");
        assertThat(list.title()).isEqualTo("List tickets");
        assertThat(list.description()).startsWith("List tickets");
        assertThat(list.annotations().readOnlyHint()).isTrue();
        assertThat(list.annotations().openWorldHint()).isFalse();
        assertThat(list.inputSchema()).containsEntry("type", "object").containsKey("properties");
        assertThat(Json.toTree(list.inputSchema())).isEqualTo(gate.registry().find("ticket.list").orElseThrow().descriptor().inputSchema());

        McpSchema.Tool create = tools.get("ticket.create");
        assertThat(create.annotations().readOnlyHint()).isFalse();
        assertThat(create.annotations().destructiveHint()).isFalse();

        McpSchema.Tool delete = tools.get("ticket.delete");
        assertThat(delete.annotations().readOnlyHint()).isFalse();
        assertThat(delete.annotations().destructiveHint()).isTrue();

        assertThat(tools.get("admin.secret").annotations().openWorldHint()).isTrue();
        assertThat(tools.get("toolgate.apply").inputSchema()).containsEntry("required", List.of("token"));
    }

    @Test
    void readToolRunsThroughTheGate() {
        CallToolResult result = call(client("bob-token"), "ticket.list", Map.of());

        assertThat(result.isError()).isFalse();
        assertThat(structured(result)).containsEntry("status", "executed").containsEntry("tool", "ticket.list");
        assertThat(structured(result).get("result")).isEqualTo(Map.of("T-1", "Printer on fire"));
        assertThat(Json.parse(text(result))).isEqualTo(Json.toTree(structured(result)));
    }

    @Test
    void mutatingToolProposesAndApplyAppliesOnce() {
        McpSyncClient carol = client("carol-token");
        CallToolResult proposed = call(carol, "ticket.create", Map.of("title", "Coffee machine down"));

        assertThat(proposed.isError()).isFalse();
        Map<String, Object> proposal = structured(proposed);
        assertThat(proposal).containsEntry("status", "awaiting_user")
                .containsEntry("summary", "Open ticket \"Coffee machine down\"")
                .containsEntry("payload", Map.of("title", "Coffee machine down"))
                .containsEntry("applyTool", "toolgate.apply")
                .containsKeys("token", "diff", "expiresAt", "callId");
        assertThat(Json.parse(text(proposed))).isEqualTo(Json.toTree(proposal));
        assertThat(tickets.byId).hasSize(1);

        String token = (String) proposal.get("token");
        CallToolResult applied = call(carol, "toolgate.apply", Map.of("token", token));
        assertThat(applied.isError()).isFalse();
        assertThat(structured(applied)).containsEntry("status", "applied").containsEntry("appliedBy", "user:carol");
        assertThat(tickets.byId).containsValue("Coffee machine down");

        CallToolResult replayed = call(carol, "toolgate.apply", Map.of("token", token));
        assertThat(replayed.isError()).isTrue();
        assertThat(structured(replayed)).containsEntry("code", "already_used").containsEntry("kind", "gate");
        assertThat(tickets.byId).hasSize(2);
    }

    @Test
    void applyTakesOnlyTheTokenNeverArgumentsOfItsOwn() {
        McpSyncClient carol = client("carol-token");
        String token = (String) structured(call(carol, "ticket.create", Map.of("title", "Coffee machine down"))).get("token");

        CallToolResult smuggled = call(carol, "toolgate.apply", Map.of("token", token, "title", "Something else"));
        assertThat(smuggled.isError()).isTrue();
        assertThat(structured(smuggled)).containsEntry("kind", "validation");
        assertThat(String.valueOf(structured(smuggled).get("issues"))).contains("/title");
        assertThat(tickets.byId).hasSize(1);

        assertThat(structured(call(carol, "toolgate.apply", Map.of("token", token)))).containsEntry("status", "applied");
        assertThat(tickets.byId).containsValue("Coffee machine down").doesNotContainValue("Something else");
    }

    @Test
    void unknownAndHiddenToolsAreTheSameInvalidParamsError() {
        McpSyncClient bob = client("bob-token");
        McpError unknown = catchThrowableOfType(McpError.class, () -> call(bob, "ticket.nope", Map.of()));
        McpError hidden = catchThrowableOfType(McpError.class, () -> call(bob, "ticket.create", Map.of("title", "x")));
        McpError hiddenApply = catchThrowableOfType(McpError.class, () -> call(client("robot-token"), "toolgate.apply", Map.of("token", "x")));
        McpError admin = catchThrowableOfType(McpError.class, () -> call(client("carol-token"), "admin.secret", Map.of()));

        for (McpError error : List.of(unknown, hidden, hiddenApply, admin)) {
            assertThat(error.getJsonRpcError().code()).isEqualTo(-32602);
            assertThat(error.getJsonRpcError().message()).isEqualTo("Unknown tool: invalid_tool_name");
        }
        assertThat(unknown.getJsonRpcError().data()).isEqualTo("Tool not found: ticket.nope");
        assertThat(hidden.getJsonRpcError().data()).isEqualTo("Tool not found: ticket.create");
        assertThat(gate.findCalls(CallQuery.latest(10))).isEmpty();
    }

    @Test
    void badArgumentsAreToolErrorsWithStructuredIssues() {
        McpSyncClient carol = client("carol-token");

        CallToolResult wrongType = call(carol, "ticket.create", Map.of("title", 5));
        assertThat(wrongType.isError()).isTrue();
        assertThat(structured(wrongType)).containsEntry("kind", "validation").containsEntry("toolName", "ticket.create");
        assertThat(issuePaths(wrongType)).containsExactly("/title");

        CallToolResult unknownProperty = call(carol, "ticket.create", Map.of("title", "Valid title", "priority", 1));
        assertThat(unknownProperty.isError()).isTrue();
        assertThat(issuePaths(unknownProperty)).isNotEmpty();

        CallToolResult tooShort = call(carol, "ticket.create", Map.of("title", "ab"));
        assertThat(issuePaths(tooShort)).containsExactly("/title");

        CallToolResult dryRunRejects = call(carol, "ticket.create", Map.of("title", "a forbidden word here"));
        assertThat(dryRunRejects.isError()).isTrue();
        assertThat(structured(dryRunRejects)).containsEntry("status", "invalid");
        assertThat(text(dryRunRejects)).contains("the title must not contain 'forbidden word'");

        CallToolResult noToken = call(carol, "toolgate.apply", Map.of("tokn", "x"));
        assertThat(issuePaths(noToken)).containsExactly("/token", "/tokn");

        CallToolResult garbageToken = call(carol, "toolgate.apply", Map.of("token", "garbage"));
        assertThat(structured(garbageToken)).containsEntry("code", "malformed_token");
        assertThat(tickets.byId).hasSize(1);
    }

    @Test
    void applyAfterLosingTheRuleIsForbiddenNamingIt() {
        McpSyncClient carol = client("carol-token");
        String token = (String) structured(call(carol, "ticket.create", Map.of("title", "Coffee machine down"))).get("token");

        tokens.put("carol-token", CAROL.withAccessRules("ticket.read"));
        assertThat(names(carol.listTools())).containsExactlyElementsOf(BOB_TOOLS);
        CallToolResult refused = call(carol, "toolgate.apply", Map.of("token", token));

        assertThat(refused.isError()).isTrue();
        assertThat(structured(refused)).containsEntry("code", "forbidden")
                .containsEntry("message", "Forbidden: ticket.create (missing permission: ticket.write)")
                .containsEntry("missingRules", List.of("ticket.write"));
        assertThat(tickets.byId).hasSize(1);
    }

    @Test
    void overBudgetIsHttp429ForTheSdkClient() {
        startWith(ToolBudget.perPrincipal(2, Duration.ofMinutes(1)), PermissionMode.APPROVE);
        McpSyncClient bob = client("bob-token");
        call(bob, "ticket.list", Map.of());
        call(bob, "ticket.list", Map.of());

        assertThatThrownBy(() -> call(bob, "ticket.list", Map.of())).hasMessageContaining("429");
        assertThat(names(client("carol-token").listTools())).containsExactlyElementsOf(CAROL_TOOLS);
        assertThat(call(client("carol-token"), "ticket.list", Map.of()).isError()).isFalse();
    }

    @Test
    void auditRecordsMcpCallsWithTransportAndSession() {
        McpSyncClient carol = client("carol-token");
        call(carol, "ticket.list", Map.of());
        String token = (String) structured(call(carol, "ticket.create", Map.of("title", "Coffee machine down"))).get("token");
        call(carol, "toolgate.apply", Map.of("token", token));

        List<CallRecord> records = gate.findCalls(CallQuery.latest(10));
        assertThat(records).hasSize(2);
        assertThat(records).allSatisfy(record -> {
            assertThat(record.transport()).isEqualTo("mcp");
            assertThat(record.sessionId()).isNotBlank();
            assertThat(record.principal().key()).isEqualTo("user:carol");
        });
        assertThat(records).extracting(CallRecord::status).containsExactlyInAnyOrder(CallStatus.EXECUTED, CallStatus.APPLIED);
        assertThat(records.stream().map(CallRecord::sessionId).distinct()).hasSize(1);
    }

    @Test
    void destructiveApplyAsksTheHumanAndAppliesOnAccept() {
        List<McpSchema.ElicitFormRequest> asked = new CopyOnWriteArrayList<>();
        McpSyncClient carol = client("carol-token", spec -> spec
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                .elicitation(request -> {
                    asked.add(request);
                    return new ElicitResult(ElicitResult.Action.ACCEPT, Map.of());
                }));

        String createToken = (String) structured(call(carol, "ticket.create", Map.of("title", "Coffee machine down"))).get("token");
        assertThat(call(carol, "toolgate.apply", Map.of("token", createToken)).isError()).isFalse();
        assertThat(asked).as("MUTATE applies without asking").isEmpty();

        Map<String, Object> proposal = structured(call(carol, "ticket.delete", Map.of("id", "T-1")));
        assertThat(proposal).containsEntry("status", "awaiting_user").containsEntry("effect", "destructive");
        CallToolResult applied = call(carol, "toolgate.apply", Map.of("token", proposal.get("token")));

        assertThat(applied.isError()).isFalse();
        assertThat(structured(applied)).containsEntry("status", "applied");
        assertThat(asked).hasSize(1);
        assertThat(asked.get(0).message()).contains("Delete T-1 \"Printer on fire\"");
        assertThat(tickets.byId).doesNotContainKey("T-1");
    }

    @Test
    void destructiveApplyDeclinedInElicitationDoesNothing() {
        McpSyncClient carol = client("carol-token", spec -> spec
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                .elicitation(request -> new ElicitResult(ElicitResult.Action.DECLINE, null)));
        String token = (String) structured(call(carol, "ticket.delete", Map.of("id", "T-1"))).get("token");

        CallToolResult declined = call(carol, "toolgate.apply", Map.of("token", token));
        assertThat(declined.isError()).isTrue();
        assertThat(structured(declined)).containsEntry("status", "not_applied").containsEntry("code", "declined");
        assertThat(tickets.byId).containsKey("T-1");

        // a client that cannot ask its user is refused a destructive change (the host did not allow it)
        CallToolResult unconfirmed = call(client("carol-token"), "toolgate.apply", Map.of("token", token));
        assertThat(unconfirmed.isError()).isTrue();
        assertThat(structured(unconfirmed)).containsEntry("status", "not_applied").containsEntry("code", "confirmation_unavailable");
        assertThat(tickets.byId).containsKey("T-1");
    }

    @Test
    void toolsRegisteredLaterReachClientsAsListChanged() throws Exception {
        CountDownLatch changed = new CountDownLatch(1);
        List<List<String>> seen = new CopyOnWriteArrayList<>();
        McpSyncClient carol = client("carol-token", spec -> spec.toolsChangeConsumer(tools -> {
            seen.add(tools.stream().map(McpSchema.Tool::name).sorted().toList());
            if (tools.stream().anyMatch(tool -> tool.name().equals("extra.ping"))) {
                changed.countDown();
            }
        }));
        assertThat(names(carol.listTools())).doesNotContain("extra.ping");
        awaitOpenStreams(1);

        gate.registry().register(ToolProvider.of("extra", Tool.builder("ping", NoInput.class)
                .description("Ping.").effect(Effect.READ).requires("ticket.read").execute((in, ctx) -> "pong").build()));

        assertThat(changed.await(10, TimeUnit.SECONDS)).as("list_changed received; saw " + seen).isTrue();
        assertThat(names(carol.listTools())).contains("extra.ping");
        assertThat(structured(call(carol, "extra.ping", Map.of()))).containsEntry("result", "pong");
        assertThat(names(client("robot-token").listTools())).isEmpty();

        CountDownLatch removed = new CountDownLatch(1);
        seen.clear();
        McpSyncClient watcher = client("carol-token", spec -> spec.toolsChangeConsumer(tools -> {
            if (tools.stream().noneMatch(tool -> tool.name().equals("extra.ping"))) {
                removed.countDown();
            }
        }));
        awaitOpenStreams(3);
        gate.registry().unregisterPlugin("extra");
        assertThat(removed.await(10, TimeUnit.SECONDS)).as("list_changed after the plugin was removed").isTrue();
        assertThat(names(watcher.listTools())).containsExactlyElementsOf(CAROL_TOOLS);
        assertThatThrownBy(() -> call(watcher, "extra.ping", Map.of())).isInstanceOf(McpError.class);
    }

    @Test
    void autoModeAppliesMutationsButNeverDestructiveOnes() {
        startWith(ToolBudget.unlimited(), PermissionMode.AUTO);
        McpSyncClient carol = client("carol-token");

        assertThat(structured(call(carol, "ticket.create", Map.of("title", "Coffee machine down"))))
                .containsEntry("status", "applied").containsEntry("automatic", true);
        assertThat(structured(call(carol, "ticket.delete", Map.of("id", "T-1"))))
                .as("a destructive change this client cannot confirm waits for an operator")
                .containsEntry("status", "awaiting_operator").doesNotContainKey("token");
        assertThat(tickets.byId).containsKey("T-1").hasSize(2);
    }

    @Test
    void adminSeesEverything() {
        assertThat(structured(call(client("alice-token"), "admin.secret", Map.of()))).containsEntry("result", "42");
        assertThat(ALICE.holds("admin.read")).isTrue();
    }

    /** Waits until the clients have opened their event streams (they do so right after initialize). */
    private void awaitOpenStreams(int streams) throws InterruptedException {
        for (int i = 0; i < 100 && server.openStreams() < streams; i++) {
            Thread.sleep(50);
        }
        assertThat(server.openStreams()).isGreaterThanOrEqualTo(streams);
    }

    @SuppressWarnings("unchecked")
    private static List<String> issuePaths(CallToolResult result) {
        List<Map<String, Object>> issues = (List<Map<String, Object>>) structured(result).get("issues");
        return issues.stream().map(issue -> (String) issue.get("path")).sorted().toList();
    }
}
