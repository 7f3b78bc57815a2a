package dev.toolgate.spi;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionQuery;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The durable executions part of {@link InMemoryStore}: runs, their state moves, and the line of
 * finished runs that keeps their number bounded. A run that ends releases its steps to the calls'
 * eviction line.
 */
final class InMemoryExecutions implements ExecutionStore {

    private static final Set<ExecutionStatus> ACTIVE = Set.of(ExecutionStatus.RUNNING, ExecutionStatus.PAUSED);

    private final Clock clock;
    private final Map<String, ExecutionRecord> runs = new ConcurrentHashMap<>();
    /** Ids of finished runs, in the order they finished; the oldest leave beyond the cap. */
    private final InMemoryFinishedLine finished;
    private InMemoryCalls calls;

    InMemoryExecutions(Clock clock, int maxFinished) {
        this.clock = clock;
        this.finished = new InMemoryFinishedLine(maxFinished);
    }

    /** Set once by the store, right after both exist: each needs the other. */
    void calls(InMemoryCalls calls) {
        this.calls = calls;
    }

    /** Runs stored. */
    int size() {
        return runs.size();
    }

    /** Ids in the line of finished runs. */
    int finishedLineSize() {
        return finished.size();
    }

    private void evict(String id) {
        runs.computeIfPresent(id, (key, run) -> ACTIVE.contains(run.status()) ? run : null);
    }

    boolean active(String id) {
        ExecutionRecord run = runs.get(id);
        return run != null && ACTIVE.contains(run.status());
    }

    @Override
    public ExecutionRecord create(ExecutionRecord run) {
        if (run.status() != ExecutionStatus.RUNNING || run.attempt() != 1) {
            throw new IllegalArgumentException("a new run is running at attempt 1, not " + run.status() + " at " + run.attempt());
        }
        Instant now = clock.instant();
        ExecutionRecord stored = run.at(now, now);
        if (runs.putIfAbsent(run.id(), stored) != null) {
            throw new IllegalStateException("duplicate execution id " + run.id());
        }
        return stored;
    }

    @Override
    public Optional<ExecutionRecord> find(String id) {
        return id == null ? Optional.empty() : Optional.ofNullable(runs.get(id));
    }

    @Override
    public List<ExecutionRecord> query(ExecutionQuery query) {
        return runs.values().stream().filter(query::matches)
                .sorted(Comparator.comparing(ExecutionRecord::createdAt).reversed().thenComparing(ExecutionRecord::id))
                .limit(query.limit()).toList();
    }

    /** Applies {@code change} to the run if {@code guard} holds, atomically; the changed run, or null. */
    private ExecutionRecord change(String id, java.util.function.Predicate<ExecutionRecord> guard,
                                   java.util.function.UnaryOperator<ExecutionRecord> change) {
        ExecutionRecord[] before = {null};
        ExecutionRecord[] after = {null};
        runs.computeIfPresent(id, (key, run) -> {
            if (!guard.test(run)) {
                return run;
            }
            before[0] = run;
            after[0] = change.apply(run);
            return after[0];
        });
        if (after[0] != null && ACTIVE.contains(before[0].status()) && !ACTIVE.contains(after[0].status())) {
            // the run ended: its steps may go now, and it joins the line of finished runs
            calls.runEnded(id);
            finished.add(id, this::evict);
        }
        return after[0];
    }

    private ExecutionRecord touched(ExecutionRecord run) {
        return run.at(run.createdAt(), clock.instant());
    }

    @Override
    public boolean pause(String id, int attempt, int seq, String callId) {
        return change(id, r -> r.status() == ExecutionStatus.RUNNING && r.attempt() == attempt,
                r -> touched(r.withState(ExecutionStatus.PAUSED, attempt, seq, callId))) != null;
    }

    @Override
    public Optional<ExecutionRecord> resume(String id, String callId) {
        return Optional.ofNullable(change(id, r -> r.status() == ExecutionStatus.PAUSED && callId.equals(r.pendingCallId()),
                r -> touched(r.withState(ExecutionStatus.RUNNING, r.attempt() + 1, null, null))));
    }

    @Override
    public Optional<ExecutionRecord> takeOver(String id, int attempt) {
        return Optional.ofNullable(change(id, r -> r.status() == ExecutionStatus.RUNNING && r.attempt() == attempt,
                r -> touched(r.withState(ExecutionStatus.RUNNING, attempt + 1, null, null))));
    }

    @Override
    public boolean finish(String id, int attempt, ExecutionStatus status, String resultJson, String error,
                          List<String> logs) {
        if (status == ExecutionStatus.RUNNING || status == ExecutionStatus.PAUSED || status == ExecutionStatus.ROLLED_BACK) {
            throw new IllegalArgumentException("a run finishes as completed, failed, interrupted, rejected or expired, not "
                    + status);
        }
        return change(id, r -> r.status() == ExecutionStatus.RUNNING && r.attempt() == attempt,
                r -> r.finishedAs(status, resultJson, error, logs, clock.instant())) != null;
    }

    @Override
    public boolean close(String id, Set<ExecutionStatus> from, ExecutionStatus to, String error) {
        Instant now = clock.instant();
        return change(id, r -> from.contains(r.status()), r -> {
            ExecutionRecord closed = r.finishedAs(to, r.resultJson(), error != null ? error : r.error(), r.logs(),
                    r.completedAt() != null ? r.completedAt() : now);
            return closed.at(closed.createdAt(), now);
        }) != null;
    }

    @Override
    public List<ExecutionRecord> stalled(Instant quietSince, int limit) {
        return runs.values().stream()
                .filter(r -> r.status() == ExecutionStatus.RUNNING && r.updatedAt().isBefore(quietSince))
                .filter(r -> calls.query(CallQuery.latest(CallQuery.MAX_LIMIT).execution(r.id())).stream()
                        .noneMatch(step -> step.status() == CallStatus.APPLYING || !lastActivity(step).isBefore(quietSince)))
                .sorted(Comparator.comparing(ExecutionRecord::updatedAt))
                .limit(limit).toList();
    }

    private static Instant lastActivity(CallRecord step) {
        Instant last = step.createdAt();
        for (Instant t : new Instant[] {step.appliedAt(), step.completedAt()}) {
            if (t != null && t.isAfter(last)) {
                last = t;
            }
        }
        return last;
    }

    @Override
    public List<ExecutionRecord> pausedOnClosedSteps(int limit) {
        Instant now = clock.instant();
        return runs.values().stream()
                .filter(r -> r.status() == ExecutionStatus.PAUSED)
                .filter(r -> calls.find(r.pendingCallId()).map(p -> !p.pendingAt(now)).orElse(true))
                .limit(limit).toList();
    }

    @Override
    public int purge(Instant before, int limit) {
        List<ExecutionRecord> due = runs.values().stream()
                .filter(r -> !ACTIVE.contains(r.status()) && r.completedAt() != null && r.completedAt().isBefore(before))
                .sorted(Comparator.comparing(ExecutionRecord::completedAt))
                .limit(limit).toList();
        int purged = 0;
        for (ExecutionRecord run : due) {
            if (runs.remove(run.id(), run)) {
                purged++;
            }
        }
        return purged;
    }
}
