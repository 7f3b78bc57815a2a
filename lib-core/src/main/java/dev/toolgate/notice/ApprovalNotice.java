package dev.toolgate.notice;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.tool.Effect;
import java.time.Instant;
import java.util.Objects;

/**
 * One approval notice: what needs (or got) a decision, metadata only. It never carries the proposal's
 * token, its payload or the call's arguments; the summary is the one the gate stored, already
 * redacted.
 *
 * @param kind        what happened
 * @param callId      the proposal's call id (what an inbox link names)
 * @param toolName    the qualified tool name
 * @param effect      the tool's effect
 * @param summary     the dry-run's redacted summary, or null
 * @param proposer    who proposed the call
 * @param tenantId    the tenant, or null
 * @param sessionId   the session, or null
 * @param expiresAt   when the proposal expires (or expired), or null
 * @param executionId the durable execution the call is a step of, or null
 * @param stepSeq     the step's number in that execution, or null
 * @param decidedBy   who decided (approved and applied, rejected, edited), or null while it awaits a
 *                    decision and when it expired
 * @param supersedes  the proposal an operator's edit replaced with this one, or null
 * @param occurredAt  when the gate noticed it
 */
public record ApprovalNotice(NoticeKind kind, String callId, String toolName, Effect effect, String summary,
                             PrincipalRef proposer, String tenantId, String sessionId, Instant expiresAt,
                             String executionId, Integer stepSeq, PrincipalRef decidedBy, String supersedes,
                             Instant occurredAt) {

    /** Checks the components; see the class description for what each must hold. */
    public ApprovalNotice {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(proposer, "proposer");
        Objects.requireNonNull(occurredAt, "occurredAt");
    }

    /** Whether the call is a step of a durable execution (a paused run waits on it). */
    public boolean isStep() {
        return executionId != null;
    }
}
