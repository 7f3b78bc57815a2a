package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.BudgetLimit;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.tool.Effect;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.testkit.Together;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import dev.toolgate.spi.CallStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Exactness under real concurrency on the database's clock, one store shared by 16 threads. The
 * budget: counted from the audit trail, no sliding window ever holds more admissions than the cap,
 * and every admitted call is recorded. The pending cap: concurrent proposals in one session never
 * exceed it. Retention: concurrent sweepers report each overdue call once, and purges racing
 * outcomes, proposals and admissions lose nothing ({@link Races}). Each database runs it through a
 * subclass.
 */
abstract class ConcurrencyContract {

    private static final int CAP = 20;
    private static final Duration WINDOW = Duration.ofMillis(500);
    private static final int THREADS = 16;
    private static final Duration RUN = Duration.ofMillis(2600);

    private String url;
    private JdbcStore store;
    private Hosts host;

    /** The URL of a fresh, empty database (the store on it uses the database clock). */
    abstract String newDatabase();

    @BeforeEach
    void open() {
        url = newDatabase();
        store = JdbcStore.builder().url(url).poolSize(THREADS).build();
        host = Hosts.on(store, b -> b.budget(ToolBudget.perPrincipal(CAP, WINDOW)));
    }

    @AfterEach
    void close() {
        // null when open() was skipped or failed (no PostgreSQL): the skip, not a NullPointerException, is the result
        if (host != null) {
            host.close();
        }
        if (store != null) {
            store.close();
        }
    }

    @Test
    void finishedCallsAreStampedWithTheDatabaseClockAndReadBackAsReturned() {
        CallStore calls = store.calls();
        for (int i = 0; i < 20; i++) {
            Instant before = calls.now(); // the database's own clock
            CallRecord stored = calls.record(executedRead("clock-" + i));
            Instant after = calls.now();

            assertThat(calls.find(stored.id())).contains(stored);
            // the estimate is within half a round trip of the database clock (plus a second's drift)
            assertThat(stored.createdAt()).isBetween(before.minusMillis(50), after.plusMillis(50));
            assertThat(stored.completedAt()).isEqualTo(stored.createdAt());
        }
        Instant admitted = calls.admit(new BudgetCharge("user:clock", BudgetLimit.of(5, Duration.ofMinutes(1))));
        CallRecord stored = calls.record(executedRead("clock-admitted").toBuilder().createdAt(admitted).build());
        assertThat(stored.createdAt()).isEqualTo(admitted);
        assertThat(stored.completedAt()).isAfterOrEqualTo(admitted);
        assertThat(calls.find(stored.id())).contains(stored);
    }

    @Test
    void aPrincipalHeldAtItsCapIsRefusedHereWithoutAStatementUntilItsSlotFrees() throws Exception {
        CallStore calls = store.calls();
        BudgetCharge charge = new BudgetCharge("user:held", BudgetLimit.of(2, Duration.ofMillis(1500)));
        calls.admit(charge);
        calls.admit(charge);
        BudgetExceededException refused = org.assertj.core.api.Assertions.catchThrowableOfType(
                BudgetExceededException.class, () -> calls.admit(charge));
        assertThat(refused).isNotNull();
        long refusedAt = System.nanoTime();
        // behind the store's back, the admissions go: the database alone would now admit
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement forget = c.prepareStatement("DELETE FROM toolgate_budget_admission WHERE principal = ?")) {
            forget.setString(1, "user:held");
            assertThat(forget.executeUpdate()).isEqualTo(2);
        }
        BudgetExceededException kept = org.assertj.core.api.Assertions.catchThrowableOfType(
                BudgetExceededException.class, () -> calls.admit(charge));
        assertThat(kept).as("refused here, as the database refused it, without asking it").isNotNull();
        assertThat(kept.retryAfter()).isPositive().isLessThanOrEqualTo(refused.retryAfter());
        assertThat(kept.principalKey()).isEqualTo("user:held");

        BudgetCharge larger = new BudgetCharge("user:held", BudgetLimit.of(3, Duration.ofMillis(1500)));
        assertThat(calls.admit(larger)).as("another limit goes to the database").isNotNull();

