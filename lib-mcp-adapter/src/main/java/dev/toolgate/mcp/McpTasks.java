package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionQuery;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.conversation.Decision;
import dev.toolgate.execution.Executions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * MCP tasks read from the gate's store. A task is not a row of its own: it is a proposal
 * ({@code call:<id>}) or a durable run ({@code run:<id>}) that its principal made over MCP, so its state
 * is the proposal's or the run's, on every instance sharing the store and after a restart, and it ends
 * when the store's retention purges them. Task-augmented calls create them; any proposal or run the
 * principal made over MCP reads as one.
 *
 * <p>Status: a pending proposal, or a run paused at a step, is {@code input_required} (it waits for
 * consent; the pending actions come with it, without a token); a proposal being applied, or a run
 * running, is {@code working}; applied (or applied and since reverted) and a completed run are
 * {@code completed}; a proposal or step the task's own principal withdrew ({@code tasks/cancel}, a
 * declined elicitation) is {@code cancelled}; declined by an operator, failed, expired, stale or in
 * doubt is {@code failed}, its message saying which.
 *
 * <p>Who sees a task: only its principal (the same principal key). Another principal's task, a
 * malformed id and a purged task all answer as unknown; a task past the server's ttl answers as expired.
 */
final class McpTasks {

    static final String CALL_PREFIX = "call:";
    static final String RUN_PREFIX = "run:";
    private static final int PAGE = 50;
    private static final int SCAN = 200;
    private static final Comparator<Listed> NEWEST_FIRST =
            Comparator.comparing(Listed::createdAt).thenComparing(Listed::id).reversed();

    private final Toolgate toolgate;
    private final Executions executions;
    private final Duration ttl;
    private final Duration pollInterval;
    private final boolean operatorConsents;
    private final UnaryOperator<String> wireNames;

    McpTasks(Toolgate toolgate, Duration ttl, Duration pollInterval, boolean operatorConsents, UnaryOperator<String> wireNames) {
        this.toolgate = Objects.requireNonNull(toolgate, "toolgate");
        this.ttl = Objects.requireNonNull(ttl, "ttl");
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        this.operatorConsents = operatorConsents;
        this.wireNames = wireNames;
        this.executions = RunTools.executionsOf(toolgate);
    }

    /** What a task id names, once its owner is checked. */
    sealed interface Target permits Proposal, Run {
        String taskId();
    }

    /** A proposal's task: the record the proposal finally became (edits followed) and the original. */
    record Proposal(String taskId, CallRecord original, CallRecord current) implements Target {
    }

    /** A run's task. */
    record Run(String taskId, ExecutionRecord run) implements Target {
    }

    /** Why a task id is not answered. */
    static final class Missing extends RuntimeException {
        private final boolean expired;

        Missing(boolean expired) {
            super(expired ? "Task has expired" : "Task not found", null, false, false);
            this.expired = expired;
        }

        boolean expired() {
            return expired;
        }
    }

    /** The task {@code taskId} of {@code principal}; {@link Missing} if unknown, another's or expired. */
    Target find(Principal principal, String taskId) {
        Target target = lookup(principal, taskId).orElseThrow(() -> new Missing(false));
        if (createdAt(target).plus(ttl).isBefore(Instant.now())) {
            throw new Missing(true);
        }
        return target;
    }

    private Optional<Target> lookup(Principal principal, String taskId) {
        if (taskId == null || taskId.length() > 300) {
            return Optional.empty();
        }
        PrincipalRef owner = PrincipalRef.of(principal);
        if (taskId.startsWith(CALL_PREFIX)) {
            return toolgate.findCall(taskId.substring(CALL_PREFIX.length()))
                    .filter(r -> isTask(r) && r.principal().equals(owner))
                    .map(r -> new Proposal(taskId, r, toolgate.outcomeOf(r.id()).orElse(r)));
        }
        if (taskId.startsWith(RUN_PREFIX) && executions != null) {
            return executions.find(taskId.substring(RUN_PREFIX.length()))
                    .filter(r -> isTask(r) && r.principal().equals(owner))
                    .map(r -> new Run(taskId, r));
        }
        return Optional.empty();
    }

    /** A proposal made over MCP, not a step of a run (the run is the task) nor a call that started one. */
    private boolean isTask(CallRecord record) {
        return record.tokenDigest() != null && record.executionId() == null && ToolBridge.TRANSPORT.equals(record.transport())
                && !(executions != null && executions.programs().contains(record.toolName()) && record.status() == CallStatus.APPLIED);
    }

    private static boolean isTask(ExecutionRecord run) {
        return ToolBridge.TRANSPORT.equals(run.transport());
    }

