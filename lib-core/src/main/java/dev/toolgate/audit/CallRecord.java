package dev.toolgate.audit;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.tool.Effect;
import java.time.Instant;
import java.util.Objects;

/**
 * One row of the audit trail: one call of a tool, and for a proposal its whole life (the proposed row
 * is also the token store). Immutable; stores build new versions with {@link #toBuilder()}.
 *
 * <p>What is never stored: the raw arguments (only {@link #argumentsHash()}, the SHA-256 of their
 * canonical JSON), the token's nonce (only {@link #tokenDigest()}, its SHA-256, so reading the database
 * does not let anyone apply), unredacted results or error messages. {@link #payloadJson()} holds the
 * validated payload of a proposal because it is exactly what apply will run.
 *
 * @param id             the call id: a version-7 UUID (RFC 9562) made by the engine, whose text sorts by creation time
 * @param toolName       the qualified tool name
 * @param effect         the tool's effect
 * @param principal      who made the call (for a proposal: the proposer)
 * @param tenantId       tenant (organization), or null
 * @param sessionId      session or conversation, or null
 * @param automationId   automation, or null
 * @param transport      how the call arrived ({@code mcp}, {@code chat}, {@code java} ...)
 * @param status         the current status
 * @param mode           the resolved policy mode
 * @param modeSource     where the mode came from
 * @param argumentsHash  SHA-256 hex of the canonical JSON of the arguments
 * @param createdAt      when the call was admitted (store time)
 * @param summary        the proposal summary, or null
 * @param payloadJson    the validated payload of a proposal, or null
 * @param diffJson       the proposal's before/after diff as a JSON array, or null
 * @param tokenDigest    SHA-256 hex of the proposal token's nonce, or null
 * @param expiresAt      when the proposal expires (store time), or null
 * @param resultJson     the redacted, size-capped result, or null
 * @param error          the redacted error message, or null
 * @param completedAt    when the outcome was recorded, or null
 * @param durationMillis how long the tool code ran, or null
 * @param appliedBy      who applied or approved the proposal, or null
 * @param appliedAt      when the proposal was claimed for apply, or null
 * @param outcomeDueAt   for a claimed proposal: when its outcome is due (the claim's time plus the tool's
 *                       execution timeout and a grace period); past it without an outcome, the call reads
 *                       as {@link CallStatus#INTERRUPTED}; null otherwise
 * @param decidedBy      the operator who approved, rejected or edited it, or null
 * @param decisionReason why (an operator's reason, {@code policy}, {@code pending_limit}), or null
 * @param supersedes     the proposal this one replaced after an operator's edit, or null
 * @param supersededBy   the proposal that replaced this one, or null
 * @param executionId    the durable execution this call is a step of, or null
 * @param stepSeq        its step number in that execution (from 1), or null
 * @param reverts        for the revert of an applied call during a rollback: that call's id, else null
 * @param revertedBy     for a call that a rollback reverted (status {@link CallStatus#REVERTED}): the
 *                       revert's call id, else null
 * @param precondition   for a proposal whose dry-run declared what must still hold when it runs (the
 *                       {@code before} of its diff, or an explicit precondition such as a version): the
 *                       SHA-256 hex of that state's canonical JSON, else null. Apply re-reads the state and
 *                       refuses the proposal as {@link CallStatus#STALE} when it no longer matches
 * @param preconditionJson that state as JSON, redacted and size-capped (what an operator and the model
 *                       are shown changed), or null
 */
