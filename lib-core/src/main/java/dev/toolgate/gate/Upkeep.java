package dev.toolgate.gate;

import dev.toolgate.call.PurgeResult;
import dev.toolgate.call.Retention;
import dev.toolgate.call.SweepResult;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.spi.CallStore.Purge;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sweeper's work, safe on every instance at once: expire proposals past their time, report claimed
 * calls whose outcome never arrived as interrupted (never re-running them), and purge what the
 * retention no longer keeps, in small batches. Apply never depends on any of it.
 */
final class Upkeep {

    private static final Logger LOG = LoggerFactory.getLogger(StandardEngine.class);
    /** Rows one store statement marks or deletes. */
    static final int BATCH = 500;
    /** Batches of one kind a scheduled sweep takes, so one sweep stays short; the next sweep goes on. */
    static final int BATCHES_PER_SWEEP = 20;
    /** Purging runs at most this often (by the store's clock) unless the last purge left work behind. */
    static final Duration PURGE_EVERY = Duration.ofMinutes(5);

    private final Steps steps;
    /** When this engine's sweep last purged, and whether it stopped at its batch limit. */
    private volatile Instant lastPurge;
    private volatile boolean purgeUnfinished;

    Upkeep(Steps steps) {
        this.steps = steps;
    }

    SweepResult sweep() {
        int expired = expireDue();
        int interrupted = interruptOverdue();
        return new SweepResult(expired, interrupted, purgeByRetention());
    }

    /**
     * Marks the proposals whose expiry passed expired, a few batches per sweep, and sends an expiry
     * notice and listener event for each, by whichever instance expired it: the store returns each
     * expired proposal to exactly one sweeper, so an expiry is reported once across all instances.
     */
    private int expireDue() {
        long start = System.nanoTime();
        int total = 0;
        for (int batch = 0; batch < BATCHES_PER_SWEEP; batch++) {
            List<CallRecord> expired = steps.calls.expireDue(BATCH);
            for (CallRecord record : expired) {
                steps.known.forget(record.id());
                steps.events.publishExpired(record, start);
            }
            total += expired.size();
            if (expired.size() < BATCH) {
                break;
            }
        }
        if (total > 0) {
            LOG.debug("Expired {} proposal(s)", total);
        }
        return total;
    }

    /** A few batches of each kind the retention no longer keeps, at most every {@link #PURGE_EVERY}. */
    private PurgeResult purgeByRetention() {
        Instant now = steps.calls.now();
        Instant last = lastPurge;
        if (last != null && !purgeUnfinished && now.isBefore(last.plus(PURGE_EVERY))) {
            return PurgeResult.NONE;
        }
        Retention retention = steps.settings.retention();
        PurgeResult purged = new PurgeResult(
                purge(Purge.FINISHED_CALLS, cutoff(now, retention.finishedCalls()), BATCHES_PER_SWEEP),
                purge(Purge.CLOSED_PROPOSALS, cutoff(now, retention.closedProposals()), BATCHES_PER_SWEEP),
                purge(Purge.IDLE_SESSIONS, cutoff(now, retention.idleSessions()), BATCHES_PER_SWEEP),
                purge(Purge.IDLE_BUDGETS, cutoff(now, retention.idleBudgets()), BATCHES_PER_SWEEP), 0);
        int limit = BATCH * BATCHES_PER_SWEEP;
        purgeUnfinished = purged.finishedCalls() >= limit || purged.closedProposals() >= limit
                || purged.idleSessions() >= limit || purged.idleBudgets() >= limit;
        lastPurge = now;
        if (purged.total() > 0) {
            LOG.debug("Purged {}", purged);
        }
        return purged;
    }

    /**
     * Marks every overdue claimed call interrupted and tells the listeners, one event per call, by
     * whichever instance marked it.
     */
    private int interruptOverdue() {
        int total = 0;
        for (int batch = 0; batch < BATCHES_PER_SWEEP; batch++) {
            List<CallRecord> marked = steps.calls.interruptOverdue(BATCH);
            for (CallRecord record : marked) {
                LOG.warn("Call {} of {} (applied by {} at {}) had no outcome by {}: marked interrupted (in doubt). "
                                + "The mutation may or may not have happened; it is not re-run. An operator resolves it.",
                        record.id(), record.toolName(), record.appliedBy(), record.appliedAt(), record.outcomeDueAt());
                Duration overdue = record.appliedAt() == null || record.completedAt() == null ? Duration.ZERO
                        : Duration.between(record.appliedAt(), record.completedAt());
                steps.events.publish(record, CallStatus.INTERRUPTED,
                        record.appliedBy() != null ? record.appliedBy() : record.principal(), overdue);
            }
            total += marked.size();
            if (marked.size() < BATCH) {
                break;
            }
        }
        return total;
    }

    /**
     * Purges, to completion, finished calls, closed proposals and idle sessions older than
     * {@code before}; budget rows only once idle for the retention's budget age as well, since a
     * younger cutoff would forget admissions still inside a window.
     */
    PurgeResult purge(Instant before) {
        Objects.requireNonNull(before, "before");
        Instant now = steps.calls.now();
        Instant budgets = cutoff(now, steps.settings.retention().idleBudgets());
        return new PurgeResult(
                purge(Purge.FINISHED_CALLS, before, Integer.MAX_VALUE),
                purge(Purge.CLOSED_PROPOSALS, before, Integer.MAX_VALUE),
                purge(Purge.IDLE_SESSIONS, before, Integer.MAX_VALUE),
                budgets == null ? 0 : purge(Purge.IDLE_BUDGETS, before.isBefore(budgets) ? before : budgets, Integer.MAX_VALUE),
                0);
    }

    boolean endSession(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        return steps.calls.endSession(sessionId);
    }

    private int purge(Purge kind, Instant before, int batches) {
        if (before == null) {
            return 0;
        }
        int total = 0;
        for (int batch = 0; batch < batches; batch++) {
            int deleted = steps.calls.purge(kind, before, BATCH);
            total += deleted;
            if (deleted < BATCH) {
                break;
            }
        }
        return total;
    }

    private static Instant cutoff(Instant now, Duration age) {
        return age == null ? null : now.minus(age);
    }
}