    private static Instant createdAt(Target target) {
        return target instanceof Proposal p ? p.original().createdAt() : ((Run) target).run().createdAt();
    }

    /** The call id of the proposal the task waits on (a pending proposal, a paused run's step), else null. */
    String pendingCallId(Target target) {
        if (target instanceof Proposal p) {
            return p.current().status() == CallStatus.PROPOSED ? p.current().id() : null;
        }
        ExecutionRecord run = ((Run) target).run();
        return run.status() == ExecutionStatus.PAUSED ? run.pendingCallId() : null;
    }

    /** The task as its principal reads it now. */
    McpTask view(Target target) {
        return target instanceof Proposal p ? proposalTask(p) : runTask((Run) target);
    }

    private McpTask proposalTask(Proposal target) {
        CallRecord r = target.current();
        Instant updated = latest(r.createdAt(), r.appliedAt(), r.completedAt());
        Instant now = Instant.now();
        return switch (r.status()) {
            case PROPOSED -> r.expiresAt() != null && !r.expiresAt().isAfter(now)
                    ? task(target, McpTask.FAILED, "Expired: nobody decided in time; nothing ran", updated, List.of())
                    : task(target, McpTask.INPUT_REQUIRED, awaiting(r.summary()), updated, List.of(pending(r, null)));
            case APPLYING -> task(target, McpTask.WORKING, "Approved; being applied", updated, List.of());
            case INTERRUPTED -> task(target, McpTask.FAILED, "In doubt: it was being applied and its outcome never "
                    + "arrived; it is not run again automatically, an operator settles it", updated, List.of());
            default -> {
                Decision decision = toolgate.conversations().decisionOn(r, target.original().principal()).orElse(null);
                if (decision == null) {
                    yield task(target, McpTask.FAILED, "Ended as " + r.status().name().toLowerCase(java.util.Locale.ROOT),
                            updated, List.of());
                }
                yield task(target, statusOf(decision), messageOf(decision), decision.decidedAt(), List.of());
            }
        };
    }

    private static String statusOf(Decision decision) {
        return switch (decision.outcome()) {
            case APPLIED, REVERTED -> McpTask.COMPLETED;
            case DECLINED -> decision.decidedBy() == Decision.Decider.USER ? McpTask.CANCELLED : McpTask.FAILED;
            default -> McpTask.FAILED;
        };
    }

    private static String messageOf(Decision decision) {
        String reason = decision.reason() == null ? "" : ": " + decision.reason();
        return switch (decision.outcome()) {
            case APPLIED -> "Applied";
            case REVERTED -> "Applied, then undone by a rollback";
            case FAILED -> "Approved, but it failed" + (decision.error() == null ? "" : ": " + decision.error());
            case DECLINED -> (decision.decidedBy() == Decision.Decider.USER ? "Withdrawn" : "Declined by an operator")
                    + reason + "; nothing ran";
            case EXPIRED -> "Expired: nobody decided in time; nothing ran";
            case EDITED -> "Replaced by an operator's edit";
            case STALE -> "Stale: what it would change had changed since it was proposed" + reason + "; nothing ran";
        };
    }

    private McpTask runTask(Run target) {
        ExecutionRecord run = target.run();
        Instant updated = latest(run.createdAt(), run.updatedAt(), run.completedAt());
        String error = run.error() == null ? "" : ": " + run.error();
        return switch (run.status()) {
            case RUNNING -> task(target, McpTask.WORKING, "Running", updated, List.of());
            case PAUSED -> {
                CallRecord step = run.pendingCallId() == null ? null : toolgate.findCall(run.pendingCallId()).orElse(null);
                yield step == null ? task(target, McpTask.WORKING, "Paused; resuming", updated, List.of())
                        : task(target, McpTask.INPUT_REQUIRED, "Paused at step " + run.pendingSeq() + ". "
                                + awaiting(step.summary()), updated, List.of(pending(step, run)));
            }
            case COMPLETED -> task(target, McpTask.COMPLETED, "Completed", updated, List.of());
            case REJECTED -> task(target, withdrawnByOwner(run) ? McpTask.CANCELLED : McpTask.FAILED,
                    "Rejected" + error + ". Steps applied before it stay applied (roll the run back to undo them)",
                    updated, List.of());
            case ROLLED_BACK -> task(target, run.resultJson() != null ? McpTask.COMPLETED
                    : withdrawnByOwner(run) ? McpTask.CANCELLED : McpTask.FAILED, "Rolled back" + error, updated, List.of());
            case FAILED, EXPIRED, INTERRUPTED -> task(target, McpTask.FAILED,
                    run.status().name().charAt(0) + run.status().name().substring(1).toLowerCase(java.util.Locale.ROOT) + error,
                    updated, List.of());
        };
    }

