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
 * its outcome ({@link #complete}). A claim whose outcome never arrives (the instance stopped while the
 * tool ran) is found by {@link #interruptOverdue} and reads as {@link CallStatus#INTERRUPTED}: in
 * doubt, never applied, never re-run.
 *
 * <p><b>Steps of durable executions:</b> a record with an {@code executionId} is step
 * {@code stepSeq} of that run, and each (execution, step) pair is stored at most once:
 * {@link #record} and {@link #propose} throw {@link StepTakenException} for a pair already stored,
 * which is how two runners of one run never both log (or both execute a mutation at) the same step.
 * A revert during a rollback is stored once per reverted call ({@link #claimRevert}).
 *
 * <p><b>Retention:</b> nothing is deleted except by {@link #purge} (finished calls, closed proposals,
 * idle session and budget rows, in small batches) and {@link #endSession}.
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
     * time; sets {@code completedAt} to the store's time, never before {@code createdAt}. These two times
     * only record when the call happened, so a store may take them from its estimate of its own clock
     * (the JDBC store does, within half a round trip of the database's) rather than read them back; the
     * returned record holds exactly what was stored. Durable when it returns, unless the host opted
     * into a store that writes such rows behind the call (never a step of a run), which then still finds
     * the row on this instance at once.
     *
     * @return the stored record
     * @throws StepTakenException if the call is a step whose (execution, step) is already stored
     */
    CallRecord record(CallRecord call);

    /**
     * Writes a proposal (status {@code PROPOSED}, with its summary, payload, diff and token digest),
     * setting {@code expiresAt} to now plus {@code ttl} and checking the session's pending cap,
     * atomically. Keeps {@code createdAt} if set, else sets the store's time.
     *
     * @throws StepTakenException if the proposal is a step whose (execution, step) is already stored
     */
    ProposeResult propose(CallRecord proposal, Duration ttl, int maxPendingPerSession);

    /**
     * The single-use step: moves a proposal from {@code PROPOSED} to {@code APPLYING} only if it is
     * still proposed and unexpired by the store's clock, records who applied it, when
     * ({@code appliedAt}) and by when its outcome is due ({@code outcomeDueAt} = now plus
     * {@link Claim#outcomeWithin()}), and admits {@code charge}, atomically. Of any number of
     * concurrent claims of one proposal, across all instances sharing the store, exactly one returns
     * {@link ClaimResult.Status#CLAIMED}. The claim is durable before it returns: a claim lost in a
     * crash could let a mutation run twice.
     *
     * <p>A proposal with a {@link CallRecord#precondition() precondition} is claimed only while no other
     * call with the same precondition is {@code APPLYING}: of two proposals made from the same state of an
     * object, one runs at a time across every instance, and the other, claimed after, finds the state moved
     * when the gate checks it again. A claim that finds one applying changes nothing and returns
     * {@link ClaimResult.Status#CONFLICT}.
     *
     * @throws BudgetExceededException if the applier is over budget; nothing changes then
     */
    ClaimResult claim(String id, Claim claim, BudgetCharge charge);

    /**
     * {@link #claim(String, Claim, BudgetCharge)} of {@code proposal}, given as the caller holds it: as
     * {@link #propose} returned it or as the store last returned it, still {@code PROPOSED}. Everything
     * a claim leaves alone (tool, principal, payload, token digest, expiry, ...) never changes while a
     * proposal is pending, so a store may return {@code proposal} with the claim's changes instead of
     * reading the row back (the JDBC store reads back only the two times it sets); the returned record
     * still equals what the store now holds. The default claims by id.
     *
     * @throws BudgetExceededException if the applier is over budget; nothing changes then
     */
    default ClaimResult claim(CallRecord proposal, Claim claim, BudgetCharge charge) {
        return claim(proposal.id(), claim, charge);
    }

    /**
     * Records the outcome of a claimed proposal: an {@code APPLYING} call becomes {@code APPLIED} with
     * its result, {@code FAILED} with its error, or {@code STALE} (its precondition no longer held, nothing
     * ran) with what changed, and {@code completedAt} is set. An outcome that
     * arrives after the call was marked {@code INTERRUPTED} still replaces that status (the outcome is
     * the truth; in doubt was a guess), unless an operator resolved it in the meantime.
     *
     * @return false if the call was neither applying nor interrupted; nothing changes then
     */
    boolean complete(String id, Completion completion);

    /**
     * Claims the revert of an applied call, once: stores {@code revert} (its {@code reverts} naming
     * the applied call) as {@code APPLYING} with {@code appliedAt} now and its outcome due
     * {@code outcomeWithin} later, unless a revert of that call is already stored. The revert's
     * outcome is then recorded with {@link #complete}. Of concurrent claims for one call, across every
     * instance, exactly one returns {@link ClaimResult.Status#CLAIMED}.
     *
     * @return CLAIMED with the stored revert, or NOT_PENDING with the revert stored before
     */
    ClaimResult claimRevert(CallRecord revert, Duration outcomeWithin);

    /**
     * Records that a revert undid an applied call, in one atomic step: an {@code APPLIED} call without
     * {@code revertedBy} becomes {@code REVERTED} with {@code revertedBy} set to {@code revertId}. Called
     * once the revert itself succeeded.
     *
     * @return false if the call was not applied, or already marked; nothing changes then
     */
    boolean markReverted(String id, String revertId);

    /**
     * Marks claimed calls whose outcome is overdue ({@code APPLYING} with {@code outcomeDueAt} at or
     * before now) as {@code INTERRUPTED}, setting {@code completedAt} to now, at most {@code limit} of
     * them. Never runs anything. Safe on every instance at once: each call is marked by exactly one
     * caller.
     *
     * @return the records this call marked, as they are now
     */
    List<CallRecord> interruptOverdue(int limit);

    /**
     * An operator's resolution of an {@code INTERRUPTED} call after checking the target system:
     * {@code APPLIED} (the mutation happened) or {@code FAILED} (it did not). Sets
     * {@code completedAt} to now and keeps the resolution's note, with who resolved it, in
     * {@code error}.
     *
     * @return false if the call was not interrupted (already resolved, or a late outcome arrived)
     */
    boolean resolve(String id, Resolution resolution);

    /**
     * Closes a pending (proposed and unexpired) proposal as {@code REJECTED}, {@code SUPERSEDED} or
     * {@code STALE}.
     *
     * @return false if it was no longer pending; nothing changes then
     */
    boolean close(String id, Closure closure);

    /** The record with this id. */
    Optional<CallRecord> find(String id);

    /**
     * The record with this id and the store's time ({@link #now()}) when it was read, as apply needs them
     * to tell a pending proposal from an expired one. A store that can read both in one round trip
     * overrides this; the default calls {@link #find} and then {@link #now()}.
     */
    default Optional<FoundCall> findWithTime(String id) {
        return find(id).map(record -> new FoundCall(record, now()));
    }

    /**
     * A record and the store's time of its read.
     *
     * @param record    the record
     * @param storeTime {@link #now()} at the read
     */
    record FoundCall(CallRecord record, Instant storeTime) {
        /** Checks both are present. */
        public FoundCall {
            Objects.requireNonNull(record, "record");
            Objects.requireNonNull(storeTime, "storeTime");
        }
    }

    /**
     * Records matching the query ({@link CallQuery#matches}), at most its limit: newest first by
     * (createdAt descending, id ascending), starting strictly after its cursor if it has one; the steps of
     * one execution in step order instead. Every store must honour the time bounds and the cursor so
     * that paging visits each record once (the testkit's store contract checks it).
     */
    List<CallRecord> query(CallQuery query);

    /** Proposals of a session that are pending now. */
    int countPending(String sessionId);

    /**
     * Marks at most {@code limit} proposals whose expiry passed as {@code EXPIRED} and returns them as
     * they are now (status {@code EXPIRED}, {@code completedAt} set to the store's time). Hygiene only:
     * apply rejects expired tokens whether or not this ran. Safe to run on every instance at once: a
     * proposal is expired, and returned, by exactly one caller, so each expiry is reported once across
     * all instances; a proposal decided meanwhile is never expired.
     *
     * @return the proposals this call expired (fewer than {@code limit} means none are left due);
     *         empty for a {@code limit} below 1
     */
    List<CallRecord> expireDue(int limit);

    /**
     * Deletes at most {@code limit} rows of one kind whose time is before {@code before}, oldest
     * first; see {@link Purge} for what each kind deletes and which time counts. Never deletes a
     * pending proposal or a call still applying. Safe on every instance at once, and against concurrent calls: a budget row that admits a call
     * while it is being purged is kept.
     *
     * @return how many rows this call deleted (fewer than {@code limit} means none are left)
     */
    int purge(Purge kind, Instant before, int limit);

    /**
     * Removes the session's bookkeeping (the lock row behind its pending cap) when the host's session
     * ends, if it has no pending proposal; otherwise leaves it for {@link #purge} once the session is
     * idle. Pending proposals stay decidable in the inbox either way.
     *
     * @return true if the session's row was removed
     */
    boolean endSession(String sessionId);

    /** What {@link #purge} deletes. */
    enum Purge {
        /**
         * Finished calls ({@code executed}, {@code failed}, {@code invalid}, {@code denied},
         * {@code applied}, {@code reverted}, {@code interrupted}) whose {@code completedAt} is before the cutoff: the
         * audit trail of what ran or was refused. Never a step of a run that is still running or
         * paused: its replay needs it.
         */
        FINISHED_CALLS,
        /**
         * Proposals that closed without running ({@code rejected}, {@code expired},
         * {@code superseded}, {@code stale}) whose {@code completedAt} is before the cutoff.
         */
        CLOSED_PROPOSALS,
        /**
         * Session rows of sessions with no pending proposal and no proposal created at or after the
         * cutoff.
         */
        IDLE_SESSIONS,
        /**
         * Budget rows of principals whose newest admission is before the cutoff. Only safe with a
         * cutoff older than the longest budget window: a younger cutoff forgets admissions still
         * inside a window.
         */
        IDLE_BUDGETS
    }

    /**
     * The outcome of an applied proposal.
     *
     * @param status         {@code APPLIED}, {@code FAILED} or {@code STALE}
     * @param resultJson     the redacted, size-capped result, or null
     * @param error          the redacted error message (for {@code STALE}, what changed), or null
     * @param durationMillis how long tool code ran, or null
     */
    record Completion(CallStatus status, String resultJson, String error, Long durationMillis) {
        /** Checks the components; see the class description for what each must hold. */
        public Completion {
            Objects.requireNonNull(status, "status");
            if (status != CallStatus.APPLIED && status != CallStatus.FAILED && status != CallStatus.STALE) {
                throw new IllegalArgumentException("an applied proposal completes as applied, failed or stale, not " + status);
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
     * Who claims a proposal, and how long its execution may take.
     *
     * @param appliedBy      the principal applying (and whose budget is charged)
     * @param decidedBy      the operator approving from the inbox, or null for a token apply
     * @param decisionReason the operator's reason, or null
     * @param outcomeWithin  how long after the claim its outcome is due: the tool's execution timeout
     *                       plus a grace period; positive
     */
    record Claim(PrincipalRef appliedBy, PrincipalRef decidedBy, String decisionReason, Duration outcomeWithin) {
        /** Checks the components; see the class description for what each must hold. */
        public Claim {
            Objects.requireNonNull(appliedBy, "appliedBy");
            Objects.requireNonNull(outcomeWithin, "outcomeWithin");
            if (outcomeWithin.isNegative() || outcomeWithin.isZero()) {
                throw new IllegalArgumentException("outcomeWithin must be positive, got " + outcomeWithin);
            }
        }
    }

    /**
     * An operator's resolution of an interrupted call.
     *
     * @param outcome    {@code APPLIED} (the mutation happened) or {@code FAILED} (it did not)
     * @param resolvedBy the operator
     * @param note       what the operator found, or null
     */
    record Resolution(CallStatus outcome, PrincipalRef resolvedBy, String note) {
        /** Checks the components; see the class description for what each must hold. */
        public Resolution {
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(resolvedBy, "resolvedBy");
            if (outcome != CallStatus.APPLIED && outcome != CallStatus.FAILED) {
                throw new IllegalArgumentException("an interrupted call resolves as applied or failed, not " + outcome);
            }
        }

        /** The text kept in the record's {@code error}: who resolved it, how, and the note. */
        public String describe() {
            return "interrupted; resolved by " + resolvedBy + " as " + (outcome == CallStatus.APPLIED ? "applied" : "not applied")
                    + (note == null || note.isBlank() ? "" : ": " + note);
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
            /** The proposal is no longer proposed (applying, applied, rejected, superseded, ...). */
            NOT_PENDING,
            /**
             * The proposal is pending, but another call with the same precondition is applying: nothing
             * changed (see {@link CallStore#claim(String, Claim, BudgetCharge)}).
             */
            CONFLICT,
            /** No such record. */
            NOT_FOUND
        }
    }

    /**
     * How a pending proposal is closed without running.
     *
     * @param status       {@code REJECTED}, {@code SUPERSEDED} or {@code STALE}
     * @param decidedBy    the operator
     * @param reason       the operator's reason, or null
     * @param supersededBy the replacing proposal, for {@code SUPERSEDED}
     */
    record Closure(CallStatus status, PrincipalRef decidedBy, String reason, String supersededBy) {
        /** Checks the components; see the class description for what each must hold. */
        public Closure {
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(decidedBy, "decidedBy");
            if (status != CallStatus.REJECTED && status != CallStatus.SUPERSEDED && status != CallStatus.STALE) {
                throw new IllegalArgumentException("a proposal closes as rejected, superseded or stale, not " + status);
            }
        }
    }
}
