package dev.toolgate.spi;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetCharge;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The calls part of {@link InMemoryStore}: records, proposals, claims and outcomes, and the purge of
 * finished calls and closed proposals. The budget, the sessions, the records' indexes and the bound on
 * finished calls are its collaborators.
 */
final class InMemoryCalls implements CallStore {

    private static final Set<CallStatus> FINISHED = Set.of(CallStatus.EXECUTED, CallStatus.FAILED, CallStatus.INVALID,
            CallStatus.DENIED, CallStatus.APPLIED, CallStatus.REVERTED, CallStatus.INTERRUPTED);
    private static final Set<CallStatus> RECORDABLE = Set.of(CallStatus.EXECUTED, CallStatus.FAILED, CallStatus.INVALID,
            CallStatus.DENIED);
    private static final Set<CallStatus> CLOSED = Set.of(CallStatus.REJECTED, CallStatus.EXPIRED, CallStatus.SUPERSEDED,
            CallStatus.STALE);

    private final Clock clock;
    private final InMemoryCallIndex index;
    /** The call records, by id (the index's). */
    private final Map<String, CallRecord> records;
    private final InMemoryBudget budget;
    private final InMemorySessions sessions;
    private final InMemoryEviction eviction;
    private final InMemoryExecutions runs;
    /** Ids of claimed calls awaiting their outcome, for the interrupt sweep. */
    private final Set<String> applying = ConcurrentHashMap.newKeySet();
    /** The call applying now for each precondition: one at a time (see {@link CallStore#claim}). */
    private final Map<String, String> applyingStates = new ConcurrentHashMap<>();

    InMemoryCalls(Clock clock, InMemoryExecutions runs, int maxFinished) {
        this.clock = clock;
        this.runs = runs;
        this.index = new InMemoryCallIndex();
        this.records = index.records;
        this.budget = new InMemoryBudget(clock);
        this.sessions = new InMemorySessions(clock, records);
        this.eviction = new InMemoryEviction(index, runs, maxFinished);
    }

    /** A call has reached a status it never leaves: it joins the line, and the oldest beyond the cap leave. */
    private void finished(String id) {
        eviction.finished(id);
    }

    /** A run stopped running or paused (its status changed before this call): its parked steps rejoin the line. */
    void runEnded(String executionId) {
        eviction.runEnded(executionId);
    }

    /** The records and their indexes, for the store's sizes. */
    InMemoryCallIndex index() {
        return index;
    }

    InMemoryBudget budget() {
        return budget;
    }

    InMemorySessions sessions() {
        return sessions;
    }

    InMemoryEviction eviction() {
        return eviction;
    }

    /** Ids of calls applying now. */
    int applyingSize() {
        return applying.size();
    }

    @Override
    public Instant now() {
        return clock.instant();
    }

    @Override
    public Instant admit(BudgetCharge charge) {
        return budget.admit(charge);
    }

    @Override
    public CallRecord record(CallRecord call) {
        if (!RECORDABLE.contains(call.status())) {
            throw new IllegalArgumentException("record takes a finished call, not " + call.status());
        }
        Instant now = now();
        Instant created = call.createdAt() == null ? now : call.createdAt();
        CallRecord stored = call.toBuilder().createdAt(created).completedAt(now.isBefore(created) ? created : now).build();
        index.insert(stored);
        finished(stored.id());
        return stored;
    }

    @Override
    public ClaimResult claimRevert(CallRecord revert, Duration outcomeWithin) {
        Objects.requireNonNull(revert.reverts(), "revert.reverts");
        synchronized (index.reverts) {
            String existing = index.reverts.get(revert.reverts());
            if (existing != null) {
                return new ClaimResult(ClaimResult.Status.NOT_PENDING, records.get(existing));
            }
            Instant now = now();
            CallRecord stored = revert.toBuilder().status(CallStatus.APPLYING).createdAt(now).appliedAt(now)
                    .outcomeDueAt(now.plus(outcomeWithin)).build();
            index.insert(stored);
            index.reverts.put(revert.reverts(), stored.id());
            applying.add(stored.id());
            return new ClaimResult(ClaimResult.Status.CLAIMED, stored);
        }
    }

