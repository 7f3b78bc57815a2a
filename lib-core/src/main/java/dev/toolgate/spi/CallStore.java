package dev.toolgate.spi;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The audit trail, which is also the proposal-token store and the budget ledger. Every method is one
 * atomic step; the gate never composes two of them into something that must be atomic.
 *
 * <p><b>Time:</b> every timestamp ({@code createdAt}, {@code expiresAt}, {@code appliedAt},
 * {@code completedAt}) and every expiry and budget-window check uses the store's own clock,
 * {@link #now()}. A store shared by several instances uses one clock for all of them (a database's),
 * so clock skew between instances cannot make a token live longer or a window admit more.
 *
 * <p><b>Failure:</b> an unreachable store throws {@link StoreUnavailableException}; the gate then
 * fails closed (nothing is executed unrecorded).
 */
public interface CallStore {

    /** The store's current time. */
    Instant now();

    /**
     * Admits a call against {@code charge} and inserts it, atomically. The record must have status
     * {@link CallStatus#RUNNING}; the store sets {@code createdAt}.
     *
     * @param charge the budget admission, or null for none
     * @return the stored record
     * @throws BudgetExceededException if the principal is over budget; nothing is stored then
     */
    CallRecord begin(CallRecord call, BudgetCharge charge);

    /**
     * Records the outcome of a running call ({@code RUNNING} to {@code EXECUTED}, {@code FAILED},
     * {@code INVALID} or {@code DENIED}) or of an applied one ({@code APPLIED} without an outcome yet
     * to {@code APPLIED} or {@code FAILED}). Sets {@code completedAt}.
     *
     * @return false if the call was not in a state that takes this outcome
     */
    boolean complete(String id, Completion completion);

    /**
     * Turns a running call into a proposal: stores the proposal data, sets {@code expiresAt} to now
     * plus {@code ttl}, and checks the session's pending cap, atomically.
     */
    ProposeResult propose(String id, ProposalState proposal, Duration ttl, int maxPendingPerSession);

    /**
     * The single-use step: moves a proposal from {@code PROPOSED} to {@code APPLIED} only if it is still
     * proposed and unexpired by the store's clock, records who applied it, and admits {@code charge},
     * atomically. Of any number of concurrent claims of one proposal, across all instances sharing
     * the store, exactly one returns {@link ClaimResult.Status#CLAIMED}.
     *
     * @throws BudgetExceededException if the applier is over budget; nothing changes then
     */
    ClaimResult claim(String id, Claim claim, BudgetCharge charge);

    /**
     * Closes a pending (proposed and unexpired) proposal as {@code REJECTED} or {@code SUPERSEDED}.
     *
     * @return false if it was no longer pending; nothing changes then
     */
    boolean close(String id, Closure closure);

    /** The record with this id. */
    Optional<CallRecord> find(String id);

    /** Records matching the query, newest first. */
    List<CallRecord> query(CallQuery query);

    /** Proposals of a session that are pending now. */
    int countPending(String sessionId);

    /**
     * Marks proposals whose expiry passed as {@code EXPIRED}. Hygiene only: apply rejects expired
     * tokens whether or not this ran. Safe to run on every instance at once.
     *
     * @return how many proposals this call expired
     */
    int expireDue();

    /**
     * An outcome to record.
     *
     * @param status         the new status
     * @param resultJson     the redacted, size-capped result, or null
     * @param error          the redacted error message, or null
     * @param durationMillis how long tool code ran, or null
     * @param reason         a decision reason (for DENIED), or null
     */
    record Completion(CallStatus status, String resultJson, String error, Long durationMillis, String reason) {
        /** Checks the components; see the class description for what each must hold. */
        public Completion {
            Objects.requireNonNull(status, "status");
        }
    }

    /**
     * What a proposal stores.
     *
     * @param summary     the dry-run's summary
     * @param payloadJson the validated payload apply will run
     * @param diffJson    the before/after diff (a JSON array), or null
     * @param tokenDigest SHA-256 hex of the token nonce (never the nonce)
     * @param supersedes  the proposal this one replaces after an edit, or null
     */
    record ProposalState(String summary, String payloadJson, String diffJson, String tokenDigest, String supersedes) {
        /** Checks the components; see the class description for what each must hold. */
        public ProposalState {
            Objects.requireNonNull(summary, "summary");
            Objects.requireNonNull(payloadJson, "payloadJson");
            Objects.requireNonNull(tokenDigest, "tokenDigest");
        }
    }

    /**
     * The result of {@link #propose}.
     *
     * @param status what happened
     * @param record the record after the step (null if not found)
     */
    record ProposeResult(Status status, CallRecord record) {
        /** What {@link #propose} did. */
        public enum Status {
            /** The call is now a pending proposal. */
            PROPOSED,
            /** The session already holds the maximum of pending proposals; nothing changed. */
            PENDING_LIMIT,
            /** The call was not running; nothing changed. */
            NOT_RUNNING
        }
    }

    /**
     * Who claims a proposal.
     *
     * @param appliedBy      the principal applying (and whose budget is charged)
     * @param decidedBy      the operator approving from the inbox, or null for a token apply
     * @param decisionReason the operator's reason, or null
     */
    record Claim(PrincipalRef appliedBy, PrincipalRef decidedBy, String decisionReason) {
        /** Checks the components; see the class description for what each must hold. */
        public Claim {
            Objects.requireNonNull(appliedBy, "appliedBy");
        }
    }

    /**
     * The result of {@link #claim}.
     *
     * @param status what happened
     * @param record the record after the step, or null if not found
     */
    record ClaimResult(Status status, CallRecord record) {
        /** What {@link #claim} did. */
        public enum Status {
            /** This caller won the single use. */
            CLAIMED,
            /** The proposal exists but its expiry passed. */
            EXPIRED,
            /** The proposal is no longer proposed (applied, rejected, superseded, ...). */
            NOT_PENDING,
            /** No such record. */
            NOT_FOUND
        }
    }

    /**
     * How a pending proposal is closed without running.
     *
     * @param status       {@code REJECTED} or {@code SUPERSEDED}
     * @param decidedBy    the operator
     * @param reason       the operator's reason, or null
     * @param supersededBy the replacing proposal, for {@code SUPERSEDED}
     */
    record Closure(CallStatus status, PrincipalRef decidedBy, String reason, String supersededBy) {
        /** Checks the components; see the class description for what each must hold. */
        public Closure {
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(decidedBy, "decidedBy");
            if (status != CallStatus.REJECTED && status != CallStatus.SUPERSEDED) {
                throw new IllegalArgumentException("a proposal closes as rejected or superseded, not " + status);
            }
        }
    }
}
