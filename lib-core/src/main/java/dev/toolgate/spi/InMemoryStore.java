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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * Stores everything in this process's memory: <b>for one process, and for trying things out</b>
 * (tests, demos, a prototype). Use {@code toolgate-jdbc} (module {@code lib-jdbc}) in production.
 *
 * <p><b>One process.</b> Exact under concurrency within one JVM (the budget never admits more than
 * its cap in any window; a proposal is claimed once), but several instances of a host each using
 * their own in-memory store would each admit the full budget and could not apply each other's tokens,
 * and everything is gone when the process stops.
 *
 * <p><b>Bounded.</b> Besides what the gate's retention {@linkplain CallStore#purge purges}, the store
 * keeps its memory bounded by itself, so a busy process cannot run out of heap:
 * <ul>
 *   <li>Finished calls (executed, failed, invalid, denied, applied, rejected, expired, superseded)
 *       beyond {@link Builder#maxFinishedCalls} (default {@value #DEFAULT_MAX_FINISHED_CALLS}) are
 *       evicted, oldest first by when they finished. Never evicted: pending proposals, calls still
 *       applying, calls in doubt (interrupted, until resolved or their late outcome arrives), and the
 *       steps of a run still running or paused (they join the line when the run ends). A proposal
 *       past its expiry counts once the sweeper marks it expired.</li>
 *   <li>Finished runs of durable executions beyond {@link Builder#maxFinishedExecutions} (default
 *       {@value #DEFAULT_MAX_FINISHED_EXECUTIONS}) likewise; running and paused runs never.</li>
 *   <li>Whenever more than 10,000 session rows (or budget rows) are stored, and twice as
 *       many as after the last such sweep, those with nothing to keep are dropped: sessions with no
 *       pending proposal, principals whose every admission is outside the longest window they were
 *       charged with. Neither changes what the pending cap or the budget admits.</li>
 * </ul>
 * Evicting costs O(1) amortised per finished call, plus the O(log n) removal from the newest-first
 * index its insert paid for. Every index shrinks with the record. An evicted call is gone: find
 * returns empty, queries skip it, and a finished run whose applied steps were evicted has nothing left
 * to roll back.
 *
 * <p>Time comes from the {@link Clock} given at construction (the system clock by default).
 */
public final class InMemoryStore implements ToolgateStore {

    /** Finished calls kept unless configured otherwise. */
    public static final int DEFAULT_MAX_FINISHED_CALLS = 50_000;
    /** Finished runs of durable executions kept unless configured otherwise. */
    public static final int DEFAULT_MAX_FINISHED_EXECUTIONS = 10_000;
    /** The {@link StoreSettings} key of {@link Builder#maxFinishedCalls}. */
    public static final String MAX_FINISHED_CALLS = "memory.max-finished-calls";
    /** The {@link StoreSettings} key of {@link Builder#maxFinishedExecutions}. */
    public static final String MAX_FINISHED_EXECUTIONS = "memory.max-finished-executions";
    /** Session or budget rows beyond which the store drops those with nothing to keep. */
    static final int IDLE_ROWS = 10_000;

    private final Calls calls;
    private final Policies policies;
    private final Runs runs;
    private final InMemoryConversations conversations;
    private final int maxFinishedCalls;
    private final int maxFinishedExecutions;

    /** A store on the system clock with the default bounds. */
    public InMemoryStore() {
        this(builder());
    }

    /** A store on {@code clock} with the default bounds; tests pass a controllable clock. */
    public InMemoryStore(Clock clock) {
        this(builder().clock(clock));
    }

    private InMemoryStore(Builder builder) {
        Clock clock = builder.clock;
        this.maxFinishedCalls = builder.maxFinishedCalls;
        this.maxFinishedExecutions = builder.maxFinishedExecutions;
        this.runs = new Runs(clock, maxFinishedExecutions);
        this.calls = new Calls(clock, runs, maxFinishedCalls);
        this.runs.calls = calls;
        this.policies = new Policies(clock);
        this.conversations = new InMemoryConversations(calls.records, clock);
    }

    /** A builder: the system clock and the default bounds until set. */
    public static Builder builder() {
        return new Builder();
    }

    /** Configures an {@link InMemoryStore}. Not thread-safe. */
    public static final class Builder {

        private Clock clock = Clock.systemUTC();
        private int maxFinishedCalls = DEFAULT_MAX_FINISHED_CALLS;
        private int maxFinishedExecutions = DEFAULT_MAX_FINISHED_EXECUTIONS;

        private Builder() {
        }

        /** The clock every timestamp and expiry check uses. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How many finished calls are kept; older ones are evicted (default
         * {@value InMemoryStore#DEFAULT_MAX_FINISHED_CALLS}).
         */
        public Builder maxFinishedCalls(int max) {
            this.maxFinishedCalls = positive(max, "maxFinishedCalls");
            return this;
        }

        /**
         * How many finished runs of durable executions are kept; older ones are evicted (default
         * {@value InMemoryStore#DEFAULT_MAX_FINISHED_EXECUTIONS}).
         */
        public Builder maxFinishedExecutions(int max) {
            this.maxFinishedExecutions = positive(max, "maxFinishedExecutions");
            return this;
        }

        /**
         * The bounds set in {@code settings}, if any: {@value InMemoryStore#MAX_FINISHED_CALLS} and
         * {@value InMemoryStore#MAX_FINISHED_EXECUTIONS} (also read from {@code -Dtoolgate.<key>} or
         * {@code TOOLGATE_<KEY>}, see {@link StoreSettings}).
         */
        public Builder settings(StoreSettings settings) {
            Objects.requireNonNull(settings, "settings");
            maxFinishedCalls(settings.getInt(MAX_FINISHED_CALLS, maxFinishedCalls));
            maxFinishedExecutions(settings.getInt(MAX_FINISHED_EXECUTIONS, maxFinishedExecutions));
            return this;
        }

        /** The store. */
        public InMemoryStore build() {
            return new InMemoryStore(this);
        }

        private static int positive(int max, String name) {
            if (max < 1) {
                throw new IllegalArgumentException(name + " must be at least 1, got " + max);
            }
            return max;
        }
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
    public ConversationStore conversations() {
        return conversations;
    }

    @Override
    public void close() {
        // nothing to release
    }

    @Override
    public String toString() {
        return "InMemoryStore";
    }

    /** How many finished calls this store keeps. */
    public int maxFinishedCalls() {
        return maxFinishedCalls;
    }

    /** How many finished runs this store keeps. */
    public int maxFinishedExecutions() {
        return maxFinishedExecutions;
    }

    /** What the store holds now, map by map, for tests of its bounds. */
    Sizes sizes() {
        return new Sizes(calls.records.size(), calls.finished.size(), calls.parkedSteps(), calls.order.size(),
                calls.steps.size(), calls.reverts.size(), calls.applying.size(), calls.sessions.size(),
                calls.ledgers.size(), runs.runs.size(), runs.finished.size());
    }

    /**
     * The sizes of the store's maps.
     *
     * @param calls         call records
     * @param finishedLine  ids in the eviction line of finished calls (at most the cap)
     * @param parkedSteps   finished steps of running or paused runs, out of the line until their run ends
     * @param newestFirst   the newest-first index of calls
     * @param stepIndex     the (run, step) index
     * @param revertIndex   the reverted-call index
     * @param applying      ids of calls applying
     * @param sessions      session rows
     * @param ledgers       budget rows
     * @param executions    runs
     * @param finishedRuns  ids in the eviction line of finished runs (at most the cap)
     */
    record Sizes(int calls, int finishedLine, int parkedSteps, int newestFirst, int stepIndex, int revertIndex,
                 int applying, int sessions, int ledgers, int executions, int finishedRuns) {
    }

    /**
     * Ids in the order their records finished, at most {@code max}: adding one more hands the oldest
     * to the evictor. Lock-free; O(1) amortised per id.
     */
    private static final class FinishedLine {
        private final int max;
        private final ConcurrentLinkedQueue<String> ids = new ConcurrentLinkedQueue<>();
        /** Ids added and counted minus ids taken; never more than the queue holds. */
        private final AtomicInteger size = new AtomicInteger();

        FinishedLine(int max) {
            this.max = max;
        }

        void add(String id, Consumer<String> evict) {
            ids.add(id);
            size.incrementAndGet();
            while (true) {
                int n = size.get();
                if (n <= max) {
                    return;
                }
                if (size.compareAndSet(n, n - 1)) { // this thread takes exactly one id out
                    String oldest = ids.poll();
                    if (oldest != null) {
                        evict.accept(oldest);
                    }
                }
            }
        }

        int size() {
            return size.get();
        }
    }

    /**
     * When to sweep a map of per-client rows for rows with nothing to keep: once it holds more than
     * {@link #IDLE_ROWS} and twice what the last sweep left, so sweeping costs O(1) amortised per row
     * added. One sweep at a time.
     */
    private static final class IdleSweep {
        private final AtomicBoolean sweeping = new AtomicBoolean();
        private volatile int sweepAbove = IDLE_ROWS;

        /** Runs {@code sweep} (which returns the rows left) if {@code size} calls for it. */
        void check(int size, IntSupplier sweep) {
            if (size <= sweepAbove || !sweeping.compareAndSet(false, true)) {
                return;
            }
            try {
                int left = sweep.getAsInt();
                sweepAbove = Math.max(IDLE_ROWS, left > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE : 2 * left);
            } finally {
                sweeping.set(false);
            }
        }
    }

    /**
     * Admission timestamps of one principal, guarded by its own monitor. A purged ledger is
     * {@linkplain #retired retired} under that monitor, so an admission that found it before it left the
     * map starts over on its successor instead of writing into a ledger nobody reads.
     */
    private static final class Ledger {
        private final Deque<Instant> admitted = new ArrayDeque<>();
        /** The longest window this principal was charged with. */
        private Duration window = Duration.ZERO;
        private boolean retired;

        /** Admits one call at {@code now} or throws; caller holds this ledger's monitor. */
        void admit(BudgetCharge charge, Instant now) {
            if (charge.limit().window().compareTo(window) > 0) {
                window = charge.limit().window();
            }
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

        /**
         * Whether every admission is outside the longest window charged (as {@link #admit} would find
         * it), so dropping this ledger changes nothing any charge admits. Caller holds the monitor.
         */
        boolean spent(Instant now) {
            return admitted.isEmpty() || !admitted.peekLast().plus(window).isAfter(now);
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
                CallStatus.DENIED, CallStatus.APPLIED, CallStatus.REVERTED, CallStatus.INTERRUPTED);
        private static final Set<CallStatus> RECORDABLE = Set.of(CallStatus.EXECUTED, CallStatus.FAILED, CallStatus.INVALID,
                CallStatus.DENIED);
        private static final Set<CallStatus> CLOSED = Set.of(CallStatus.REJECTED, CallStatus.EXPIRED, CallStatus.SUPERSEDED,
                CallStatus.STALE);
        /**
         * What the cap may evict: every status a call never leaves (an applied call may still become
         * reverted; evicted first, it simply is not there to mark). Not proposed, applying, or interrupted (in doubt: an operator or a late outcome
         * settles it).
         */
        private static final Set<CallStatus> EVICTABLE = EnumSet.complementOf(
                EnumSet.of(CallStatus.PROPOSED, CallStatus.APPLYING, CallStatus.INTERRUPTED));

        private final Clock clock;
        private final Map<String, CallRecord> records = new ConcurrentHashMap<>();
        private final Map<String, Ledger> ledgers = new ConcurrentHashMap<>();
        private final Map<String, Session> sessions = new ConcurrentHashMap<>();
        /** Ids of claimed calls awaiting their outcome, for the interrupt sweep. */
        private final Set<String> applying = ConcurrentHashMap.newKeySet();
        /** The call applying now for each precondition: one at a time (see {@link CallStore#claim}). */
        private final Map<String, String> applyingStates = new ConcurrentHashMap<>();
        /** Newest first by creation time, then id, for queries. */
        private final ConcurrentSkipListMap<String, String> order = new ConcurrentSkipListMap<>();
        /** The call id of each logged step, by execution id and seq: a step is logged once. */
        private final Map<String, String> steps = new ConcurrentHashMap<>();
        /** The revert of each reverted call, by the reverted call's id: a call is reverted once. */
        private final Map<String, String> reverts = new ConcurrentHashMap<>();
        /** Ids of evictable calls, in the order they became so; the oldest leave beyond the cap. */
        private final FinishedLine finished;
        /**
         * Finished steps the line handed out while their run was running or paused, by run id: kept
         * until the run ends, then back in the line. Guarded by its own monitor, under which a run's
         * activity is checked, so a step never parks after its run's steps were released.
         */
        private final Map<String, List<String>> parked = new HashMap<>();
        private final IdleSweep sessionSweep = new IdleSweep();
        private final IdleSweep ledgerSweep = new IdleSweep();
        private final Runs runs;

        Calls(Clock clock, Runs runs, int maxFinished) {
            this.clock = clock;
            this.runs = runs;
            this.finished = new FinishedLine(maxFinished);
        }

        /** A call has reached a status it never leaves: it joins the line, and the oldest beyond the cap leave. */
        private void finished(String id) {
            finished.add(id, this::evict);
        }

        private void evict(String id) {
            CallRecord r = records.get(id);
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
            records.computeIfPresent(id, (key, current) -> {
                if (!EVICTABLE.contains(current.status())) {
                    return current;
                }
                removed[0] = current;
                return null;
            });
            if (removed[0] != null) {
                forgetIndexes(removed[0]);
            }
        }

        /** Removes a removed record from every index. */
        private void forgetIndexes(CallRecord r) {
            order.remove(orderKey(r));
            if (r.executionId() != null) {
                steps.remove(stepKey(r.executionId(), r.stepSeq()), r.id());
            }
            if (r.reverts() != null) {
                reverts.remove(r.reverts(), r.id());
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

        int parkedSteps() {
            synchronized (parked) {
                return parked.values().stream().mapToInt(List::size).sum();
            }
        }

        @Override
        public Instant now() {
            return clock.instant();
        }

        @Override
        public Instant admit(BudgetCharge charge) {
            Instant admitted = null;
            while (admitted == null) {
                Ledger ledger = ledgers.computeIfAbsent(charge.principalKey(), k -> new Ledger());
                synchronized (ledger) {
                    if (ledger.retired) {
                        continue;
                    }
                    // read the clock under the ledger's monitor so admissions enter the ledger in time order
                    Instant now = now();
                    ledger.admit(charge, now);
                    admitted = now;
                }
            }
            ledgerSweep.check(ledgers.size(), this::dropSpentLedgers);
            return admitted;
        }

        @Override
        public CallRecord record(CallRecord call) {
            if (!RECORDABLE.contains(call.status())) {
                throw new IllegalArgumentException("record takes a finished call, not " + call.status());
            }
            Instant now = now();
            Instant created = call.createdAt() == null ? now : call.createdAt();
            CallRecord stored = call.toBuilder().createdAt(created).completedAt(now.isBefore(created) ? created : now).build();
            insert(stored);
            finished(stored.id());
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
            String sessionId = proposal.sessionId();
            ProposeResult result = null;
            while (result == null) {
                Session session = sessionId == null ? null : sessions.computeIfAbsent(sessionId, k -> new Session());
                synchronized (session == null ? new Object() : session) {
                    if (session != null && session.retired) {
                        continue;
                    }
                    Instant now = now();
                    if (session != null) {
                        forgetClosed(session, now);
                        if (session.pending.size() >= maxPendingPerSession) {
                            result = new ProposeResult(ProposeResult.Status.PENDING_LIMIT, null);
                            continue;
                        }
                    }
                    CallRecord stored = proposal.toBuilder().createdAt(proposal.createdAt() == null ? now : proposal.createdAt())
                            .expiresAt(now.plus(ttl)).build();
                    insert(stored);
                    if (session != null) {
                        session.pending.add(stored.id());
                        session.lastProposedAt = stored.createdAt();
                    }
                    result = new ProposeResult(ProposeResult.Status.PROPOSED, stored);
                }
            }
            // sessions with nothing pending are dropped in sweeps, outside any session's monitor
            sessionSweep.check(sessions.size(), () -> {
                purgeSessions(Instant.MAX, Integer.MAX_VALUE);
                return sessions.size();
            });
            return result;
        }

        @Override
        public ClaimResult claim(String id, Claim claim, BudgetCharge charge) {
            if (!records.containsKey(id)) {
                return new ClaimResult(ClaimResult.Status.NOT_FOUND, null);
            }
            if (charge == null) {
                return claimRecord(id, claim, null);
            }
            ClaimResult result = null;
            while (result == null) {
                Ledger ledger = ledgers.computeIfAbsent(charge.principalKey(), k -> new Ledger());
                synchronized (ledger) {
                    if (!ledger.retired) {
                        result = claimRecord(id, claim, at -> ledger.admit(charge, at));
                    }
                }
            }
            ledgerSweep.check(ledgers.size(), this::dropSpentLedgers);
            return result;
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
            return id == null ? Optional.empty() : Optional.ofNullable(records.get(id));
        }

        @Override
        public List<CallRecord> query(CallQuery query) {
            if (query.executionId() != null) {
                return records.values().stream().filter(query::matches)
                        .sorted(Comparator.comparing(CallRecord::stepSeq, Comparator.nullsLast(Comparator.naturalOrder())))
                        .limit(query.limit()).toList();
            }
            // newest first; a cursor starts right after its own position (its key need not be stored)
            Map<String, String> page = query.after() == null ? order : order.tailMap(orderKey(query.after().createdAt(),
                    query.after().id()), false);
            return page.values().stream().map(records::get).filter(Objects::nonNull).filter(query::matches)
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
                    forgetIndexes(r); // its id may stay in the line of finished calls: skipped when it comes up
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

        /** Drops every ledger with no admission inside its window; the ledgers left. */
        private int dropSpentLedgers() {
            Instant now = now();
            for (Map.Entry<String, Ledger> entry : ledgers.entrySet()) {
                Ledger ledger = entry.getValue();
                synchronized (ledger) {
                    if (ledger.spent(now)) {
                        ledger.retired = true;
                        ledgers.remove(entry.getKey(), ledger);
                    }
                }
            }
            return ledgers.size();
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
            return orderKey(r.createdAt(), r.id());
        }

        /**
         * The key of a (time, id) position: sorts as the newest-first order does (a fixed-width prefix,
         * then the id as {@link String#compareTo}). Times past the year 2262 (beyond what epoch nanos in a
         * long hold, only a hostile cursor's) sort as the oldest possible.
         */
        private static String orderKey(Instant createdAt, String id) {
            long nanos;
            try {
                nanos = Math.addExact(Math.multiplyExact(createdAt.getEpochSecond(), 1_000_000_000L), createdAt.getNano());
            } catch (ArithmeticException e) {
                nanos = Long.MAX_VALUE;
            }
            long inverted = Long.MAX_VALUE - nanos;
            if (inverted < 0) { // before 1970 by more than the long's range: only a hostile cursor's
                return String.format("%020d", inverted) + id;
            }
            // the same as String.format("%020d", inverted) + id, without a Formatter on every record
            String digits = Long.toString(inverted);
            StringBuilder key = new StringBuilder(20 + id.length());
            for (int i = digits.length(); i < 20; i++) {
                key.append('0');
            }
            return key.append(digits).append(id).toString();
        }
    }

    private static final class Runs implements ExecutionStore {

        private static final Set<ExecutionStatus> ACTIVE = Set.of(ExecutionStatus.RUNNING, ExecutionStatus.PAUSED);

        private final Clock clock;
        private final Map<String, ExecutionRecord> runs = new ConcurrentHashMap<>();
        /** Ids of finished runs, in the order they finished; the oldest leave beyond the cap. */
        private final FinishedLine finished;
        private Calls calls;

        Runs(Clock clock, int maxFinished) {
            this.clock = clock;
            this.finished = new FinishedLine(maxFinished);
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
