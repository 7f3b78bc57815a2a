package dev.toolgate.mcp;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One task as a client sees it (MCP 2025-11-25 {@code Task}): its id, status, a message saying what it
 * waits for or how it ended, its times, the server's ttl and poll interval, and, while it waits for
 * consent, the pending actions (summaries, no token). Derived from the store on every read; see
 * {@link McpTasks}.
 *
 * @param taskId        {@code call:<proposal id>} or {@code run:<execution id>}
 * @param status        {@code working}, {@code input_required}, {@code completed}, {@code failed} or {@code cancelled}
 * @param statusMessage what the task waits for, or how it ended (redacted as the audit trail holds it)
 * @param createdAt     when the proposal or run was made (store time)
 * @param lastUpdatedAt when its status last changed (store time)
 * @param ttlMillis     how long after {@code createdAt} the server keeps answering for it
 * @param pollMillis    the suggested interval between {@code tasks/get}
 * @param pending       while {@code input_required}: the actions awaiting consent, else empty
 */
record McpTask(String taskId, String status, String statusMessage, Instant createdAt, Instant lastUpdatedAt,
               long ttlMillis, long pollMillis, List<Map<String, Object>> pending) {

    static final String WORKING = "working";
    static final String INPUT_REQUIRED = "input_required";
    static final String COMPLETED = "completed";
    static final String FAILED = "failed";
    static final String CANCELLED = "cancelled";

    private static final Set<String> TERMINAL = Set.of(COMPLETED, FAILED, CANCELLED);

    /** The {@code _meta} key of the pending actions in a task's JSON. */
    static final String PENDING_META = "dev.toolgate/pending";

    /** The {@code _meta} key that ties a message to its task (MCP 2025-11-25). */
    static final String RELATED_TASK = "io.modelcontextprotocol/related-task";

    McpTask {
        pending = List.copyOf(pending);
    }

    /** True for {@code completed}, {@code failed} and {@code cancelled}: it changes no more. */
    boolean terminal() {
        return TERMINAL.contains(status);
    }

    /** The task as JSON: the spec's fields, plus the pending actions under {@code _meta} while it waits. */
    Map<String, Object> toMap() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("taskId", taskId);
        json.put("status", status);
        if (statusMessage != null) {
            json.put("statusMessage", statusMessage);
        }
        json.put("createdAt", createdAt.toString());
        json.put("lastUpdatedAt", lastUpdatedAt.toString());
        json.put("ttl", ttlMillis);
        if (!terminal()) {
            json.put("pollInterval", pollMillis);
        }
        if (!pending.isEmpty()) {
            json.put("_meta", Map.of(PENDING_META, pending));
        }
        return json;
    }

    /** {@code _meta} tying a message to the task {@code taskId}. */
    static Map<String, Object> related(String taskId) {
        return Map.of(RELATED_TASK, Map.of("taskId", taskId));
    }
}