    @Override
    public boolean markReverted(String id, String revertId) {
        boolean[] done = {false};
        records.computeIfPresent(id, (key, r) -> {
            if (r.status() != CallStatus.APPLIED || r.revertedBy() != null) {
                return r;
            }
            done[0] = true;
            return r.toBuilder().status(CallStatus.REVERTED).revertedBy(revertId).build();
        });
        return done[0];
    }

    @Override
    public boolean complete(String id, Completion completion) {
        Instant now = now();
        boolean[] done = {false};
        records.computeIfPresent(id, (key, r) -> {
            if (r.status() != CallStatus.APPLYING && r.status() != CallStatus.INTERRUPTED) {
                return r;
            }
            done[0] = true;
            releaseState(r);
            return r.toBuilder().status(completion.status()).resultJson(completion.resultJson())
                    .error(completion.error()).durationMillis(completion.durationMillis()).completedAt(now).build();
        });
        applying.remove(id);
        if (done[0]) {
            finished(id);
        }
        return done[0];
    }

    @Override
    public List<CallRecord> interruptOverdue(int limit) {
        Instant now = now();
        List<CallRecord> marked = new java.util.ArrayList<>();
        for (String id : applying) {
            if (marked.size() >= limit) {
                break;
            }
            CallRecord[] after = {null};
            records.computeIfPresent(id, (key, r) -> {
                if (r.status() != CallStatus.APPLYING || r.outcomeDueAt().isAfter(now)) {
                    return r;
                }
                after[0] = r.toBuilder().status(CallStatus.INTERRUPTED).completedAt(now).build();
                releaseState(r);
                return after[0];
            });
            if (after[0] != null) {
                applying.remove(id);
                marked.add(after[0]);
            }
        }
        return marked;
    }

    @Override
    public boolean resolve(String id, Resolution resolution) {
        Instant now = now();
        boolean[] done = {false};
        records.computeIfPresent(id, (key, r) -> {
            if (r.status() != CallStatus.INTERRUPTED) {
                return r;
            }
            done[0] = true;
            return r.toBuilder().status(resolution.outcome()).error(resolution.describe()).completedAt(now).build();
        });
        if (done[0]) {
            finished(id);
        }
        return done[0];
    }

    @Override
    public ProposeResult propose(CallRecord proposal, Duration ttl, int maxPendingPerSession) {
        if (proposal.status() != CallStatus.PROPOSED || proposal.tokenDigest() == null || proposal.payloadJson() == null) {
            throw new IllegalArgumentException("propose takes a PROPOSED record with its payload and token digest");
        }
        return sessions.propose(proposal.sessionId(), maxPendingPerSession, now -> {
            CallRecord stored = proposal.toBuilder().createdAt(proposal.createdAt() == null ? now : proposal.createdAt())
                    .expiresAt(now.plus(ttl)).build();
            index.insert(stored);
            return stored;
        });
    }

    @Override
    public ClaimResult claim(String id, Claim claim, BudgetCharge charge) {
        if (!records.containsKey(id)) {
            return new ClaimResult(ClaimResult.Status.NOT_FOUND, null);
        }
        if (charge == null) {
            return claimRecord(id, claim, null);
        }
        return budget.claim(charge, admit -> claimRecord(id, claim, admit));
    }