        // the refusal ends no later than the database's would: right after its retryAfter, admitted again
        long wait = refused.retryAfter().toNanos() - (System.nanoTime() - refusedAt);
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
        assertThat(calls.admit(charge)).isNotNull();
    }

    /** A finished read of {@code session}, not yet stored, without times (the store sets them). */
    private static CallRecord executedRead(String session) {
        return CallRecord.builder().id(java.util.UUID.randomUUID().toString()).toolName("notes.list").effect(Effect.READ)
                .principal(new PrincipalRef(PrincipalKind.USER, "clock")).tenantId("acme").sessionId(session)
                .transport("java").status(CallStatus.EXECUTED).mode(Mode.ALLOW).modeSource(ModeSource.INFERRED_DEFAULT)
                .argumentsHash("a".repeat(64)).resultJson("{\"ok\":true}").durationMillis(1L).build();
    }

    @Test
    void sixteenThreadsOfReadsNeverExceedTheCapInAnySlidingWindow() throws Exception {
        CallContext ctx = Hosts.ctx(Hosts.READER);
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();

        hammer(THREADS, t -> {
            try {
                host.gate().call(ctx, "notes.list", "{}");
                admitted.incrementAndGet();
            } catch (BudgetExceededException e) {
                assertThat(e.retryAfter()).isPositive().isLessThanOrEqualTo(WINDOW);
                refused.incrementAndGet();
            }
        });

        List<CallRecord> audit = store.calls().query(CallQuery.latest(CallQuery.MAX_LIMIT).principal("user:reader"));
        assertThat(audit).as("every admitted call is in the audit trail, and only those").hasSize(admitted.get());
        assertThat(audit).allSatisfy(r -> assertThat(r.status()).isEqualTo(CallStatus.EXECUTED));
        assertThat(Hosts.maxInAnyWindow(audit.stream().map(CallRecord::createdAt).toList(), WINDOW)).isEqualTo(CAP);
        assertThat(admitted.get()).as("several windows filled").isGreaterThanOrEqualTo(3 * CAP);
        assertThat(refused.get()).isPositive();
        assertThat(host.notes().reads).hasValue(admitted.get());
    }

    @Test
    void readsProposalsAndAppliesShareOneExactBudget() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger proposals = new AtomicInteger();
        AtomicInteger applies = new AtomicInteger();
        AtomicInteger sequence = new AtomicInteger();

        hammer(THREADS, t -> {
            CallContext ctx = Hosts.ctx(Hosts.WRITER).withSession("thread-" + t);
            if (t % 2 == 0) {
                try {
                    host.gate().call(ctx, "notes.list", "{}");
                    reads.incrementAndGet();
                } catch (BudgetExceededException e) {
                    assertThat(e.retryAfter()).isLessThanOrEqualTo(WINDOW);
                }
                return;
            }
            Proposal proposal;
            try {
                proposal = host.gate().propose(ctx, "notes.add", "{\"id\":\"n" + sequence.incrementAndGet() + "\",\"text\":\"x\"}");
                proposals.incrementAndGet();
            } catch (BudgetExceededException e) {
                assertThat(e.retryAfter()).isLessThanOrEqualTo(WINDOW);
                return;
            }
            while (true) { // a refused apply changes nothing: the proposal stays pending, so retry
                try {
                    host.gate().apply(ctx, proposal.token());
                    applies.incrementAndGet();
                    return;
                } catch (BudgetExceededException e) {
                    assertThat(e.retryAfter()).isLessThanOrEqualTo(WINDOW);
                    sleep(e.retryAfter());
                }
            }
        });

        List<CallRecord> audit = store.calls().query(CallQuery.latest(CallQuery.MAX_LIMIT).principal("user:writer"));
        List<Instant> admissions = new ArrayList<>();
        audit.forEach(r -> admissions.add(r.createdAt()));
        audit.stream().filter(r -> r.appliedAt() != null).forEach(r -> admissions.add(r.appliedAt()));
        assertThat(audit).hasSize(reads.get() + proposals.get());
        assertThat(audit.stream().filter(r -> r.status() == CallStatus.APPLIED)).hasSize(applies.get());
        assertThat(admissions).hasSize(reads.get() + proposals.get() + applies.get());
        assertThat(Hosts.maxInAnyWindow(admissions, WINDOW)).isEqualTo(CAP);
        assertThat(applies.get()).isPositive();
        assertThat(host.notes().mutations).hasValue(applies.get());
    }

    @Test
    void concurrentProposalsInOneSessionNeverExceedThePendingCap() throws Exception {
        int cap = 5;
        try (Hosts capped = Hosts.on(store, b -> b.maxPendingPerSession(cap))) {
            CallContext ctx = Hosts.ctx(Hosts.WRITER).withSession("crowded");
            proposeFromEveryThread(capped, ctx, "p", cap);
            assertThat(store.calls().countPending("crowded")).isEqualTo(cap);
            assertThat(store.calls().query(CallQuery.latest(100).session("crowded").status(CallStatus.PROPOSED))).hasSize(cap);
        }
    }

    /**
     * Every thread proposes three times into the one session of {@code ctx}: exactly {@code cap} are
     * recorded, every other one is refused with {@link dev.toolgate.call.PendingLimitException}.
     */
    private static void proposeFromEveryThread(Hosts capped, CallContext ctx, String idPrefix, int cap) throws Exception {
        AtomicInteger sequence = new AtomicInteger();
        AtomicInteger proposed = new AtomicInteger();
        AtomicInteger limited = new AtomicInteger();
        Together.run(THREADS, t -> {
            for (int i = 0; i < 3; i++) {
                try {
                    capped.gate().propose(ctx, "notes.add", "{\"id\":\"" + idPrefix + sequence.incrementAndGet()
                            + "\",\"text\":\"x\"}");
                    proposed.incrementAndGet();
                } catch (dev.toolgate.call.PendingLimitException e) {
                    limited.incrementAndGet();
                }
            }
            return null;
        });
        assertThat(proposed).hasValue(cap);
        assertThat(limited).hasValue(3 * THREADS - cap);
    }

    /**
     * Unmetered proposals are not counted before their dry-run: the insert alone keeps the cap, and the
     * refused ones leave no row.
     */
    @Test
    void concurrentUnmeteredProposalsInOneSessionNeverExceedThePendingCapAndRefusalsLeaveNoRow() throws Exception {
        int cap = 5;
        try (Hosts capped = Hosts.on(store, b -> b.maxPendingPerSession(cap).budget(dev.toolgate.budget.ToolBudget.unlimited()))) {
            CallContext ctx = Hosts.ctx(Hosts.WRITER).withSession("crowded-unmetered");
            proposeFromEveryThread(capped, ctx, "u", cap);
            assertThat(store.calls().countPending("crowded-unmetered")).isEqualTo(cap);
            assertThat(store.calls().query(CallQuery.latest(100).session("crowded-unmetered"))).hasSize(cap);
        }
    }

    @Test
    void theSweepAndThePurgeSkipARowWhoseOutcomeIsBeingWritten() throws Exception {
        CallStore calls = store.calls();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = calls.propose(Races.proposal(null), Duration.ofMinutes(10), 1).record().id();
            calls.claim(id, new CallStore.Claim(dev.toolgate.access.PrincipalRef.of(Hosts.WRITER), null, null, Duration.ofMillis(1)), null);
            ids.add(id);
        }
        Thread.sleep(20);
        String held = ids.get(0);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (Connection writer = DriverManager.getConnection(url)) {
            // another instance is writing the outcome of the first call and has not committed yet
            writer.setAutoCommit(false);
            outcome(writer, held, "applied", "\"held\"");
            List<CallRecord> swept = other.submit(() -> calls.interruptOverdue(10)).get(5, TimeUnit.SECONDS);
            assertThat(swept).as("the sweep neither waits for the locked row nor marks it").extracting(CallRecord::id)
                    .containsExactlyInAnyOrder(ids.get(1), ids.get(2));
            writer.commit();
            assertThat(calls.interruptOverdue(10)).isEmpty();
            assertThat(calls.find(held).orElseThrow().status()).isEqualTo(CallStatus.APPLIED);

            // a late outcome of an interrupted call is being written while the purge runs
            Instant cutoff = calls.now().plusSeconds(60); // every interrupted call qualifies by its time
            outcome(writer, ids.get(1), "applied", "\"late\"");
            int purged = other.submit(() -> calls.purge(CallStore.Purge.FINISHED_CALLS, cutoff, 10)).get(5, TimeUnit.SECONDS);
            assertThat(purged).as("only the rows nobody holds: the applied call and the other interrupted one").isEqualTo(2);
            writer.commit();
            assertThat(calls.find(ids.get(1))).as("the late outcome kept its row").get()
                    .satisfies(r -> assertThat(r.resultJson()).isEqualTo("\"late\""));
        } finally {
            other.shutdownNow();
        }
    }

    /** Writes an outcome as the store's complete() would, in the connection's open transaction. */
    private static void outcome(Connection c, String id, String status, String result) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE toolgate_call SET status = ?, result_json = ?,"
                + " completed_at = CURRENT_TIMESTAMP WHERE id = ?")) {
            s.setString(1, status);
            s.setString(2, result);
            s.setString(3, id);
            assertThat(s.executeUpdate()).isEqualTo(1);
        }
    }

    @Test
    void concurrentSweepersReportEachOverdueCallExactlyOnceWhileOutcomesArrive() throws Exception {
        Races.sweepersReportEachOverdueCallOnce(List.of(store), 60, THREADS / 2);
    }

    @Test
    void aLateOutcomeIsNeverPurgedWithItsRow() throws Exception {
        Races.aLateOutcomeIsNeverPurgedWithItsRow(List.of(store), 40);
    }

    @Test
    void purgingAndEndingTheSessionWhileProposingKeepsThePendingCapExact() throws Exception {
        Races.purgesRacingProposalsKeepThePendingCap(List.of(store), THREADS, 8);
    }

    @Test
    void purgingIdleBudgetRowsWhileAdmittingKeepsTheBudgetExact() throws Exception {
        Races.purgesRacingAdmissionsKeepTheBudget(List.of(store), THREADS, 8);
    }

    @Test
    void concurrentTransitionsOfARunHaveExactlyOneWinner() throws Exception {
        Races.runTransitionsRace(List.of(store), 40, THREADS);
    }

    @Test
    void concurrentRevertsOfACallClaimItOnce() throws Exception {
        Races.revertClaimsRace(List.of(store), 20, THREADS);
    }

    private interface Work {
        void run(int thread) throws Exception;
    }

    /** {@code threads} threads released together, each doing {@code work} over and over for {@link #RUN}. */
    private static void hammer(int threads, Work work) throws Exception {
        Together.run(threads, thread -> {
            long end = System.nanoTime() + RUN.toNanos();
            while (System.nanoTime() < end) {
                work.run(thread);
            }
            return null;
        });
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(Math.max(1, duration.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