public record CallRecord(
        String id,
        String toolName,
        Effect effect,
        PrincipalRef principal,
        String tenantId,
        String sessionId,
        String automationId,
        String transport,
        CallStatus status,
        Mode mode,
        ModeSource modeSource,
        String argumentsHash,
        Instant createdAt,
        String summary,
        String payloadJson,
        String diffJson,
        String tokenDigest,
        Instant expiresAt,
        String resultJson,
        String error,
        Instant completedAt,
        Long durationMillis,
        PrincipalRef appliedBy,
        Instant appliedAt,
        Instant outcomeDueAt,
        PrincipalRef decidedBy,
        String decisionReason,
        String supersedes,
        String supersededBy,
        String executionId,
        Integer stepSeq,
        String reverts,
        String revertedBy,
        String precondition,
        String preconditionJson) {

    /** Checks the components; see the class description for what each must hold. */
    public CallRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(modeSource, "modeSource");
        Objects.requireNonNull(argumentsHash, "argumentsHash");
        if ((executionId == null) != (stepSeq == null)) {
            throw new IllegalArgumentException("a step needs both its execution id and its seq");
        }
    }

    /** A builder starting from this record. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** A builder for a new record. */
    public static Builder builder() {
        return new Builder();
    }

    /** True while a proposal waits and its expiry has not passed at {@code now}. */
    public boolean pendingAt(Instant now) {
        return status == CallStatus.PROPOSED && expiresAt != null && expiresAt.isAfter(now);
    }

    @Override
    public String toString() {
        return "CallRecord[" + id + ", " + toolName + ", " + status.wireName() + ", " + principal + "]";
    }

    /** Builds {@link CallRecord}s; not thread-safe. */
    public static final class Builder {
        private String id;
        private String toolName;
        private Effect effect;
        private PrincipalRef principal;
        private String tenantId;
        private String sessionId;
        private String automationId;
        private String transport;
        private CallStatus status;
        private Mode mode;
        private ModeSource modeSource;
        private String argumentsHash;
        private Instant createdAt;
        private String summary;
        private String payloadJson;
        private String diffJson;
        private String tokenDigest;
        private Instant expiresAt;
        private String resultJson;
        private String error;
        private Instant completedAt;
        private Long durationMillis;
        private PrincipalRef appliedBy;
        private Instant appliedAt;
        private Instant outcomeDueAt;
        private PrincipalRef decidedBy;
        private String decisionReason;
        private String supersedes;
        private String supersededBy;
        private String executionId;
        private Integer stepSeq;
        private String reverts;
        private String revertedBy;
        private String precondition;
        private String preconditionJson;

        Builder() {
        }

        Builder(CallRecord r) {
            id = r.id;
            toolName = r.toolName;
            effect = r.effect;
            principal = r.principal;
            tenantId = r.tenantId;
            sessionId = r.sessionId;
            automationId = r.automationId;
            transport = r.transport;
            status = r.status;
            mode = r.mode;
            modeSource = r.modeSource;
            argumentsHash = r.argumentsHash;
            createdAt = r.createdAt;
            summary = r.summary;
            payloadJson = r.payloadJson;
            diffJson = r.diffJson;
            tokenDigest = r.tokenDigest;
            expiresAt = r.expiresAt;
            resultJson = r.resultJson;
            error = r.error;
            completedAt = r.completedAt;
            durationMillis = r.durationMillis;
            appliedBy = r.appliedBy;
            appliedAt = r.appliedAt;
            outcomeDueAt = r.outcomeDueAt;
            decidedBy = r.decidedBy;
            decisionReason = r.decisionReason;
            supersedes = r.supersedes;
            supersededBy = r.supersededBy;
            executionId = r.executionId;
            stepSeq = r.stepSeq;
            reverts = r.reverts;
            revertedBy = r.revertedBy;
            precondition = r.precondition;
            preconditionJson = r.preconditionJson;
        }

        /** Sets {@link CallRecord#id()}. */
        public Builder id(String v) { id = v; return this; }
        /** Sets {@link CallRecord#toolName()}. */
        public Builder toolName(String v) { toolName = v; return this; }
        /** Sets {@link CallRecord#effect()}. */
        public Builder effect(Effect v) { effect = v; return this; }
        /** Sets {@link CallRecord#principal()}. */
        public Builder principal(PrincipalRef v) { principal = v; return this; }
        /** Sets {@link CallRecord#tenantId()}. */
        public Builder tenantId(String v) { tenantId = v; return this; }
        /** Sets {@link CallRecord#sessionId()}. */
        public Builder sessionId(String v) { sessionId = v; return this; }
        /** Sets {@link CallRecord#automationId()}. */
        public Builder automationId(String v) { automationId = v; return this; }
        /** Sets {@link CallRecord#transport()}. */
        public Builder transport(String v) { transport = v; return this; }
        /** Sets {@link CallRecord#status()}. */
        public Builder status(CallStatus v) { status = v; return this; }
        /** Sets {@link CallRecord#mode()}. */
        public Builder mode(Mode v) { mode = v; return this; }
        /** Sets {@link CallRecord#modeSource()}. */
        public Builder modeSource(ModeSource v) { modeSource = v; return this; }
        /** Sets {@link CallRecord#argumentsHash()}. */
        public Builder argumentsHash(String v) { argumentsHash = v; return this; }
        /** Sets {@link CallRecord#createdAt()}. */
        public Builder createdAt(Instant v) { createdAt = v; return this; }
        /** Sets {@link CallRecord#summary()}. */
        public Builder summary(String v) { summary = v; return this; }
        /** Sets {@link CallRecord#payloadJson()}. */
        public Builder payloadJson(String v) { payloadJson = v; return this; }
        /** Sets {@link CallRecord#diffJson()}. */
        public Builder diffJson(String v) { diffJson = v; return this; }
        /** Sets {@link CallRecord#tokenDigest()}. */
        public Builder tokenDigest(String v) { tokenDigest = v; return this; }
        /** Sets {@link CallRecord#expiresAt()}. */
        public Builder expiresAt(Instant v) { expiresAt = v; return this; }
        /** Sets {@link CallRecord#resultJson()}. */
        public Builder resultJson(String v) { resultJson = v; return this; }
        /** Sets {@link CallRecord#error()}. */
        public Builder error(String v) { error = v; return this; }
        /** Sets {@link CallRecord#completedAt()}. */
        public Builder completedAt(Instant v) { completedAt = v; return this; }
        /** Sets {@link CallRecord#durationMillis()}. */
        public Builder durationMillis(Long v) { durationMillis = v; return this; }
        /** Sets {@link CallRecord#appliedBy()}. */
        public Builder appliedBy(PrincipalRef v) { appliedBy = v; return this; }
        /** Sets {@link CallRecord#appliedAt()}. */
        public Builder appliedAt(Instant v) { appliedAt = v; return this; }
        /** Sets {@link CallRecord#outcomeDueAt()}. */
        public Builder outcomeDueAt(Instant v) { outcomeDueAt = v; return this; }
        /** Sets {@link CallRecord#decidedBy()}. */
        public Builder decidedBy(PrincipalRef v) { decidedBy = v; return this; }
        /** Sets {@link CallRecord#decisionReason()}. */
        public Builder decisionReason(String v) { decisionReason = v; return this; }
        /** Sets {@link CallRecord#supersedes()}. */
        public Builder supersedes(String v) { supersedes = v; return this; }
        /** Sets {@link CallRecord#supersededBy()}. */
        public Builder supersededBy(String v) { supersededBy = v; return this; }
        /** Sets {@link CallRecord#executionId()}. */
        public Builder executionId(String v) { executionId = v; return this; }
        /** Sets {@link CallRecord#stepSeq()}. */
        public Builder stepSeq(Integer v) { stepSeq = v; return this; }
        /** Sets {@link CallRecord#reverts()}. */
        public Builder reverts(String v) { reverts = v; return this; }
        /** Sets {@link CallRecord#revertedBy()}. */
        public Builder revertedBy(String v) { revertedBy = v; return this; }
        /** Sets {@link CallRecord#precondition()}. */
        public Builder precondition(String v) { precondition = v; return this; }
        /** Sets {@link CallRecord#preconditionJson()}. */
        public Builder preconditionJson(String v) { preconditionJson = v; return this; }

        /** Builds the record; id, tool, effect, principal, transport, status, mode and hash are required. */
        public CallRecord build() {
            return new CallRecord(id, toolName, effect, principal, tenantId, sessionId, automationId, transport, status,
                    mode, modeSource, argumentsHash, createdAt, summary, payloadJson, diffJson, tokenDigest, expiresAt,
                    resultJson, error, completedAt, durationMillis, appliedBy, appliedAt, outcomeDueAt, decidedBy, decisionReason,
                    supersedes, supersededBy, executionId, stepSeq, reverts, revertedBy, precondition, preconditionJson);
        }
    }
}