    /** True if the step that ended the run was rejected by the run's own principal (its task was cancelled). */
    private boolean withdrawnByOwner(ExecutionRecord run) {
        if (executions == null) {
            return false;
        }
        return executions.steps(run.id()).stream().filter(s -> s.status() == CallStatus.REJECTED)
                .anyMatch(s -> run.principal().equals(s.decidedBy()));
    }

    private String awaiting(String summary) {
        String what = summary == null ? "A change" : summary;
        return "Awaiting consent: " + what + (operatorConsents ? " (an operator decides)"
                : " (the user confirms when the client asks, through tasks/result, or an operator decides)");
    }

    /** One pending action: what would run, no token, no arguments beyond the summary and diff the user is shown. */
    private Map<String, Object> pending(CallRecord proposal, ExecutionRecord run) {
        Map<String, Object> action = new LinkedHashMap<>();
        action.put("callId", proposal.id());
        if (run != null) {
            action.put("executionId", run.id());
            action.put("seq", proposal.stepSeq());
        }
        action.put("tool", wireNames.apply(proposal.toolName()));
        action.put("effect", proposal.effect().name());
        if (proposal.summary() != null) {
            action.put("summary", proposal.summary());
        }
        if (proposal.diffJson() != null) {
            action.put("diff", dev.toolgate.json.Json.mapper().convertValue(dev.toolgate.json.Json.parse(proposal.diffJson()),
                    List.class));
        }
        if (proposal.expiresAt() != null) {
            action.put("expiresAt", proposal.expiresAt().toString());
        }
        return action;
    }

    private McpTask task(Target target, String status, String message, Instant updated, List<Map<String, Object>> pending) {
        return new McpTask(target.taskId(), status, message, createdAt(target), updated, ttl.toMillis(),
                pollInterval.toMillis(), pending);
    }

    private static Instant latest(Instant... instants) {
        Instant latest = Instant.EPOCH;
        for (Instant instant : instants) {
            if (instant != null && instant.isAfter(latest)) {
                latest = instant;
            }
        }
        return latest;
    }

    // ------------------------------------------------------------------------------------ listing

    /** One page of tasks. */
    record Page(List<McpTask> tasks, String nextCursor) {
    }

    private record Listed(Instant createdAt, String id, Target target) {
    }

    /**
     * The principal's tasks, newest first, {@value #PAGE} a page; {@code cursor} from the previous page.
     *
     * @throws IllegalArgumentException a cursor this server did not make
     */
    Page list(Principal principal, String cursor) {
        CallQuery.Cursor after = cursor == null ? null : CallQuery.Cursor.decode(cursor);
        PrincipalRef owner = PrincipalRef.of(principal);
        Instant oldest = Instant.now().minus(ttl);
        List<CallRecord> scanned = toolgate.findCalls(CallQuery.latest(SCAN).principal(owner.key()).after(after));
        CallQuery.Cursor boundary = scanned.size() < SCAN ? null : CallQuery.Cursor.of(scanned.get(scanned.size() - 1));
        List<Listed> found = new ArrayList<>();
        for (CallRecord r : scanned) {
            if (isTask(r) && r.principal().equals(owner) && r.createdAt().isAfter(oldest)) {
                found.add(new Listed(r.createdAt(), r.id(),
                        new Proposal(CALL_PREFIX + r.id(), r, toolgate.outcomeOf(r.id()).orElse(r))));
            }
        }
        if (executions != null) {
            for (ExecutionRecord run : executions.executions(ExecutionQuery.latest(ExecutionQuery.MAX_LIMIT).principal(owner.key()))) {
                if (isTask(run) && run.principal().equals(owner) && run.createdAt().isAfter(oldest)
                        && (after == null || before(run.createdAt(), run.id(), after))
                        && (boundary == null || !before(run.createdAt(), run.id(), boundary))) {
                    found.add(new Listed(run.createdAt(), run.id(), new Run(RUN_PREFIX + run.id(), run)));
                }
            }
        }
        found.sort(NEWEST_FIRST);
        String next = boundary == null ? null : boundary.encode();
        if (found.size() > PAGE) {
            Listed last = found.get(PAGE - 1);
            next = new CallQuery.Cursor(last.createdAt(), last.id()).encode();
            found = found.subList(0, PAGE);
        }
        return new Page(found.stream().map(l -> view(l.target())).toList(), next);
    }

    /** True if (createdAt, id) comes after {@code cursor} in the newest-first order. */
    private static boolean before(Instant createdAt, String id, CallQuery.Cursor cursor) {
        int byTime = createdAt.compareTo(cursor.createdAt());
        return byTime < 0 || (byTime == 0 && id.compareTo(cursor.id()) < 0);
    }
}
