package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.spi.StoreFault;
import dev.toolgate.spi.StoreUnavailableException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * PostgreSQL stopped and started, and frozen and thawed (SIGSTOP/SIGCONT: connections open and silent),
 * under a mixed load on a private cluster ({@link PrivatePostgres}; never the machine's shared server).
 * Every call is answered within a bound, each failure is a typed {@link StoreUnavailableException}, the
 * pool heals within seconds of the database's return without a restart, the outage is logged once, and
 * nothing is lost or doubled ({@link FaultLoad#check}). Durable runs in the load that the fault cut are
 * found afterwards by another instance, which takes them over or approves them: each ends completed or
 * interrupted (in doubt), no mutation step runs twice, a replayed step is served from the log and not
 * charged again ({@link FaultRuns#check}). Prints its figures (the README quotes them).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresFaultTest {

    /** The store's connection timeout: the wait for a connection, and (rounded up to 2 s) for an answer. */
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    /** The longest any call may take: a connection wait plus one unanswered statement, with room for a busy machine. */
    private static final Duration BOUND = Duration.ofSeconds(6);
    /**
     * The longest a run's answer (its start, an approval) may take: an attempt is several store operations,
     * each bounded as a call is, and the first the fault refuses ends it.
     */
    private static final Duration RUN_BOUND = BOUND.multipliedBy(2);
    private static final Duration OUTAGE = Duration.ofSeconds(3);

    private PrivatePostgres pg;

    @BeforeAll
    void cluster() throws Exception {
        pg = PrivatePostgres.start();
    }

    @AfterAll
    void dropCluster() {
        if (pg != null) {
            pg.close();
        }
    }

    private static JdbcStore store(String url) {
        return JdbcStore.builder().url(url).poolSize(4).connectionTimeout(TIMEOUT).build();
    }

    private String schema(String name) {
        return dev.toolgate.testkit.TestPostgres.emptySchema(pg.url(), name);
    }

    @Test
    void aStoppedDatabaseRefusesCallsTypedAndQuicklyAndTheStoreHealsWhenItIsBack() throws Exception {
        String url = schema("fault_stop");
        try (JdbcStore store = store(url); FaultLoad load = new FaultLoad(store, url)) {
            int threadsBefore = Thread.activeCount();
            load.start(3, 2);
            FaultLoad.sleep(1_000);
            pg.stop();
            long stopped = System.nanoTime();
            FaultLoad.sleep(OUTAGE.toMillis());
            int threadsDuring = Thread.activeCount();
            assertThat(store.outage().isDown()).as("the store knows it is down").isTrue();
            pg.begin();
            long back = System.nanoTime();
            FaultLoad.sleep(2_500);
            load.stop();

            long recovered = load.firstSuccessAfter(back);
            FaultLoad.Figures figures = load.check();
            FaultRuns.Figures runs = settleRuns(load, url);
            report("stop/start " + OUTAGE.toSeconds() + " s", figures, recovered, store, runs);

            assertThat(figures.refused()).as("calls refused during the outage").isPositive();
            assertThat(figures.faults()).isNotEmpty().isSubsetOf(StoreFault.UNREACHABLE, StoreFault.SHUTTING_DOWN,
                    StoreFault.BUSY, StoreFault.TIMEOUT, StoreFault.IN_DOUBT);
            assertThat(figures.longestMillis()).as("longest call").isLessThan(BOUND.toMillis());
            assertThat(figures.longestRunMillis()).as("longest answer of a run").isLessThan(RUN_BOUND.toMillis());
            assertThat(recovered).as("ms from the database's return to the first success").isBetween(0L, 5_000L);
            assertThat(figures.lost()).isZero();
            assertThat(figures.doubles()).isZero();
            assertThat(threadsDuring - threadsBefore).as("threads added during the outage").isLessThan(20);
            assertThat(store.outage().isDown()).as("the outage ended").isFalse();
            assertThat(store.outage().outages()).as("outages logged (one WARN each)").isEqualTo(1);
            assertThat(stopped).isPositive();
        }
    }

    @Test
    void aFrozenDatabaseAnswersEveryCallWithinTheBoundAndTheStoreHealsWhenItThaws() throws Exception {
        String url = schema("fault_freeze");
        try (JdbcStore store = store(url); FaultLoad load = new FaultLoad(store, url)) {
            int threadsBefore = Thread.activeCount();
            load.start(3, 2);
            FaultLoad.sleep(1_000);
            long frozen = System.nanoTime();
            int threadsDuring;
            try {
                pg.freeze();
                FaultLoad.sleep(OUTAGE.toMillis() + 1_000);
                threadsDuring = Thread.activeCount();
                assertThat(load.answers.stream().filter(a -> a.end() > frozen + 2_500_000_000L).count())
                        .as("calls are still answered while the database is frozen").isPositive();
            } finally {
                pg.thaw();
            }
            long back = System.nanoTime();
            FaultLoad.sleep(3_000);
            load.stop();

            long recovered = load.firstSuccessAfter(back);
            FaultLoad.Figures figures = load.check();
            FaultRuns.Figures runs = settleRuns(load, url);
            report("SIGSTOP/SIGCONT " + (OUTAGE.toSeconds() + 1) + " s", figures, recovered, store, runs);

            assertThat(figures.refused()).isPositive();
            assertThat(figures.faults()).contains(StoreFault.TIMEOUT);
            assertThat(figures.longestMillis()).as("longest call").isLessThan(BOUND.toMillis());
            assertThat(figures.longestRunMillis()).as("longest answer of a run").isLessThan(RUN_BOUND.toMillis());
            assertThat(recovered).as("ms from the thaw to the first success").isBetween(0L, 5_000L);
            assertThat(figures.lost()).isZero();
            assertThat(figures.doubles()).isZero();
            assertThat(threadsDuring - threadsBefore).as("threads added while frozen").isLessThan(20);
            assertThat(store.outage().isDown()).isFalse();
            assertThat(store.outage().outages()).as("outages logged (one WARN each)").isEqualTo(1);
        }
    }

    /**
     * The durable runs the fault cut: another instance settles them (takeovers, steps in doubt, paused
     * steps approved), and every run is checked ({@link FaultRuns#check}).
     */
    private static FaultRuns.Figures settleRuns(FaultLoad load, String url) {
        int rounds = load.runs.settle(url);
        FaultRuns.Figures runs = load.runs.check();
        System.err.printf("FAULT runs settled in %d round(s) of the other instance's sweep%n", rounds);
        assertThat(runs.started()).as("runs started").isPositive();
        assertThat(runs.completed()).as("runs completed").isPositive();
        assertThat(runs.doubled()).as("mutation steps run twice").isZero();
        return runs;
    }

    private static void report(String what, FaultLoad.Figures f, long recovered, JdbcStore store, FaultRuns.Figures runs) {
        System.err.printf("FAULT %s: %d calls, %d refused (%s), longest %d ms (a run's answer %d ms), first success %d ms after recovery,"
                        + " lost %d, doubles %d, applies in doubt %d (retried and applied %d), metered admitted %d of %d,"
                        + " outages logged %d; %s%n", what, f.calls(), f.refused(), f.faults(), f.longestMillis(),
                f.longestRunMillis(), recovered,
                f.lost(), f.doubles(), f.inDoubt(), f.retriedApplied(), f.meteredAdmitted(), FaultLoad.CAP,
                store.outage().outages(), runs);
    }
}
