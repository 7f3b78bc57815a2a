package dev.toolgate.audit;

import dev.toolgate.access.PrincipalRef;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One durable execution: a run of a registered program. Its steps are ordinary call records
 * ({@link CallRecord#executionId()} and {@link CallRecord#stepSeq()}), so the run's log is its audit
 * trail. Immutable.
 *
 * <p>What is stored: the program's input (a replay needs it, as apply needs a proposal's payload),
 * the principal's kind, id and access rules when the run started (to authorize the steps of a replay
 * when no {@code PrincipalDirectory} gives current ones; never its attributes), and at the end the
 * program's redacted, capped result or error and its log lines.
 *
 * @param id             the execution id (a UUID)
 * @param program        the registered program's name
 * @param principal      who started it; its steps run as this principal
 * @param principalRules the access rules {@code principal} held when the run started
 * @param tenantId       tenant, or null
 * @param sessionId      session, or null
 * @param automationId   automation, or null
 * @param transport      how the run was started
 * @param autoApprove    whether the run started in AUTO permission mode
 * @param inputJson      the program's input as JSON
 * @param status         where the run is
 * @param attempt        which attempt runs or ran it: 1 for the start, one more for every replay or takeover
 * @param pendingSeq     while paused: the seq of the step awaiting consent, else null
 * @param pendingCallId  while paused: the call id of that step's proposal, else null
 * @param createdAt      when it started (store time)
 * @param updatedAt      when its status or attempt last changed (store time)
 * @param completedAt    when it finished, or null
 * @param resultJson     the program's result, redacted and capped, or null
 * @param error          why it failed, was rejected, expired or was interrupted, or null
 * @param logs           the log lines of the last attempt (redacted), empty while it runs
 */
public record ExecutionRecord(String id, String program, PrincipalRef principal, Set<String> principalRules, String tenantId,
                              String sessionId, String automationId, String transport, boolean autoApprove,
                              String inputJson, ExecutionStatus status, int attempt, Integer pendingSeq,
                              String pendingCallId, Instant createdAt, Instant updatedAt, Instant completedAt,
                              String resultJson, String error, List<String> logs) {

    /** Checks the components; see the class description for what each must hold. */
    public ExecutionRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(program, "program");
        Objects.requireNonNull(principal, "principal");
        principalRules = Set.copyOf(principalRules);
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(inputJson, "inputJson");
        Objects.requireNonNull(status, "status");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be at least 1, got " + attempt);
        }
        logs = logs == null ? List.of() : List.copyOf(logs);
    }

    /** This record in another status, attempt and pending step; the store sets the times. */
    public ExecutionRecord withState(ExecutionStatus status, int attempt, Integer pendingSeq, String pendingCallId) {
        return new ExecutionRecord(id, program, principal, principalRules, tenantId, sessionId, automationId, transport,
                autoApprove, inputJson, status, attempt, pendingSeq, pendingCallId, createdAt, updatedAt, completedAt,
                resultJson, error, logs);
    }

    /** This record finished: status, result or error, logs, and the time. */
    public ExecutionRecord finishedAs(ExecutionStatus status, String resultJson, String error, List<String> logs, Instant at) {
        return new ExecutionRecord(id, program, principal, principalRules, tenantId, sessionId, automationId, transport,
                autoApprove, inputJson, status, attempt, null, null, createdAt, at, at, resultJson, error, logs);
    }

    /** This record with its store times. */
    public ExecutionRecord at(Instant createdAt, Instant updatedAt) {
        return new ExecutionRecord(id, program, principal, principalRules, tenantId, sessionId, automationId, transport,
                autoApprove, inputJson, status, attempt, pendingSeq, pendingCallId, createdAt, updatedAt, completedAt,
                resultJson, error, logs);
    }

    @Override
    public String toString() {
        return "ExecutionRecord[" + id + ", " + program + ", " + status.wireName() + ", attempt " + attempt + ", " + principal + "]";
    }
}
