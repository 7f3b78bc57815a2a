package dev.toolgate.mcp;

import static dev.toolgate.mcp.Fixtures.call;
import static dev.toolgate.mcp.Fixtures.names;
import static dev.toolgate.mcp.Fixtures.structured;
import static dev.toolgate.mcp.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.execution.Program;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Consent;
import dev.toolgate.call.InboxResult;
import dev.toolgate.json.Json;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Who consents over MCP: the client's user with the token (the default, destructive changes only
 * through elicitation unless the host allowed otherwise), or an operator alone (the client never holds
 * a token and is offered no decision tool). Statuses say who must act.
 */
class McpConsentTest {

    /** Opens a ticket (needs consent), then deletes T-1 (destructive). */
    private static final Program TRIAGE = run -> {
        JsonNode opened = run.call("ticket.create", Map.of("title", "triage"));
        run.call("ticket.delete", Map.of("id", "T-1"));
        return Map.of("opened", opened.get("id").asString());
    };

    /** The input of {@code ticket.open}. */
    record Opening(String title) {
    }

    private final Fixtures.Tickets tickets = new Fixtures.Tickets();
    private final List<McpSyncClient> clients = new ArrayList<>();
    private Toolgate gate;
    private ToolgateMcpServer server;

    private void serve(UnaryOperator<McpHttpBuilder> configure) {
        gate = Toolgate.builder().discoverTools(false).discoverComponents(false).budget(ToolBudget.unlimited())
                .sweepInterval(Duration.ZERO).provider(Fixtures.ticketTools(tickets)).provider(Fixtures.adminTools())
                .provider(frontTool()).program("ticket.triage", TRIAGE).program("ticket.batch", TRIAGE)
                .program("ticket.open", Program.withInput(Opening.class, (run, in) -> run.call("ticket.create",
                        Map.of("title", in.title())))).build();
        server = configure.apply(ToolgateMcpServer.http(gate, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)))).start();
    }

    /** {@code ticket.batch}: a tool that starts the program of its name, as codemode.run does. */
    private ToolProvider frontTool() {
        return ToolProvider.of("ticket", Tool.builder("batch", dev.toolgate.tool.NoInput.class)
                .description("Run the triage as a batch.").effect(Effect.MUTATE).requires("ticket.write").standingApproval()
                .dryRun((in, ctx) -> Preview.of("Start a triage batch"))
                .execute((in, ctx) -> gate.executions().start(CallContext.of(ctx.principal()).withTransport("mcp"),
                        "ticket.batch", Json.object()).toJson())
                .build());
    }

    @AfterEach
    void stop() {
        clients.forEach(McpSyncClient::closeGracefully);
        if (server != null) {
            server.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    private McpSyncClient client(String token) {
        McpSyncClient client = Fixtures.http(server.endpoint().orElseThrow(), token);
        clients.add(client);
        return client;
    }

    private static CallContext operator() {
        return CallContext.of(Fixtures.ALICE);
    }

    @Test
    void byDefaultTheClientsUserConsentsWithTheTokenAndTheStatusSaysSo() {
        serve(b -> b);
        McpSyncClient carol = client("carol-token");
        assertThat(names(carol.listTools())).contains("toolgate.apply", "toolgate.approve", "toolgate.reject", "toolgate.rollback");
        Map<String, Object> proposal = structured(call(carol, "ticket.create", Map.of("title", "Lamp")));
        assertThat(proposal).containsEntry("status", "awaiting_user").containsKey("token").containsEntry("applyTool", "toolgate.apply");
        assertThat((String) proposal.get("next")).contains("only after they agree");
        assertThat(carol.getServerInstructions()).contains("awaiting_user");
    }

    @Test
    void aClientThatCannotElicitIsRefusedADestructiveChangeUnlessTheHostAllowedIt() {
        serve(b -> b);
        McpSyncClient carol = client("carol-token");
        // proposed to a client that cannot confirm it: an operator decides, and the client gets no token
        CallToolResult proposed = call(carol, "ticket.delete", Map.of("id", "T-1"));
        assertThat(structured(proposed)).containsEntry("status", "awaiting_operator").doesNotContainKeys("token", "applyTool");
        assertThat(text(proposed)).doesNotContain("propose:");
        assertThat((String) structured(proposed).get("next")).contains("cannot ask the user to confirm");

        // a token from a client that can confirm, applied from one that cannot, is refused
        McpSyncClient confirming = Fixtures.http(server.endpoint().orElseThrow(), "carol-token", spec -> spec
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                .elicitation(request -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.DECLINE, null)));
        clients.add(confirming);
        Map<String, Object> confirmable = structured(call(confirming, "ticket.delete", Map.of("id", "T-1")));
        assertThat(confirmable).containsEntry("status", "awaiting_user");
        String token = (String) confirmable.get("token");
        CallToolResult refused = call(carol, "toolgate.apply", Map.of("token", token));
        assertThat(refused.isError()).isTrue();
        assertThat(structured(refused)).containsEntry("status", "not_applied").containsEntry("code", "confirmation_unavailable");
        assertThat((String) structured(refused).get("message")).contains("operator can approve it");
        assertThat(tickets.byId).containsKey("T-1");
        // it stays pending: an operator decides it in the inbox
        String callId = (String) structured(refused).get("callId");
        assertThat(gate.approve(operator(), callId, Approval.once())).isInstanceOf(InboxResult.Approved.class);
        assertThat(tickets.byId).doesNotContainKey("T-1");

        // a run's destructive step is refused the same way through toolgate.approve
        tickets.byId.put("T-1", "back again");
        Map<String, Object> paused = structured(call(carol, "run.ticket.triage", Map.of()));
        String id = (String) paused.get("executionId");
        assertThat(paused).containsEntry("status", "paused").containsEntry("awaiting", "user").containsKey("approveTool");
        assertThat(structured(call(carol, "toolgate.approve", Map.of("executionId", id, "seq", 1))))
                .as("paused at a destructive step this client cannot confirm: an operator decides")
                .containsEntry("status", "paused").containsEntry("awaiting", "operator").doesNotContainKey("approveTool");
        CallToolResult step = call(carol, "toolgate.approve", Map.of("executionId", id, "seq", 2));
        assertThat(structured(step)).containsEntry("code", "confirmation_unavailable");
        assertThat(tickets.byId).containsKey("T-1");
    }

    @Test
    void aHostMayLetAClientWithoutElicitationApplyADestructiveChange() {
        serve(b -> b.allowDestructiveWithoutElicitation(true));
        McpSyncClient carol = client("carol-token");
        String token = (String) structured(call(carol, "ticket.delete", Map.of("id", "T-1"))).get("token");
        CallToolResult applied = call(carol, "toolgate.apply", Map.of("token", token));
        assertThat(applied.isError()).isFalse();
        assertThat(structured(applied)).containsEntry("status", "applied");
        assertThat(tickets.byId).doesNotContainKey("T-1");
    }

    @Test
    void inOperatorModeTheClientNeverHoldsATokenAndOnlyAnOperatorDecides() {
        serve(b -> b.consent(Consent.OPERATOR));
        McpSyncClient carol = client("carol-token");
        assertThat(names(carol.listTools())).contains("ticket.create", "run.ticket.triage")
                .doesNotContain("toolgate.apply", "toolgate.approve", "toolgate.reject", "toolgate.rollback");
        assertThat(carol.getServerInstructions()).contains("awaiting_operator").doesNotContain("toolgate.apply");

        CallToolResult proposed = call(carol, "ticket.create", Map.of("title", "Lamp"));
        Map<String, Object> proposal = structured(proposed);
        assertThat(proposal).containsEntry("status", "awaiting_operator").doesNotContainKeys("token", "applyTool");
        assertThat(text(proposed)).doesNotContain("propose:");
        assertThat((String) proposal.get("next")).contains("an operator");
        String callId = (String) proposal.get("callId");

        for (String decision : List.of("toolgate.apply", "toolgate.approve", "toolgate.reject", "toolgate.rollback")) {
            assertThatThrownBy(() -> call(carol, decision, Map.of("token", "propose:" + callId + ".x")))
                    .as(decision).isInstanceOf(McpError.class).hasMessageContaining("Unknown tool");
        }
        assertThat(tickets.byId).hasSize(1);
        assertThat(gate.approve(operator(), callId, Approval.once())).isInstanceOf(InboxResult.Approved.class);
        assertThat(tickets.byId).containsValue("Lamp");

        Map<String, Object> paused = structured(call(carol, "run.ticket.triage", Map.of()));
        assertThat(paused).containsEntry("status", "paused").containsEntry("awaiting", "operator").doesNotContainKey("approveTool");
        assertThat((String) paused.get("next")).contains("An operator approves");
        ExecutionOutcome next = gate.executions().approve(operator(), (String) paused.get("executionId"), 1);
        assertThat(next).isInstanceOf(ExecutionOutcome.Paused.class);
    }

    @Test
    void aToolThatStartsARunAnswersWithTheRunsStatusNotApplied() {
        serve(b -> b.consent(Consent.OPERATOR));
        CallToolResult started = call(client("carol-token"), "ticket.batch", Map.of());
        Map<String, Object> outcome = structured(started);
        assertThat(outcome).containsEntry("status", "paused").containsEntry("awaiting", "operator").containsKey("executionId")
                .containsKey("callId");
        assertThat(started.isError()).isFalse();
        assertThat(gate.findCall((String) outcome.get("callId")).orElseThrow().toolName()).isEqualTo("ticket.batch");
    }

    @Test
    void operatorConsentCannotBeCombinedWithAutoMode() {
        assertThatThrownBy(() -> serve(b -> b.consent(Consent.OPERATOR).permissionMode(PermissionMode.AUTO)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("AUTO");
    }

    @Test
    void theStdioTransportTakesTheSameChoice() {
        gate = Fixtures.gate(tickets, ToolBudget.unlimited());
        assertThat(ToolgateMcpServer.stdio(gate, Fixtures.CAROL).consent(Consent.OPERATOR).instructionsOrDefault())
                .contains("awaiting_operator");
        assertThatThrownBy(() -> ToolgateMcpServer.stdio(gate, Fixtures.CAROL).consent(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aRunToolAdvertisesItsProgramsInputSchemaAndRefusesAnInputThatDoesNotMatch() {
        serve(b -> b);
        McpSyncClient carol = client("carol-token");
        McpSchema.Tool open = carol.listTools().tools().stream().filter(t -> t.name().equals("run.ticket.open")).findFirst()
                .orElseThrow();
        assertThat(open.inputSchema().get("required")).isEqualTo(List.of("title"));
        assertThat(String.valueOf(((Map<?, ?>) open.inputSchema().get("properties")).keySet())).isEqualTo("[title]");
        CallToolResult invalid = call(carol, "run.ticket.open", Map.of());
        assertThat(invalid.isError()).isTrue();
        assertThat(structured(invalid)).containsEntry("status", "invalid");
        assertThat(text(invalid)).contains("/title");
        assertThat(gate.executions().executions(dev.toolgate.audit.ExecutionQuery.latest(10))).isEmpty();
        assertThat(structured(call(carol, "run.ticket.open", Map.of("title", "Lamp")))).containsEntry("status", "paused");
    }
}
