package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.conversation.Decision;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.json.Json;
import io.modelcontextprotocol.spec.McpError;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code tasks/result}: waits until the task ends, then answers with the tool result the task came to.
 * The wait re-reads the store every {@value #STEP_MILLIS} ms (a decision on another instance ends it
 * as one taken here), is bounded by the server's {@code taskResultWait}, and at most
 * {@code maxWaiting} requests wait at once; past either, the answer is
 * {@link ToolgateMcpServer#TASK_NOT_FINISHED} and the task goes on.
 *
 * <p>The result: for a proposal, the decision as the model reads it in a chat (applied with the tool's
 * result, declined with the reason, failed, expired, stale; no token, the result redacted as the audit
 * trail holds it); for a run, its outcome (completed with the program's result and logs, or how it
 * ended). {@code isError} is true unless the task {@code completed}. Both carry the task's id in
 * {@code _meta} ({@code io.modelcontextprotocol/related-task}).
 */
final class TaskResults {

    static final long STEP_MILLIS = 250;

    private final Toolgate toolgate;
    private final McpTasks tasks;
    private final UnaryOperator<String> wireNames;
    private final Duration wait;
    private final Semaphore waiting;
    private final TaskConsent consent;

    TaskResults(Toolgate toolgate, McpTasks tasks, UnaryOperator<String> wireNames, Duration wait, int maxWaiting,
                TaskConsent consent) {
        this.consent = consent;
        this.toolgate = toolgate;
        this.tasks = tasks;
        this.wireNames = wireNames;
        this.wait = wait;
        this.waiting = new Semaphore(maxWaiting);
    }

    /**
     * The result of {@code target} once it ended; waits while it runs or waits for consent, asking the
     * user of session {@code sessionId} once where the client's user consents ({@link TaskConsent}).
     */
    Map<String, Object> await(Principal principal, String sessionId, McpTasks.Target target) {
        McpTask task = tasks.view(target);
        if (!task.terminal()) {
            if (!waiting.tryAcquire()) {
                throw notFinished(task, "too many requests are waiting for task results");
            }
            try {
                long deadline = System.nanoTime() + wait.toNanos();
                boolean asked = false;
                while (!task.terminal()) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        throw notFinished(task, "still " + task.status() + " after " + wait.toSeconds() + " s");
                    }
                    if (consent != null && !asked && task.status().equals(McpTask.INPUT_REQUIRED)) {
                        asked = true;
                        consent.ask(principal, sessionId, target, task, Duration.ofMillis(left));
                    } else {
                        Thread.sleep(Math.min(STEP_MILLIS, left));
                    }
                    target = tasks.find(principal, target.taskId());
                    task = tasks.view(target);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw notFinished(task, "the server is stopping");
            } catch (McpTasks.Missing e) {
                throw McpError.builder(JsonRpc.INVALID_PARAMS).message("Failed to retrieve task: " + e.getMessage()).build();
            } finally {
                waiting.release();
            }
        }
        ObjectNode json = target instanceof McpTasks.Proposal proposal ? proposalResult(proposal, task)
                : runResult(((McpTasks.Run) target).run(), task);
        json.put("taskId", task.taskId());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("content", List.of(Map.of("type", "text", "text", Json.write(json))));
        result.put("structuredContent", CallAnswers.asMap(json));
        result.put("isError", !task.status().equals(McpTask.COMPLETED));
        result.put("_meta", McpTask.related(task.taskId()));
        return result;
    }

    private ObjectNode proposalResult(McpTasks.Proposal target, McpTask task) {
        CallRecord record = target.current();
        Decision decision = toolgate.conversations().decisionOn(record, target.original().principal()).orElse(null);
        if (decision != null) {
            return decision.toJson(wireNames);
        }
        ObjectNode json = Json.object();
        json.put("type", "decision");
        json.put("proposalId", record.id());
        json.put("tool", wireNames.apply(record.toolName()));
        // pending past its expiry (the sweeper has not closed it yet) reads as what it is: expired
        json.put("decision", record.status() == dev.toolgate.audit.CallStatus.PROPOSED ? "expired"
                : record.status().name().toLowerCase(Locale.ROOT));
        json.put("message", task.statusMessage());
        return json;
    }

    private static ObjectNode runResult(ExecutionRecord run, McpTask task) {
        if (task.status().equals(McpTask.COMPLETED) && run.resultJson() != null) {
            return new ExecutionOutcome.Completed(run.id(), Json.parse(run.resultJson()), run.logs()).toJson();
        }
        ObjectNode json = Json.object();
        json.put("status", run.status() == ExecutionStatus.REJECTED && task.status().equals(McpTask.CANCELLED)
                ? McpTask.CANCELLED : run.status().name().toLowerCase(Locale.ROOT));
        json.put("executionId", run.id());
        json.put("message", task.statusMessage());
        ArrayNode logs = json.putArray("logs");
        run.logs().forEach(logs::add);
        return json;
    }

    private static McpError notFinished(McpTask task, String why) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("taskId", task.taskId());
        data.put("status", task.status());
        return McpError.builder(ToolgateMcpServer.TASK_NOT_FINISHED)
                .message("Task not finished: " + why + "; poll tasks/get and ask for the result again")
                .data(data).build();
    }
}