    private ClaimResult claimRecord(String id, Claim claim, java.util.function.Consumer<Instant> admit) {
        Instant now = now();
        ClaimResult.Status[] status = {ClaimResult.Status.NOT_FOUND};
        CallRecord after = records.computeIfPresent(id, (key, r) -> {
            if (r.status() == CallStatus.EXPIRED || (r.status() == CallStatus.PROPOSED && !r.pendingAt(now))) {
                status[0] = ClaimResult.Status.EXPIRED;
                return r;
            }
            if (r.status() != CallStatus.PROPOSED) {
                status[0] = ClaimResult.Status.NOT_PENDING;
                return r;
            }
            if (r.precondition() != null && applyingStates.putIfAbsent(r.precondition(), id) != null) {
                status[0] = ClaimResult.Status.CONFLICT;
                return r;
            }
            if (admit != null) {
                try {
                    admit.accept(now); // throws when over budget: the record stays unchanged
                } catch (RuntimeException overBudget) {
                    releaseState(r);
                    throw overBudget;
                }
            }
            status[0] = ClaimResult.Status.CLAIMED;
            return r.toBuilder().status(CallStatus.APPLYING).appliedBy(claim.appliedBy()).appliedAt(now)
                    .outcomeDueAt(now.plus(claim.outcomeWithin()))
                    .decidedBy(claim.decidedBy()).decisionReason(claim.decisionReason()).build();
        });
        if (status[0] == ClaimResult.Status.CLAIMED) {
            applying.add(id);
        }
        return new ClaimResult(status[0], after);
    }

    /** {@code r} no longer applies: another call with its precondition may be claimed. */
    private void releaseState(CallRecord r) {
        if (r.precondition() != null) {
            applyingStates.remove(r.precondition(), r.id());
        }
    }

    @Override
    public boolean close(String id, Closure closure) {
        Instant now = now();
        boolean[] done = {false};
        records.computeIfPresent(id, (key, r) -> {
            if (!r.pendingAt(now)) {
                return r;
            }
            done[0] = true;
            return r.toBuilder().status(closure.status()).decidedBy(closure.decidedBy())
                    .decisionReason(closure.reason()).supersededBy(closure.supersededBy()).completedAt(now).build();
        });
        if (done[0]) {
            finished(id);
        }
        return done[0];
    }

    @Override
    public Optional<CallRecord> find(String id) {
        return index.find(id);
    }

    @Override
    public List<CallRecord> query(CallQuery query) {
        return index.query(query);
    }

    @Override
    public int countPending(String sessionId) {
        return sessions.countPending(sessionId);
    }

    @Override
    public List<CallRecord> expireDue(int limit) {
        Instant now = now();
        List<CallRecord> expired = new java.util.ArrayList<>();
        for (String id : records.keySet()) {
            if (expired.size() >= limit) {
                break;
            }
            CallRecord[] after = {null};
            records.computeIfPresent(id, (key, r) -> {
                if (r.status() != CallStatus.PROPOSED || r.expiresAt() == null || r.expiresAt().isAfter(now)) {
                    return r;
                }
                after[0] = r.toBuilder().status(CallStatus.EXPIRED).completedAt(now).build();
                return after[0];
            });
            if (after[0] != null) { // changed under the record's lock: no other caller expires it
                expired.add(after[0]);
                finished(id);
            }
        }
        return expired;
    }

    @Override
    public int purge(Purge kind, Instant before, int limit) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(before, "before");
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        return switch (kind) {
            case FINISHED_CALLS -> purgeCalls(FINISHED, before, limit);
            case CLOSED_PROPOSALS -> purgeCalls(CLOSED, before, limit);
            case IDLE_SESSIONS -> sessions.purge(before, limit);
            case IDLE_BUDGETS -> budget.purge(before, limit);
        };
    }

    private int purgeCalls(Set<CallStatus> statuses, Instant before, int limit) {
        List<CallRecord> due = records.values().stream()
                .filter(r -> statuses.contains(r.status()) && r.completedAt() != null && r.completedAt().isBefore(before))
                .filter(r -> r.executionId() == null || !runs.active(r.executionId()))
                .sorted(Comparator.comparing(CallRecord::completedAt))
                .limit(limit)
                .toList();
        int purged = 0;
        for (CallRecord r : due) {
            if (records.remove(r.id(), r)) { // unchanged since read: a late outcome keeps its row
                index.forgetIndexes(r); // its id may stay in the line of finished calls: skipped when it comes up
                purged++;
            }
        }
        return purged;
    }

    @Override
    public boolean endSession(String sessionId) {
        return sessions.endSession(sessionId);
    }
}
