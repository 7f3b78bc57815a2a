package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.execution.Program;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Consent;
import dev.toolgate.call.InboxResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * MCP tasks over Streamable HTTP, driven by a raw JSON-RPC client: a mutating call made as a task waits
 * for consent ({@code input_required}, the pending action without a token), an operator's decision ends
 * it (approved: {@code completed} with the tool's result; declined: {@code failed} with the reason), the
 * client's {@code tasks/cancel} withdraws it, a run is a task through its pauses, and a task is its
 * principal's alone.
 */
class McpTasksHttpTest {

    /** Opens a ticket, then deletes T-1: two steps that each wait for consent. */
    private static final Program TRIAGE = run -> {
        JsonNode opened = run.call("ticket.create", Map.of("title", "triage"));
        run.call("ticket.delete", Map.of("id", "T-1"));
        return Map.of("opened", opened.get("id").asString());
    };

    private final Fixtures.Tickets tickets = new Fixtures.Tickets();
    private final List<TaskRpc> clients = new ArrayList<>();
    private Toolgate gate;
    private ToolgateMcpServer server;

    private void serve(UnaryOperator<McpHttpBuilder> configure) {
        serve(Duration.ofMinutes(10), configure);
    }

    private void serve(Duration proposalTtl, UnaryOperator<McpHttpBuilder> configure) {
        gate = Toolgate.builder().discoverTools(false).proposalTtl(proposalTtl).discoverComponents(false).budget(ToolBudget.unlimited())
                .sweepInterval(Duration.ZERO).provider(Fixtures.ticketTools(tickets)).provider(Fixtures.adminTools())
                .program("ticket.triage", TRIAGE).build();
        server = configure.apply(ToolgateMcpServer.http(gate, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)))
                .taskResultWait(Duration.ofSeconds(10), 4)).start();
    }

    @AfterEach
    void stop() throws Exception {
        for (TaskRpc client : clients) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    private TaskRpc client(String token) throws Exception {
        TaskRpc client = new TaskRpc(server.port(), token);
        clients.add(client);
        return client;
    }

    private static CallContext operator() {
        return CallContext.of(Fixtures.ALICE);
    }

    private static String callId(String taskId) {
        return taskId.substring(taskId.indexOf(':') + 1);
    }

    @Test
    void theServerDeclaresTasksAndMarksTheToolsThatMayWait() throws Exception {
        serve(b -> b);
        TaskRpc carol = client("carol-token");
        assertThat(carol.initialized().at("/result/capabilities/tasks").toString())
                .isEqualTo("{\"list\":{},\"cancel\":{},\"requests\":{\"tools\":{\"call\":{}}}}");
        Map<String, String> support = new java.util.TreeMap<>();
        for (JsonNode tool : carol.result("tools/list", "{}").get("tools")) {
            support.put(tool.get("name").asString(), tool.at("/execution/taskSupport").asString("none"));
        }
        assertThat(support).containsEntry("ticket.create", "optional").containsEntry("ticket.delete", "optional")
                .containsEntry("run.ticket.triage", "optional").containsEntry("ticket.get", "none")
                .containsEntry("ticket.list", "none").containsEntry("toolgate.apply", "none")
                .containsEntry("toolgate.approve", "none");
        // a server that serves no tasks says nothing of them
        server.close();
        gate.close();
        serve(b -> b.tasks(false));
        TaskRpc plain = client("carol-token");
        assertThat(plain.initialized().at("/result/capabilities").has("tasks")).isFalse();
        assertThat(plain.result("tools/list", "{}").toString()).doesNotContain("taskSupport");
    }

    @Test
    void anOperatorsApprovalEndsTheWaitWithTheToolsResult() throws Exception {
        serve(b -> b.consent(Consent.OPERATOR));
        TaskRpc carol = client("carol-token");
        JsonNode created = carol.callAsTask("ticket.create", "{\"title\":\"Lamp\"}").get("result");
        JsonNode task = created.get("task");
        String taskId = task.get("taskId").asString();
        assertThat(taskId).startsWith("call:");
        assertThat(task.get("status").asString()).isEqualTo("input_required");
        assertThat(task.get("statusMessage").asString()).contains("Open ticket \"Lamp\"").contains("an operator decides");
        assertThat(task.get("ttl").asLong()).isEqualTo(Duration.ofDays(1).toMillis());
        assertThat(task.at("/_meta/dev.toolgate~1pending/0/summary").asString()).isEqualTo("Open ticket \"Lamp\"");
        assertThat(created.toString()).doesNotContain("propose:").doesNotContain("token");
        assertThat(created.at("/_meta/io.modelcontextprotocol~1model-immediate-response").asString())
                .contains("waiting for consent").contains("Do not call it again");
        assertThat(tickets.byId).hasSize(1);

        // the client waits on tasks/result; the operator approves in the inbox meanwhile
        CompletableFuture<JsonNode> result = CompletableFuture.supplyAsync(() -> {
            try {
                return carol.result("tasks/result", "{\"taskId\":\"" + taskId + "\"}");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(600);
        assertThat(result).isNotDone();
        assertThat(gate.approve(operator(), callId(taskId), Approval.once())).isInstanceOf(InboxResult.Approved.class);

        JsonNode answer = result.get(10, TimeUnit.SECONDS);
        assertThat(answer.get("isError").asBoolean()).isFalse();
        assertThat(answer.at("/_meta/io.modelcontextprotocol~1related-task/taskId").asString()).isEqualTo(taskId);
        assertThat(answer.at("/structuredContent/decision").asString()).isEqualTo("applied");
        assertThat(answer.at("/structuredContent/decidedBy").asString()).isEqualTo("operator");
        assertThat(answer.at("/structuredContent/result/title").asString()).isEqualTo("Lamp");
        assertThat(answer.at("/content/0/text").asString()).contains("\"decision\":\"applied\"");
        assertThat(tickets.byId).hasSize(2).containsValue("Lamp");

        JsonNode done = carol.result("tasks/get", "{\"taskId\":\"" + taskId + "\"}");
        assertThat(done.get("status").asString()).isEqualTo("completed");
        assertThat(done.has("pollInterval")).isFalse();
        // asking again answers the same, and runs nothing again
        assertThat(carol.result("tasks/result", "{\"taskId\":\"" + taskId + "\"}").at("/structuredContent/decision").asString())
                .isEqualTo("applied");
        assertThat(tickets.byId).hasSize(2);
    }

    @Test
    void anOperatorsDeclineFailsTheTaskWithTheReasonAndNothingRuns() throws Exception {
        serve(b -> b.consent(Consent.OPERATOR));
        TaskRpc carol = client("carol-token");
        String taskId = carol.callAsTask("ticket.delete", "{\"id\":\"T-1\"}").at("/result/task/taskId").asString();
        gate.reject(operator(), callId(taskId), "T-1 is still needed");

        JsonNode task = carol.result("tasks/get", "{\"taskId\":\"" + taskId + "\"}");
        assertThat(task.get("status").asString()).isEqualTo("failed");
        assertThat(task.get("statusMessage").asString()).contains("Declined by an operator: T-1 is still needed");
        JsonNode answer = carol.result("tasks/result", "{\"taskId\":\"" + taskId + "\"}");
        assertThat(answer.get("isError").asBoolean()).isTrue();
        assertThat(answer.at("/structuredContent/decision").asString()).isEqualTo("declined");
        assertThat(answer.at("/structuredContent/reason").asString()).isEqualTo("T-1 is still needed");
        assertThat(tickets.byId).containsKey("T-1");
        // a terminal task cannot be cancelled
        JsonNode cancel = carol.request("tasks/cancel", "{\"taskId\":\"" + taskId + "\"}");
        assertThat(cancel.at("/error/code").asInt()).isEqualTo(-32602);
        assertThat(cancel.at("/error/message").asString()).contains("already in terminal status 'failed'");
        // the retention's purge takes the task with its proposal
        gate.purge(java.time.Instant.now().plusSeconds(1));
        assertThat(carol.request("tasks/get", "{\"taskId\":\"" + taskId + "\"}").at("/error/message").asString())
                .isEqualTo("Failed to retrieve task: Task not found");
        assertThat(carol.result("tasks/list", "{}").get("tasks")).isEmpty();
    }

    @Test
    void theClientCancelsAWaitingTaskWhichWithdrawsTheProposal() throws Exception {
        serve(b -> b);
        TaskRpc carol = client("carol-token");
        String taskId = carol.callAsTask("ticket.create", "{\"title\":\"Lamp\"}").at("/result/task/taskId").asString();
        JsonNode cancelled = carol.result("tasks/cancel", "{\"taskId\":\"" + taskId + "\"}");
        assertThat(cancelled.get("status").asString()).isEqualTo("cancelled");
        assertThat(cancelled.get("statusMessage").asString()).contains("Withdrawn").contains("nothing ran");

        CallRecord record = gate.findCall(callId(taskId)).orElseThrow();
        assertThat(record.status()).isEqualTo(CallStatus.REJECTED);
        assertThat(record.decidedBy().key()).isEqualTo("user:carol");
        assertThat(record.decisionReason()).isEqualTo(TaskDispatch.CANCEL_REASON);
        // an operator cannot revive it; the result says it was withdrawn; nothing ran
        assertThat(gate.approve(operator(), record.id(), Approval.once())).isInstanceOf(InboxResult.NotPending.class);
        assertThat(carol.result("tasks/result", "{\"taskId\":\"" + taskId + "\"}").get("isError").asBoolean()).isTrue();
        assertThat(carol.result("tasks/get", "{\"taskId\":\"" + taskId + "\"}").get("status").asString()).isEqualTo("cancelled");
        assertThat(tickets.byId).hasSize(1);
    }

    @Test
    void aRunIsOneTaskThroughItsPausesAndCompletesWithTheProgramsResult() throws Exception {
        serve(b -> b.consent(Consent.OPERATOR));
        TaskRpc carol = client("carol-token");
        JsonNode task = carol.callAsTask("run.ticket.triage", "{}").at("/result/task");
        String taskId = task.get("taskId").asString();
        assertThat(taskId).startsWith("run:");
        assertThat(task.get("status").asString()).isEqualTo("input_required");
        assertThat(task.get("statusMessage").asString()).contains("Paused at step 1").contains("Open ticket \"triage\"");
        assertThat(task.at("/_meta/dev.toolgate~1pending/0/seq").asInt()).isEqualTo(1);

        String step1 = task.at("/_meta/dev.toolgate~1pending/0/callId").asString();
        gate.approve(operator(), step1, Approval.once());
        JsonNode second = carol.result("tasks/get", "{\"taskId\":\"" + taskId + "\"}");
        assertThat(second.get("status").asString()).isEqualTo("input_required");
        assertThat(second.get("statusMessage").asString()).contains("Paused at step 2").contains("Delete T-1");
        gate.approve(operator(), second.at("/_meta/dev.toolgate~1pending/0/callId").asString(), Approval.once());

        JsonNode answer = carol.result("tasks/result", "{\"taskId\":\"" + taskId + "\"}");
        assertThat(answer.get("isError").asBoolean()).isFalse();
        assertThat(answer.at("/structuredContent/status").asString()).isEqualTo("completed");
        assertThat(answer.at("/structuredContent/result/opened").asString()).isEqualTo("T-2");
        assertThat(tickets.byId).containsOnlyKeys("T-2");
    }

    @Test
    void cancellingAPausedRunRejectsItsStepAndSaysWhatStaysApplied() throws Exception {
        serve(b -> b.consent(Consent.OPERATOR));
        TaskRpc carol = client("carol-token");
        JsonNode task = carol.callAsTask("run.ticket.triage", "{}").at("/result/task");
        String taskId = task.get("taskId").asString();
        gate.approve(operator(), task.at("/_meta/dev.toolgate~1pending/0/callId").asString(), Approval.once());

        JsonNode cancelled = carol.result("tasks/cancel", "{\"taskId\":\"" + taskId + "\"}");
        assertThat(cancelled.get("status").asString()).isEqualTo("cancelled");
        assertThat(cancelled.get("statusMessage").asString()).contains("stay applied").contains("roll the run back");
        assertThat(tickets.byId).containsKeys("T-1", "T-2"); // step 1 ran and stays; step 2 never ran
    }

    @Test
    void aTaskIsItsPrincipalsAloneAndAHiddenToolReadsAsUnknown() throws Exception {
        serve(b -> b);
        TaskRpc carol = client("carol-token");
        TaskRpc bob = client("bob-token");
        String taskId = carol.callAsTask("ticket.create", "{\"title\":\"Lamp\"}").at("/result/task/taskId").asString();

        JsonNode unknown = bob.request("tasks/get", "{\"taskId\":\"call:no-such-call\"}").get("error");
        for (String method : List.of("tasks/get", "tasks/result", "tasks/cancel")) {
            JsonNode error = bob.request(method, "{\"taskId\":\"" + taskId + "\"}").get("error");
            assertThat(error).as(method).isEqualTo(unknown);
        }
        assertThat(unknown.get("code").asInt()).isEqualTo(-32602);
        assertThat(unknown.get("message").asString()).isEqualTo("Failed to retrieve task: Task not found");
        assertThat(bob.result("tasks/list", "{}").get("tasks")).isEmpty();
        assertThat(carol.result("tasks/list", "{}").get("tasks")).extracting(t -> t.get("taskId").asString())
                .containsExactly(taskId);
        assertThat(gate.findCall(callId(taskId)).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);

        // a tool bob is not offered, called as a task, answers exactly as a tool that does not exist
        JsonNode hidden = bob.callAsTask("ticket.create", "{\"title\":\"Lamp\"}").get("error");
        JsonNode missing = bob.callAsTask("ticket.nonesuch", "{}").get("error");
        assertThat(hidden.get("code")).isEqualTo(missing.get("code"));
        assertThat(hidden.get("message")).isEqualTo(missing.get("message"));
        // a read never waits: not as a task (-32601); bad arguments create no task (-32602 with the feedback)
        assertThat(bob.callAsTask("ticket.list", "{}").at("/error/code").asInt()).isEqualTo(-32601);
        JsonNode invalid = carol.callAsTask("ticket.create", "{\"title\":\"x\"}").get("error");
        assertThat(invalid.get("code").asInt()).isEqualTo(-32602);
        assertThat(invalid.at("/data/status").asString()).isEqualTo("invalid");
        assertThat(invalid.at("/data/issues/0/path").asString()).isEqualTo("/title");
        assertThat(carol.request("tasks/list", "{\"cursor\":\"garbage\"}").at("/error/code").asInt()).isEqualTo(-32602);
        assertThat(carol.result("tasks/list", "{}").get("tasks")).hasSize(1);
    }

    @Test
    void hostileTaskIdsAndParamsReadAsUnknownOrInvalidAndChangeNothing() throws Exception {
        serve(b -> b);
        TaskRpc carol = client("carol-token");
        TaskRpc bob = client("bob-token");
        String taskId = carol.callAsTask("ticket.create", "{\"title\":\"Lamp\"}").at("/result/task/taskId").asString();
        String id = callId(taskId);
        List<String> unknown = List.of("call:" + id + " ", "CALL:" + id, "run:" + id, id, "call:", "run:", "call:%", "call:../" + id,
                "call:" + id + "\\u0000", "call:" + "x".repeat(5000), "call:' OR '1'='1", "run:00000000-0000-0000-0000-000000000000",
                "", " ", "call:" + id.toUpperCase(java.util.Locale.ROOT));
        for (String hostile : unknown) {
            for (String method : List.of("tasks/get", "tasks/result", "tasks/cancel")) {
                JsonNode error = carol.request(method, "{\"taskId\":" + tools.jackson.databind.node.JsonNodeFactory.instance
                        .stringNode(hostile) + "}").get("error");
                assertThat(error).as("%s %s", method, hostile).isNotNull();
                assertThat(error.get("code").asInt()).isEqualTo(-32602);
                assertThat(error.get("message").asString()).as("%s %s", method, hostile)
                        .isEqualTo("Failed to retrieve task: Task not found");
            }
        }
        for (String params : List.of("{}", "{\"taskId\":42}", "{\"taskId\":null}", "{\"taskId\":{\"id\":\"" + taskId + "\"}}",
                "{\"taskId\":[\"" + taskId + "\"]}", "[\"" + taskId + "\"]", "\"" + taskId + "\"")) {
            JsonNode error = carol.request("tasks/get", params).get("error");
            assertThat(error).as(params).isNotNull();
            assertThat(error.get("code").asInt()).as(params).isIn(-32602, -32600);
        }
        for (String params : List.of("{\"name\":\"ticket.create\",\"arguments\":{\"title\":\"Lamp\"},\"task\":\"yes\"}",
                "{\"name\":\"ticket.create\",\"arguments\":[1],\"task\":{}}", "{\"name\":42,\"task\":{}}",
                "{\"arguments\":{},\"task\":{}}")) {
            assertThat(carol.request("tools/call", params).at("/error/code").asInt()).as(params).isEqualTo(-32602);
        }
        // bob guesses with carol's own id in every spelling: nothing to see, nothing cancelled
        assertThat(bob.request("tasks/cancel", "{\"taskId\":\"" + taskId + "\"}").at("/error/message").asString())
                .isEqualTo("Failed to retrieve task: Task not found");
        assertThat(gate.findCall(id).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(carol.result("tasks/list", "{}").get("tasks")).hasSize(1);
        assertThat(tickets.byId).hasSize(1);
    }

    @Test
    void tasksListPagesNewestFirstWithAnOpaqueCursor() throws Exception {
        serve(b -> b);
        TaskRpc carol = client("carol-token");
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 61; i++) {
            String taskId = carol.callAsTask("ticket.create", "{\"title\":\"Lamp " + i + "\"}").at("/result/task/taskId").asString();
            carol.result("tasks/cancel", "{\"taskId\":\"" + taskId + "\"}"); // a session holds few pending proposals
            made.add(0, taskId);
            carol.result("tools/call", "{\"name\":\"ticket.list\",\"arguments\":{}}"); // reads are not tasks
        }
        JsonNode first = carol.result("tasks/list", "{}");
        assertThat(first.get("tasks")).hasSize(50);
        String cursor = first.get("nextCursor").asString();
        JsonNode second = carol.result("tasks/list", "{\"cursor\":\"" + cursor + "\"}");
        assertThat(second.has("nextCursor")).isFalse();
        List<String> listed = new ArrayList<>();
        first.get("tasks").forEach(t -> listed.add(t.get("taskId").asString()));
        second.get("tasks").forEach(t -> listed.add(t.get("taskId").asString()));
        assertThat(listed).isEqualTo(made);
    }

    @Test
    void aProposalThatExpiresEndsItsTaskAsFailedBeforeAndAfterTheSweep() throws Exception {
        serve(Duration.ofMillis(400), b -> b.consent(Consent.OPERATOR));
        TaskRpc carol = client("carol-token");
        String taskId = carol.callAsTask("ticket.create", "{\"title\":\"Lamp\"}").at("/result/task/taskId").asString();
        JsonNode answer = carol.result("tasks/result", "{\"taskId\":\"" + taskId + "\"}"); // waits past the expiry
        assertThat(answer.get("isError").asBoolean()).isTrue();
        assertThat(answer.at("/structuredContent/decision").asString()).isEqualTo("expired");
        JsonNode task = carol.result("tasks/get", "{\"taskId\":\"" + taskId + "\"}");
        assertThat(task.get("status").asString()).isEqualTo("failed");
        assertThat(task.get("statusMessage").asString()).contains("Expired");
        gate.sweep();
        assertThat(carol.result("tasks/get", "{\"taskId\":\"" + taskId + "\"}").get("status").asString()).isEqualTo("failed");
        assertThat(carol.result("tasks/result", "{\"taskId\":\"" + taskId + "\"}").at("/structuredContent/decision").asString())
                .isEqualTo("expired");
        assertThat(tickets.byId).hasSize(1);
    }

    @Test
    void aResultThatWouldWaitTooLongSaysSoAndTheTaskGoesOn() throws Exception {
        serve(b -> b.consent(Consent.OPERATOR).taskResultWait(Duration.ofMillis(300), 1));
        TaskRpc carol = client("carol-token");
        String taskId = carol.callAsTask("ticket.create", "{\"title\":\"Lamp\"}").at("/result/task/taskId").asString();
        JsonNode error = carol.request("tasks/result", "{\"taskId\":\"" + taskId + "\"}").get("error");
        assertThat(error.get("code").asInt()).isEqualTo(ToolgateMcpServer.TASK_NOT_FINISHED);
        assertThat(error.at("/data/status").asString()).isEqualTo("input_required");
        assertThat(carol.result("tasks/get", "{\"taskId\":\"" + taskId + "\"}").get("status").asString())
                .isEqualTo("input_required");
    }
}
