package dev.toolgate.spi;

import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The bound on finished calls of {@link InMemoryStore}: the line of calls that reached a status they
 * never leave, whose oldest beyond the cap are evicted, and the steps of runs still active, parked
 * until their run ends.
 */
final class InMemoryEviction {

    /**
     * What the cap may evict: every status a call never leaves (an applied call may still become
     * reverted; evicted first, it simply is not there to mark). Not proposed, applying, or interrupted (in doubt: an operator or a late outcome
     * settles it).
     */
    private static final Set<CallStatus> EVICTABLE = EnumSet.complementOf(
            EnumSet.of(CallStatus.PROPOSED, CallStatus.APPLYING, CallStatus.INTERRUPTED));

    private final InMemoryCallIndex index;
    private final InMemoryExecutions runs;
    /** Ids of evictable calls, in the order they became so; the oldest leave beyond the cap. */
    private final InMemoryFinishedLine finished;
    /**
     * Finished steps the line handed out while their run was running or paused, by run id: kept
     * until the run ends, then back in the line. Guarded by its own monitor, under which a run's
     * activity is checked, so a step never parks after its run's steps were released.
     */
    private final Map<String, List<String>> parked = new HashMap<>();

    InMemoryEviction(InMemoryCallIndex index, InMemoryExecutions runs, int maxFinished) {
        this.index = index;
        this.runs = runs;
        this.finished = new InMemoryFinishedLine(maxFinished);
    }

    /** A call has reached a status it never leaves: it joins the line, and the oldest beyond the cap leave. */
    void finished(String id) {
        finished.add(id, this::evict);
    }

    private void evict(String id) {
        CallRecord r = index.records.get(id);
        if (r == null) {
            return; // purged meanwhile
        }
        if (r.executionId() != null) {
            synchronized (parked) {
                if (runs.active(r.executionId())) {
                    parked.computeIfAbsent(r.executionId(), k -> new ArrayList<>()).add(id);
                    return;
                }
            }
        }
        CallRecord[] removed = {null};
        index.records.computeIfPresent(id, (key, current) -> {
            if (!EVICTABLE.contains(current.status())) {
                return current;
            }
            removed[0] = current;
            return null;
        });
        if (removed[0] != null) {
            index.forgetIndexes(removed[0]);
        }
    }

    /** A run stopped running or paused (its status changed before this call): its parked steps rejoin the line. */
    void runEnded(String executionId) {
        List<String> ids;
        synchronized (parked) {
            ids = parked.remove(executionId);
        }
        if (ids != null) {
            ids.forEach(this::finished);
        }
    }

    /** Finished steps parked until their run ends. */
    int parkedSteps() {
        synchronized (parked) {
            return parked.values().stream().mapToInt(List::size).sum();
        }
    }

    /** Ids in the line of finished calls. */
    int size() {
        return finished.size();
    }
}
