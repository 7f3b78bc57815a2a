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
 * <p>A call is metered before any tool code runs ({@link #admit}) and written once, with its outcome,
 * before its result is released ({@link #record}); a proposal is written once, durably, before its
 * token exists ({@link #propose}); applying one is a single atomic claim ({@link #claim}) followed by
 * its outcome ({@link #complete}).
 *
 * <p><b>Time:</b> every timestamp ({@code createdAt}, {@code expiresAt}, {@code appliedAt},
 * {@code completedAt}) and every expiry and budget-window check uses the store's own clock,
 * {@link #now()}. A store shared by several instances uses one clock for all of them (a database's),
 * so clock skew between instances cannot make a token live longer or a window admit more.
 *
 * <p><b>Failure:</b> an unreachable store throws {@link StoreUnavailableException}; the gate then
 * fails closed: nothing runs unmetered, and no result is released unrecorded.
 */
public interface CallStore {

    /** The store's current time. */
    Instant now();

    /**
     * Admits one call of {@code charge}'s principal against its limit: atomically, and exactly across
     * every instance sharing the store (never more than the cap in any window).
     *
     * @return the admission time (store time), which becomes the call's {@code createdAt}
     * @throws BudgetExceededException if the principal is over budget; nothing is stored then
     */
    Instant admit(BudgetCharge charge);

    /**
     * Writes a finished call ({@code EXECUTED}, {@code FAILED}, {@code INVALID} or {@code DENIED}) in
     * one write. Keeps the record's {@code createdAt} (its admission time) or, if null, sets the store's
     * time; sets {@code completedAt} to the store's time.
     *
     * @return the stored record
     */
    CallRecord record(CallRecord call);

    /**
     * Writes a proposal (status {@code PROPOSED}, with its summary, payload, diff and token digest),
     * setting {@code expiresAt} to now plus {@code ttl} and checking the session's pending cap,
     * atomically. Keeps {@code createdAt} if set, else sets the store's time.
     */
    ProposeResult propose(CallRecord proposal, Duration ttl, int maxPendingPerSession);

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
     * Records the outcome of an applied proposal: a claimed ({@code APPLIED}, no outcome yet) call
     * becomes {@code APPLIED} with its result or {@code FAILED}. Sets {@code completedAt}.
     *
     * @return false if the call was not a claimed proposal awaiting its outcome
     */
    boolean complete(String id, Completion completion);

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
     * The outcome of an applied proposal.
     *
     * @param status         {@code APPLIED} or {@code FAILED}
     * @param resultJson     the redacted, size-capped result, or null
     * @param error          the redacted error message, or null
     * @param durationMillis how long tool code ran, or null
     */
    record Completion(CallStatus status, String resultJson, String error, Long durationMillis) {
        /** Checks the components; see the class description for what each must hold. */
        public Completion {
            Objects.requireNonNull(status, "status");
            if (status != CallStatus.APPLIED && status != CallStatus.FAILED) {
                throw new IllegalArgumentException("an applied proposal completes as applied or failed, not " + status);
            }
        }
    }

    /**
     * The result of {@link #propose}.
     *
     * @param status what happened
     * @param record the stored proposal, or null when nothing was stored
     */
    record ProposeResult(Status status, CallRecord record) {
        /** What {@link #propose} did. */
        public enum Status {
            /** The proposal is stored and pending. */
            PROPOSED,
            /** The session already holds the maximum of pending proposals; nothing was stored. */
            PENDING_LIMIT
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
