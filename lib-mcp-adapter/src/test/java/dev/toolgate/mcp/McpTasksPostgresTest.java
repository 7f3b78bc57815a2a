package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Consent;
import dev.toolgate.call.InboxResult;
import dev.toolgate.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * MCP tasks on a real PostgreSQL shared by several instances, each with its own pool: an operator's
 * decision on another instance ends a client's wait here; a task survives the restart of the instance
 * that made it; two operators deciding one task at once on two instances leave one decision, and the
 * task reads as that decision. Needs {@code TOOLGATE_TEST_PG_URL} (required under {@code CI=true}).
 */
class McpTasksPostgresTest {

    private final Fixtures.Tickets tickets = new Fixtures.Tickets();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private String url;

    @BeforeEach
    void database() throws Exception {
        String base = System.getenv("TOOLGATE_TEST_PG_URL");
        if (base == null || base.isBlank()) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                Assertions.fail("TOOLGATE_TEST_PG_URL must be set under CI=true");
            }
            Assumptions.abort("TOOLGATE_TEST_PG_URL is not set");
        }
        String schema = "tg_mcp_tasks";
        try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            s.execute("CREATE SCHEMA " + schema);
        }
        url = base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    /** One instance: its own store and pool on the shared database. */
    private Toolgate instance() {
        JdbcStore store = JdbcStore.builder().url(url).poolSize(4).build();
        closing.add(store);
        Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(store)
                .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO).provider(Fixtures.ticketTools(tickets)).build();
        closing.add(gate);
        return gate;
    }

    private ToolgateMcpServer serve(Toolgate gate) {
        ToolgateMcpServer server = ToolgateMcpServer.http(gate, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)))
                .consent(Consent.OPERATOR).taskResultWait(Duration.ofSeconds(15), 4).start();
        closing.add(server);
        return server;
    }

    private TaskRpc client(ToolgateMcpServer server) throws Exception {
        TaskRpc client = new TaskRpc(server.port(), "carol-token");
        closing.add(client);
        return client;
    }

    private static CallContext operator() {
        return CallContext.of(Fixtures.ALICE);
    }

    private static String callId(String taskId) {
        return taskId.substring("call:".length());
    }

    @Test
    void anApprovalOnAnotherInstanceEndsTheWaitAndTheTaskSurvivesARestart() throws Exception {
        Toolgate first = instance();
        Toolgate second = instance();
        ToolgateMcpServer server = serve(first);
        TaskRpc carol = client(server);
        String taskId = carol.callAsTask("ticket.create", "{\"title\":\"Lamp\"}").at("/result/task/taskId").asString();
        String declined = carol.callAsTask("ticket.create", "{\"title\":\"Desk\"}").at("/result/task/taskId").asString();

        CompletableFuture<JsonNode> result = CompletableFuture.supplyAsync(() -> {
            try {
                return carol.result("tasks/result", "{\"taskId\":\"" + taskId + "\"}");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(500);
        assertThat(result).isNotDone();
        assertThat(second.approve(operator(), callId(taskId), Approval.once())).isInstanceOf(InboxResult.Approved.class);
        second.reject(operator(), callId(declined), "not this one");
        JsonNode answer = result.get(15, TimeUnit.SECONDS);
        assertThat(answer.at("/structuredContent/decision").asString()).isEqualTo("applied");
        assertThat(tickets.byId).hasSize(2).containsValue("Lamp").doesNotContainValue("Desk");

        // the instance that made the tasks restarts: a new session of the same principal finds them
        server.close();
        first.close();
        TaskRpc again = client(serve(instance()));
        assertThat(again.result("tasks/get", "{\"taskId\":\"" + taskId + "\"}").get("status").asString()).isEqualTo("completed");
        assertThat(again.result("tasks/get", "{\"taskId\":\"" + declined + "\"}").get("status").asString()).isEqualTo("failed");
        assertThat(again.result("tasks/list", "{}").get("tasks")).extracting(t -> t.get("taskId").asString())
                .containsExactly(declined, taskId);
        assertThat(again.result("tasks/result", "{\"taskId\":\"" + declined + "\"}").at("/structuredContent/reason").asString())
                .isEqualTo("not this one");
    }

    @Test
    void twoOperatorsDecidingOneTaskOnTwoInstancesLeaveOneDecisionAndTheTaskReadsAsIt() throws Exception {
        Toolgate first = instance();
        Toolgate second = instance();
        TaskRpc carol = client(serve(first));
        for (int round = 0; round < 5; round++) {
            String taskId = carol.callAsTask("ticket.create", "{\"title\":\"Race " + round + "\"}").at("/result/task/taskId")
                    .asString();
            CountDownLatch start = new CountDownLatch(1);
            CompletableFuture<InboxResult> approve = CompletableFuture.supplyAsync(() -> {
                await(start);
                return first.approve(operator(), callId(taskId), Approval.once());
            });
            CompletableFuture<InboxResult> reject = CompletableFuture.supplyAsync(() -> {
                await(start);
                return second.reject(operator(), callId(taskId), "no");
            });
            start.countDown();
            boolean approved = approve.get(15, TimeUnit.SECONDS) instanceof InboxResult.Approved;
            boolean rejected = reject.get(15, TimeUnit.SECONDS) instanceof InboxResult.Rejected;
            assertThat(approved ^ rejected).as("exactly one decision in round %d", round).isTrue();

            JsonNode task = carol.result("tasks/get", "{\"taskId\":\"" + taskId + "\"}");
            CallStatus status = second.findCall(callId(taskId)).orElseThrow().status();
            assertThat(task.get("status").asString()).isEqualTo(approved ? "completed" : "failed");
            assertThat(status).isEqualTo(approved ? CallStatus.APPLIED : CallStatus.REJECTED);
            assertThat(tickets.byId.containsValue("Race " + round)).isEqualTo(approved);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
