package dev.toolgate.spi;

import java.time.Clock;
import java.util.Objects;

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

    private final InMemoryCalls calls;
    private final InMemoryPolicies policies;
    private final InMemoryExecutions runs;
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
        this.runs = new InMemoryExecutions(clock, maxFinishedExecutions);
        this.calls = new InMemoryCalls(clock, runs, maxFinishedCalls);
        this.runs.calls(calls);
        this.policies = new InMemoryPolicies(clock);
        this.conversations = new InMemoryConversations(calls.index().records, clock);
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
        InMemoryCallIndex index = calls.index();
        return new Sizes(index.records.size(), calls.eviction().size(), calls.eviction().parkedSteps(), index.order.size(),
                index.steps.size(), index.reverts.size(), calls.applyingSize(), calls.sessions().size(),
                calls.budget().size(), runs.size(), runs.finishedLineSize());
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
}
