package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.execution.Program;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Durable executions through the MCP SDK's own client: a tool per program, and the approve tool. */
class McpRunToolsTest {

    /** Lists the tickets, opens one (needs consent), then deletes another (destructive: consent again). */
    private static final Program TRIAGE = run -> {
        JsonNode before = run.call("ticket.list", Map.of());
        JsonNode opened = run.call("ticket.create", Map.of("title", run.input().path("title").asString("triage")));
        return Map.of("before", before.size(), "opened", opened.get("id").asString());
    };

    private final Fixtures.Tickets tickets = new Fixtures.Tickets();
    private final List<McpSyncClient> clients = new ArrayList<>();
    private Toolgate gate;
    private ToolgateMcpServer server;

    @BeforeEach
    void start() {
        gate = Toolgate.builder().discoverTools(false).discoverComponents(false).budget(ToolBudget.unlimited())
                .sweepInterval(Duration.ZERO).provider(Fixtures.ticketTools(tickets)).provider(Fixtures.adminTools())
                .program("ticket.triage", TRIAGE).build();
        server = ToolgateMcpServer.http(gate, token -> Optional.ofNullable(Fixtures.TOKENS.get(token))).start();
    }

    @AfterEach
    void stop() {
        clients.forEach(McpSyncClient::closeGracefully);
        server.close();
        gate.close();
    }

    private McpSyncClient client(String token) {
        McpSyncClient client = Fixtures.http(server.endpoint().orElseThrow(), token);
        clients.add(client);
        return client;
    }

    @Test
    void aProgramIsAToolWhoseRunPausesAndTheApproveToolResumesIt() {
        McpSyncClient carol = client("carol-token");
        assertThat(Fixtures.names(carol.listTools())).contains("run.ticket.triage", "toolgate.approve");

        McpSchema.CallToolResult paused = Fixtures.call(carol, "run.ticket.triage", Map.of("title", "Coffee machine leaking"));
        assertThat(paused.isError()).isFalse();
        Map<String, Object> outcome = Fixtures.structured(paused);
        assertThat(outcome).containsEntry("status", "paused").containsEntry("approveTool", "toolgate.approve");
        @SuppressWarnings("unchecked")
        Map<String, Object> step = ((List<Map<String, Object>>) outcome.get("pending")).get(0);
        assertThat(step).containsEntry("seq", 2).containsEntry("tool", "ticket.create")
                .containsEntry("summary", "Open ticket \"Coffee machine leaking\"");
        assertThat(tickets.byId).doesNotContainValue("Coffee machine leaking");

        McpSchema.CallToolResult done = Fixtures.call(carol, "toolgate.approve",
                Map.of("executionId", outcome.get("executionId"), "seq", 2));
        assertThat(done.isError()).isFalse();
        assertThat(Fixtures.structured(done)).containsEntry("status", "completed");
        assertThat(tickets.byId).containsValue("Coffee machine leaking");

        McpSchema.CallToolResult again = Fixtures.call(carol, "toolgate.approve",
                Map.of("executionId", outcome.get("executionId"), "seq", 2));
        assertThat(again.isError()).isTrue();
        assertThat(Fixtures.structured(again)).containsEntry("status", "not_paused").containsEntry("current", "completed");
        assertThat(gate.executions().steps((String) outcome.get("executionId"))).hasSize(2);
    }

    @Test
    void theCountOfListedToolsIsWhatToolsListReturnsMcpToolsIncluded() {
        for (String name : List.of("alice", "bob", "carol", "robot")) {
            Principal principal = Fixtures.TOKENS.get(name + "-token");
            List<String> listed = Fixtures.names(client(name + "-token").listTools());
            assertThat(server.listedFor(principal).total()).as(name + ": " + listed).isEqualTo(listed.size());
            assertThat(server.listedFor(principal).gateTools()).as(name).isEqualTo(gate.listTools(principal).size());
        }
        assertThat(server.listedFor(Fixtures.CAROL).mcpTools()).as("apply, run.ticket.triage and the decision tools")
                .isGreaterThanOrEqualTo(3);
    }

