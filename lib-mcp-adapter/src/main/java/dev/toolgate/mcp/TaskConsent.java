package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user's consent to what a task waits on, when the client's user consents ({@code Consent.USER})
 * and the client can elicit: while a {@code tasks/result} waits on an {@code input_required} task, the
 * server asks the user ({@code elicitation/create}, tied to the task by {@code _meta}); accepting applies
 * the proposal (or approves the run's step), declining withdraws it (the task is then
 * {@code cancelled}), dismissing leaves it pending for an operator.
 *
 * <p>A proposal is applied with its token, which the client never sees for a task: the instance that
 * made the task holds it in memory until it is used or expires (never stored). So the user is asked by
 * that instance; on another instance, or after a restart, an operator decides. A run's step needs no
 * token: the run's principal may approve it. Each transport asks through its {@link Channel}: the
 * session's GET stream over Streamable HTTP (standalone, {@link HttpTransport}; servlet,
 * {@link ServletTaskChannel}), the one session on stdio ({@link StdioSerialSends}).
 */
final class TaskConsent {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    private static final int MAX_HELD = 10_000;
    /** Why a proposal the user declined in the client was withdrawn (the audit trail's decision reason). */
    static final String DECLINED = "declined by the user (elicitation)";

    /** How a transport asks the client of one session; empty if it cannot (no such session, no elicitation). */
    interface Channel {
        Optional<McpSchema.ElicitResult> elicit(String sessionId, Map<String, Object> request, Duration timeout);
    }

    /** Sends an {@code elicitation/create} request through the SDK's session and waits for the answer. */
    static Optional<McpSchema.ElicitResult> elicit(io.modelcontextprotocol.spec.McpSession session, Map<String, Object> request,
                                                   Duration timeout) {
        return Optional.ofNullable(session.sendRequest(McpSchema.METHOD_ELICITATION_CREATE, request,
                new io.modelcontextprotocol.json.TypeRef<McpSchema.ElicitResult>() {
                }).block(timeout));
    }

    private record Held(String token, Instant expiresAt) {
    }

    private final Toolgate toolgate;
    private final ToolBridge bridge;
    private final Channel channel;
    private final Map<String, Held> tokens = new ConcurrentHashMap<>();

    TaskConsent(Toolgate toolgate, ToolBridge bridge, Channel channel) {
        this.toolgate = toolgate;
        this.bridge = bridge;
        this.channel = channel;
    }

    /** Keeps a task's proposal token here, so the user can consent through this instance. */
    void hold(Proposal proposal) {
        Instant now = Instant.now();
        if (tokens.size() >= MAX_HELD) {
            tokens.values().removeIf(held -> !held.expiresAt().isAfter(now));
            Iterator<String> some = tokens.keySet().iterator(); // still full: drop some (their tasks wait for an operator)
            while (tokens.size() >= MAX_HELD && some.hasNext()) {
                some.next();
                some.remove();
            }
        }
        tokens.put(proposal.callId(), new Held(proposal.token(), proposal.expiresAt()));
    }

    /**
     * Asks the user about the action {@code task} waits on, for at most {@code timeout}; true if that
     * decided something (read the task again), false if the user could not be asked or dismissed it.
     */
    boolean ask(Principal principal, String sessionId, McpTasks.Target target, McpTask task, Duration timeout) {
        if (task.pending().isEmpty() || !task.status().equals(McpTask.INPUT_REQUIRED)) {
            return false;
        }
        Map<String, Object> pending = task.pending().get(0);
        String callId = (String) pending.get("callId");
        Held held = target instanceof McpTasks.Proposal ? tokens.get(callId) : null;
        if (target instanceof McpTasks.Proposal && held == null) {
            return false; // made on another instance, or before a restart: an operator decides
        }
        Optional<McpSchema.ElicitResult> answer;
        try {
            answer = channel.elicit(sessionId, request(task, pending), timeout);
        } catch (RuntimeException e) {
            LOG.debug("Asking the user about task {} failed: {}", task.taskId(), e.toString());
            return false;
        }
        if (answer.isEmpty() || answer.get().action() == McpSchema.ElicitResult.Action.CANCEL) {
            return false;
        }
        CallContext context = bridge.context(principal, sessionId);
        try {
            if (answer.get().action() == McpSchema.ElicitResult.Action.DECLINE) {
                toolgate.withdraw(context, callId, DECLINED);
            } else if (target instanceof McpTasks.Run run) {
                toolgate.executions().approve(context, run.run().id(), ((Number) pending.get("seq")).intValue());
            } else {
                toolgate.apply(context, held.token());
            }
        } catch (RuntimeException e) {
            // expired, stale, decided elsewhere meanwhile, failed: the task reads as its record now says
            LOG.debug("The user's answer on task {} did not decide it: {}", task.taskId(), e.toString());
        } finally {
            tokens.remove(callId);
        }
        return true;
    }

    /** A form elicitation asking to approve the pending action, tied to the task. */
    private static Map<String, Object> request(McpTask task, Map<String, Object> pending) {
        Object summary = pending.getOrDefault("summary", "a change");
        String destructive = "DESTRUCTIVE".equals(pending.get("effect")) ? " It deletes or irreversibly changes data." : "";
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", Map.of());
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("mode", "form");
        request.put("message", "Approve this change? " + summary + " (tool " + pending.get("tool") + ")." + destructive
                + " Accept to apply it, decline to withdraw it.");
        request.put("requestedSchema", schema);
        request.put("_meta", McpTask.related(task.taskId()));
        return request;
    }
}
