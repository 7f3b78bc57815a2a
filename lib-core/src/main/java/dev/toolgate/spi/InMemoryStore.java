package dev.toolgate.spi;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionQuery;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.policy.ModeOverride;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PolicyView;
import dev.toolgate.policy.ToolReview;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Stores everything in this process's memory. Exact under concurrency within one JVM (the budget never
 * admits more than its cap in any window; a proposal is claimed once), but <b>single-process
 * only</b>: several instances of a host each using their own in-memory store would each admit the
 * full budget and could not apply each other's tokens. Records are kept until they are
 * {@linkplain CallStore#purge purged} (the gate's retention does this) or the store is discarded. Use
 * it for tests, demos and single-instance hosts; use {@code toolgate-jdbc} otherwise.
 *
 * <p>Time comes from the {@link Clock} given at construction (the system clock by default).
 */
public final class InMemoryStore implements ToolgateStore {

    private final Calls calls;
    private final Policies policies;
    private final Runs runs;

    /** A store on the system clock. */
    public InMemoryStore() {
        this(Clock.systemUTC());
    }

    /** A store on {@code clock}; tests pass a controllable clock. */
    public InMemoryStore(Clock clock) {
        this.runs = new Runs(Objects.requireNonNull(clock, "clock"));
        this.calls = new Calls(clock, runs);
        this.runs.calls = calls;
        this.policies = new Policies(clock);
    }

    @Override
    public CallStore calls() {
        return calls;
    }

    @Override
    public PolicyStore policies() {
        return policies;
    }

    @Override
    public ExecutionStore executions() {
        return runs;
    }

    @Override
    public void close() {
        // nothing to release
    }

    @Override
    public String toString() {
        return "InMemoryStore";
    }

    /**
     * Admission timestamps of one principal, guarded by its own monitor. A purged ledger is
     * {@linkplain #retired retired} under that monitor, so an admission that found it before it left the
     * map starts over on its successor instead of writing into a ledger nobody reads.
     */
    private static final class Ledger {
        private final Deque<Instant> admitted = new ArrayDeque<>();
        private boolean retired;

        /** Admits one call at {@code now} or throws; caller holds this ledger's monitor. */
        void admit(BudgetCharge charge, Instant now) {
            Instant windowStart = now.minus(charge.limit().window());
            while (!admitted.isEmpty() && !admitted.peekFirst().isAfter(windowStart)) {
                admitted.removeFirst();
            }
            if (admitted.size() >= charge.limit().calls()) {
                // the oldest admission still in the window leaves it at oldest + window
                Duration retryAfter = Duration.between(now, admitted.peekFirst().plus(charge.limit().window()));
                throw new BudgetExceededException(charge.principalKey(), charge.limit(), retryAfter);
            }
            admitted.addLast(now);
        }

        /** Caller holds the monitor. */
        boolean idleBefore(Instant cutoff) {
            return admitted.isEmpty() || admitted.peekLast().isBefore(cutoff);
        }
    }

    /** A session's pending proposals (the pending cap) and when it last proposed; retired like a ledger. */
    private static final class Session {
        private final Set<String> pending = new java.util.HashSet<>();
        private Instant lastProposedAt;
        private boolean retired;
    }

    private static final class Calls implements CallStore {

        private static final Set<CallStatus> FINISHED = Set.of(CallStatus.EXECUTED, CallStatus.FAILED, CallStatus.INVALID,
                CallStatus.DENIED, CallStatus.APPLIED, CallStatus.INTERRUPTED);
        private static final Set<CallStatus> RECORDABLE = Set.of(CallStatus.EXECUTED, CallStatus.FAILED, CallStatus.INVALID,
                CallStatus.DENIED);
        private static final Set<CallStatus> CLOSED = Set.of(CallStatus.REJECTED, CallStatus.EXPIRED, CallStatus.SUPERSEDED);

        private final Clock clock;
        private final Map<String, CallRecord> records = new ConcurrentHashMap<>();
        private final Map<String, Ledger> ledgers = new ConcurrentHashMap<>();
        private final Map<String, Session> sessions = new ConcurrentHashMap<>();
        /** Ids of claimed calls awaiting their outcome, for the interrupt sweep. */
        private final Set<String> applying = ConcurrentHashMap.newKeySet();
        /** Newest first by creation time, then id, for queries. */
        private final ConcurrentSkipListMap<String, String> order = new ConcurrentSkipListMap<>();
        /** The call id of each logged step, by execution id and seq: a step is logged once. */
        private final Map<String, String> steps = new ConcurrentHashMap<>();
        /** The revert of each reverted call, by the reverted call's id: a call is reverted once. */
        private final Map<String, String> reverts = new ConcurrentHashMap<>();
        private final Runs runs;

        Calls(Clock clock, Runs runs) {
            this.clock = clock;
            this.runs = runs;
        }

        @Override
        public Instant now() {
            return clock.instant();
        }

        @Override
        public Instant admit(BudgetCharge charge) {
            while (true) {
                Ledger ledger = ledgers.computeIfAbsent(charge.principalKey(), k -> new Ledger());
                synchronized (ledger) {
                    if (ledger.retired) {
                        continue;
                    }
                    // read the clock under the ledger's monitor so admissions enter the ledger in time order
                    Instant now = now();
                    ledger.admit(charge, now);
                    return now;
                }
            }
        }

        @Override
        public CallRecord record(CallRecord call) {
            if (!RECORDABLE.contains(call.status())) {
                throw new IllegalArgumentException("record takes a finished call, not " + call.status());
            }
            Instant now = now();
            CallRecord stored = call.toBuilder().createdAt(call.createdAt() == null ? now : call.createdAt())
                    .completedAt(now).build();
            insert(stored);
            return stored;
        }

        private void insert(CallRecord record) {
            if (record.executionId() != null
                    && steps.putIfAbsent(stepKey(record.executionId(), record.stepSeq()), record.id()) != null) {
                throw new StepTakenException(record.executionId(), record.stepSeq());
            }
            if (records.putIfAbsent(record.id(), record) != null) {
                throw new IllegalStateException("duplicate call id " + record.id());
            }
            order.put(orderKey(record), record.id());
        }

        private static String stepKey(String executionId, int seq) {
            return executionId + "\u0000" + seq;
        }

        @Override
        public ClaimResult claimRevert(CallRecord revert, Duration outcomeWithin) {
            Objects.requireNonNull(revert.reverts(), "revert.reverts");
            synchronized (reverts) {
                String existing = reverts.get(revert.reverts());
                if (existing != null) {
                    return new ClaimResult(ClaimResult.Status.NOT_PENDING, records.get(existing));
                }
                Instant now = now();
                CallRecord stored = revert.toBuilder().status(CallStatus.APPLYING).createdAt(now).appliedAt(now)
                        .outcomeDueAt(now.plus(outcomeWithin)).build();
                insert(stored);
                reverts.put(revert.reverts(), stored.id());
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
                return r.toBuilder().revertedBy(revertId).build();
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
                return r.toBuilder().status(completion.status()).resultJson(completion.resultJson())
                        .error(completion.error()).durationMillis(completion.durationMillis()).completedAt(now).build();
            });
            applying.remove(id);
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
            return done[0];
        }

        @Override
        public ProposeResult propose(CallRecord proposal, Duration ttl, int maxPendingPerSession) {
            if (proposal.status() != CallStatus.PROPOSED || proposal.tokenDigest() == null || proposal.payloadJson() == null) {
                throw new IllegalArgumentException("propose takes a PROPOSED record with its payload and token digest");
            }
            String sessionId = proposal.sessionId();
            while (true) {
                Session session = sessionId == null ? null : sessions.computeIfAbsent(sessionId, k -> new Session());
                synchronized (session == null ? new Object() : session) {
                    if (session != null && session.retired) {
                        continue;
                    }
                    Instant now = now();
                    if (session != null) {
                        forgetClosed(session, now);
                        if (session.pending.size() >= maxPendingPerSession) {
                            return new ProposeResult(ProposeResult.Status.PENDING_LIMIT, null);
                        }
                    }
                    CallRecord stored = proposal.toBuilder().createdAt(proposal.createdAt() == null ? now : proposal.createdAt())
                            .expiresAt(now.plus(ttl)).build();
                    insert(stored);
                    if (session != null) {
                        session.pending.add(stored.id());
                        session.lastProposedAt = stored.createdAt();
                    }
                    return new ProposeResult(ProposeResult.Status.PROPOSED, stored);
                }
            }
        }

        @Override
        public ClaimResult claim(String id, Claim claim, BudgetCharge charge) {
            if (!records.containsKey(id)) {
                return new ClaimResult(ClaimResult.Status.NOT_FOUND, null);
            }
            if (charge == null) {
                return claimRecord(id, claim, null);
            }
            while (true) {
                Ledger ledger = ledgers.computeIfAbsent(charge.principalKey(), k -> new Ledger());
                synchronized (ledger) {
                    if (!ledger.retired) {
                        return claimRecord(id, claim, at -> ledger.admit(charge, at));
                    }
                }
            }
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
                if (admit != null) {
                    admit.accept(now); // throws when over budget: the record stays unchanged
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
            return done[0];
        }

        @Override
        public Optional<CallRecord> find(String id) {
            return id == null ? Optional.empty() : Optional.ofNullable(records.get(id));
        }

        @Override
        public List<CallRecord> query(CallQuery query) {
            if (query.executionId() != null) {
                return records.values().stream().filter(query::matches)
                        .sorted(Comparator.comparing(CallRecord::stepSeq, Comparator.nullsLast(Comparator.naturalOrder())))
                        .limit(query.limit()).toList();
            }
            return order.values().stream().map(records::get).filter(Objects::nonNull).filter(query::matches)
                    .limit(query.limit()).toList();
        }

        @Override
        public int countPending(String sessionId) {
            Session session = sessions.get(sessionId);
            if (session == null) {
                return 0;
            }
            synchronized (session) {
                forgetClosed(session, now());
                return session.pending.size();
            }
        }

        /** Drops proposals that are no longer pending from a session's set, so it stays small; caller holds its monitor. */
        private void forgetClosed(Session session, Instant now) {
            session.pending.removeIf(id -> {
                CallRecord r = records.get(id);
                return r == null || !r.pendingAt(now);
            });
        }

        @Override
        public int expireDue() {
            Instant now = now();
            int expired = 0;
            for (String id : records.keySet()) {
                boolean[] done = {false};
                records.computeIfPresent(id, (key, r) -> {
                    if (r.status() != CallStatus.PROPOSED || r.expiresAt() == null || r.expiresAt().isAfter(now)) {
                        return r;
                    }
                    done[0] = true;
                    return r.toBuilder().status(CallStatus.EXPIRED).completedAt(now).build();
                });
                if (done[0]) {
                    expired++;
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
                case IDLE_SESSIONS -> purgeSessions(before, limit);
                case IDLE_BUDGETS -> purgeLedgers(before, limit);
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
                    order.remove(orderKey(r));
                    if (r.executionId() != null) {
                        steps.remove(stepKey(r.executionId(), r.stepSeq()), r.id());
                    }
                    if (r.reverts() != null) {
                        reverts.remove(r.reverts(), r.id());
                    }
                    purged++;
                }
            }
            return purged;
        }

        private int purgeSessions(Instant before, int limit) {
            Instant now = now();
            int purged = 0;
            for (Map.Entry<String, Session> entry : sessions.entrySet()) {
                if (purged >= limit) {
                    break;
                }
                Session session = entry.getValue();
                synchronized (session) {
                    forgetClosed(session, now);
                    if (session.pending.isEmpty() && (session.lastProposedAt == null || session.lastProposedAt.isBefore(before))) {
                        session.retired = true;
                        sessions.remove(entry.getKey(), session);
                        purged++;
                    }
                }
            }
            return purged;
        }

        private int purgeLedgers(Instant before, int limit) {
            int purged = 0;
            for (Map.Entry<String, Ledger> entry : ledgers.entrySet()) {
                if (purged >= limit) {
                    break;
                }
                Ledger ledger = entry.getValue();
                synchronized (ledger) {
                    if (ledger.idleBefore(before)) {
                        ledger.retired = true;
                        ledgers.remove(entry.getKey(), ledger);
                        purged++;
                    }
                }
            }
            return purged;
        }

        @Override
        public boolean endSession(String sessionId) {
            Session session = sessionId == null ? null : sessions.get(sessionId);
            if (session == null) {
                return false;
            }
            synchronized (session) {
                forgetClosed(session, now());
                if (!session.pending.isEmpty() || session.retired) {
                    return false;
                }
                session.retired = true;
                return sessions.remove(sessionId, session);
            }
        }

        /** Sorts newest first: inverted epoch nanos, then id. */
        private static String orderKey(CallRecord r) {
            long nanos = r.createdAt().getEpochSecond() * 1_000_000_000L + r.createdAt().getNano();
            return String.format("%020d", Long.MAX_VALUE - nanos) + r.id();
        }
    }

    private static final class Runs implements ExecutionStore {

        private static final Set<ExecutionStatus> ACTIVE = Set.of(ExecutionStatus.RUNNING, ExecutionStatus.PAUSED);

        private final Clock clock;
        private final Map<String, ExecutionRecord> runs = new ConcurrentHashMap<>();
        private Calls calls;

        Runs(Clock clock) {
            this.clock = clock;
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
            ExecutionRecord[] after = {null};
            runs.computeIfPresent(id, (key, run) -> {
                if (!guard.test(run)) {
                    return run;
                }
                after[0] = change.apply(run);
                return after[0];
            });
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

    private static final class Policies implements PolicyStore {

        private final Clock clock;
        private final Map<String, ModeOverride> overrides = new ConcurrentHashMap<>();
        private final Map<String, ToolReview> reviews = new ConcurrentHashMap<>();

        Policies(Clock clock) {
            this.clock = clock;
        }

        @Override
        public PolicyView view(String toolName, String tenantId, String automationId) {
            return new PolicyView(
                    automationId == null ? Optional.empty()
                            : Optional.ofNullable(overrides.get(key(OverrideScope.AUTOMATION, automationId, toolName))),
                    tenantId == null ? Optional.empty()
                            : Optional.ofNullable(overrides.get(key(OverrideScope.TENANT, tenantId, toolName))),
                    Optional.ofNullable(reviews.get(reviewKey(tenantId == null ? "" : tenantId, toolName))));
        }

        @Override
        public void putOverride(ModeOverride override) {
            overrides.put(key(override.scope(), override.scopeId(), override.toolName()),
                    new ModeOverride(override.scope(), override.scopeId(), override.toolName(), override.mode(),
                            override.setBy(), clock.instant()));
        }

        @Override
        public boolean removeOverride(OverrideScope scope, String scopeId, String toolName) {
            return overrides.remove(key(scope, scopeId, toolName)) != null;
        }

        @Override
        public List<ModeOverride> overrides(OverrideScope scope, String scopeId) {
            return overrides.values().stream().filter(o -> o.scope() == scope && o.scopeId().equals(scopeId))
                    .sorted(Comparator.comparing(ModeOverride::toolName)).toList();
        }

        @Override
        public ToolReview reviewIfAbsent(ToolReview review) {
            return reviews.computeIfAbsent(reviewKey(review.tenantId(), review.toolName()), k -> stamped(review));
        }

        @Override
        public void putReview(ToolReview review) {
            reviews.put(reviewKey(review.tenantId(), review.toolName()), stamped(review));
        }

        private ToolReview stamped(ToolReview review) {
            return new ToolReview(review.tenantId(), review.toolName(), review.fingerprint(), review.reviewedBy(),
                    clock.instant());
        }

        private static String key(OverrideScope scope, String scopeId, String toolName) {
            return scope + "\u0000" + scopeId + "\u0000" + toolName;
        }

        private static String reviewKey(String tenantId, String toolName) {
            return tenantId + "\u0000" + toolName;
        }
    }
}