    @Test
    void badApproveArgumentsAndUnknownRunsAreErrorsTheModelCanRead() {
        McpSyncClient carol = client("carol-token");
        McpSchema.CallToolResult invalid = Fixtures.call(carol, "toolgate.approve", Map.of("seq", 0, "extra", true));
        assertThat(invalid.isError()).isTrue();
        assertThat(Fixtures.text(invalid)).contains("/executionId").contains("/seq").contains("/extra");

        McpSchema.CallToolResult unknown = Fixtures.call(carol, "toolgate.approve", Map.of("executionId", "nope", "seq", 1));
        assertThat(unknown.isError()).isTrue();
        assertThat(Fixtures.structured(unknown)).containsEntry("code", "unknown_execution");
    }

    @Test
    void aRunStepsAreGovernedForTheCallerAndHiddenFromWhomSeesNoTool() {
        McpSyncClient bob = client("bob-token");
        McpSchema.CallToolResult refused = Fixtures.call(bob, "run.ticket.triage", Map.of());
        assertThat(refused.isError()).isTrue();
        assertThat(Fixtures.structured(refused)).containsEntry("status", "failed");
        assertThat((String) Fixtures.structured(refused).get("error")).startsWith("step 2 was refused: Forbidden: ticket.create");

        assertThat(Fixtures.names(bob.listTools())).as("no step of bob's could need consent").contains("run.ticket.triage")
                .doesNotContain("toolgate.approve");
        McpSyncClient robot = client("robot-token");
        assertThat(Fixtures.names(robot.listTools())).isEmpty();
        Principal carol = Fixtures.CAROL;
        assertThat(gate.listTools(carol)).hasSize(4);
    }

    @Test
    void aRejectedStepEndsTheRunAndARollbackUndoesWhatARunApplied() {
        McpSyncClient carol = client("carol-token");
        assertThat(Fixtures.names(carol.listTools())).contains("toolgate.reject", "toolgate.rollback");

        Map<String, Object> first = Fixtures.structured(Fixtures.call(carol, "run.ticket.triage", Map.of("title", "Projector flickers")));
        assertThat(first).containsEntry("status", "paused");
        assertThat(tickets.byId).as("before reject").doesNotContainValue("Projector flickers");
        McpSchema.CallToolResult rejected = Fixtures.call(carol, "toolgate.reject",
                Map.of("executionId", first.get("executionId"), "seq", 2, "reason", "not a ticket"));
        assertThat(rejected.isError()).isFalse();
        assertThat(Fixtures.structured(rejected)).containsEntry("rejected", true).containsEntry("status", "rejected");
        assertThat(tickets.byId).doesNotContainValue("Projector flickers");
        McpSchema.CallToolResult late = Fixtures.call(carol, "toolgate.reject",
                Map.of("executionId", first.get("executionId"), "seq", 2));
        assertThat(late.isError()).isTrue();
        assertThat(Fixtures.structured(late)).containsEntry("rejected", false);

        Map<String, Object> second = Fixtures.structured(Fixtures.call(carol, "run.ticket.triage", Map.of("title", "Window stuck")));
        Fixtures.call(carol, "toolgate.approve", Map.of("executionId", second.get("executionId"), "seq", 2));
        assertThat(tickets.byId).containsValue("Window stuck");
        McpSchema.CallToolResult rolledBack = Fixtures.call(carol, "toolgate.rollback", Map.of("executionId", second.get("executionId")));
        assertThat(rolledBack.isError()).isFalse();
        assertThat(Fixtures.structured(rolledBack)).containsEntry("status", "rolled_back").containsEntry("reverted", 1);
        assertThat(tickets.byId).doesNotContainValue("Window stuck");
        McpSchema.CallToolResult again = Fixtures.call(carol, "toolgate.rollback", Map.of("executionId", second.get("executionId")));
        assertThat(Fixtures.structured(again)).containsEntry("reverted", 0);

        McpSchema.CallToolResult invalid = Fixtures.call(carol, "toolgate.rollback", Map.of("seq", 1));
        assertThat(invalid.isError()).isTrue();
        assertThat(Fixtures.text(invalid)).contains("/executionId").contains("/seq");
        McpSchema.CallToolResult tooLong = Fixtures.call(carol, "toolgate.reject",
                Map.of("executionId", second.get("executionId"), "seq", 1.5, "reason", "x".repeat(501)));
        assertThat(Fixtures.text(tooLong)).contains("/seq").contains("/reason");
    }
}
