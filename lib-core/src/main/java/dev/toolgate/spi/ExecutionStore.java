package dev.toolgate.spi;

import dev.toolgate.audit.ExecutionQuery;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The runs of durable executions. A run's steps are call records in the {@link CallStore} (each
 * carries its execution id and step number, unique per run); this store keeps the run itself: its
 * program, input, principal, status and attempt. Every method is one atomic step, with the store's
 * clock; a status change is a guarded update that exactly one of any number of concurrent callers
 * wins, across every instance sharing the store.
 *
 * <p>The {@code attempt} fences runners: each replay or takeover increments it, and a runner can
 * only pause or finish the attempt it holds, so a runner that lost its run (another instance took it
 * over) can change nothing.
 */
public interface ExecutionStore {

    /**
     * Stores a new run ({@code RUNNING}, attempt 1), setting {@code createdAt} and {@code updatedAt}.
     *
     * @return the stored run
     */
    ExecutionRecord create(ExecutionRecord run);

    /** The run with this id. */
    Optional<ExecutionRecord> find(String id);

    /** Runs matching the query, newest first. */
    List<ExecutionRecord> query(ExecutionQuery query);

    /**
     * {@code RUNNING} at {@code attempt} to {@code PAUSED} at step {@code seq}, whose proposal is
     * {@code callId}.
     *
     * @return false if the run was not running at that attempt; nothing changes then
     */
    boolean pause(String id, int attempt, int seq, String callId);

    /**
     * {@code PAUSED} on the proposal {@code callId} to {@code RUNNING} at the next attempt: the
     * caller won that proposal's claim and replays the run.
     *
     * @return the run as it is now, or empty if it was not paused on that proposal
     */
    Optional<ExecutionRecord> resume(String id, String callId);

    /**
     * {@code RUNNING} at {@code attempt} to the next attempt, for a runner that takes over a run whose
     * instance stopped.
     *
     * @return the run as it is now, or empty if it was not running at that attempt
     */
    Optional<ExecutionRecord> takeOver(String id, int attempt);

    /**
     * {@code RUNNING} at {@code attempt} to a finished status ({@code COMPLETED}, {@code FAILED},
     * {@code INTERRUPTED}, or {@code REJECTED} or {@code EXPIRED} when a replay finds its pending step
     * closed) with its result or error and logs; sets {@code completedAt}.
     *
     * @return false if the run was not running at that attempt; nothing changes then
     */
    boolean finish(String id, int attempt, ExecutionStatus status, String resultJson, String error, List<String> logs);

    /**
     * A run in one of {@code from} to {@code to} (for example a paused run to {@code REJECTED},
     * {@code EXPIRED} or {@code INTERRUPTED}, or a finished run to {@code ROLLED_BACK}), recording
     * {@code error} if given; sets {@code completedAt} if it was not set.
     *
     * @return false if the run was in none of {@code from}; nothing changes then
     */
    boolean close(String id, Set<ExecutionStatus> from, ExecutionStatus to, String error);

    /**
     * Runs still {@code RUNNING} whose last change, and every step's last activity, is before
     * {@code quietSince}, and none of whose steps is still applying: their instance stopped, or
     * stalled, between steps. At most {@code limit}, oldest first.
     */
    List<ExecutionRecord> stalled(Instant quietSince, int limit);

    /**
     * Runs {@code PAUSED} whose pending step is no longer pending (its proposal expired, or was closed
     * or claimed without the run moving on), at most {@code limit}.
     */
    List<ExecutionRecord> pausedOnClosedSteps(int limit);

    /**
     * Deletes at most {@code limit} finished runs (every status but running and paused) whose
     * {@code completedAt} is before {@code before}, oldest first.
     *
     * @return how many runs were deleted
     */
    int purge(Instant before, int limit);
}
