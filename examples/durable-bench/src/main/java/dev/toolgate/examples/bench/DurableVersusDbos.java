package dev.toolgate.examples.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbos.transact.DBOS;
import dev.dbos.transact.config.DBOSConfig;
import dev.dbos.transact.database.SystemDatabase;
import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static dev.toolgate.examples.bench.BenchText.firstSet;
import static dev.toolgate.examples.bench.StorageBenchmark.STEPS;

/**
 * Toolgate's durable runs side by side with DBOS Transact's durable workflows and with their own commit
 * floor, on PostgreSQL, in one JVM, at 1 and 4 threads:
 *
 * <ul>
 *   <li>Toolgate: a run of the program {@code bench.fiveReads}, {@value StorageBenchmark#STEPS} steps, each a
 *       governed READ ({@code bench.ping}) journaled in {@code toolgate_call} before the run goes on;</li>
 *   <li>DBOS: a workflow of as many steps ({@link DbosFiveSteps}), each a step function doing the same
 *       trivial work, checkpointed by DBOS;</li>
 *   <li>the floor: as many durable autocommit INSERTs of a call's row as a Toolgate run commits (six: its
 *       steps' rows and the run's finish), on a pool of its own of the same size ({@link RawBaseline}).</li>
 * </ul>
 *
 * The three take turns slice by slice for several rounds (every other round in reverse order), after a
 * warm-up that lasts until none of them is still getting faster. It prints each side's runs per second
 * per round, the ratios per round and their median with min-max, each side's CPU per run (the calling
 * threads; the PostgreSQL server's processes on this machine), and the transactions each side commits
 * per run, counted on the client ({@link CountingDataSource}) over a counting pass of runs on one
 * thread, so that the other users of a shared database do not add to them.
 *
 * <pre>
 * TOOLGATE_TEST_PG_URL='jdbc:postgresql://127.0.0.1:5432/test?user=postgres' \
 *   ./mvnw -q -pl examples/durable-bench -am compile exec:java -Dexec.skip=true
 * </pre>
 *
 * {@code -Dbench.slice-ms} (3000), {@code -Dbench.rounds} (5), {@code -Dbench.threads} (1,4),
 * {@code -Dbench.db-warmup-ms} (40,000: the longest warm-up) and {@code -Dbench.count-runs} (300) change it.
 * It works in the schemas {@code toolgate_bench_durable} (Toolgate and the floor) and
 * {@code toolgate_bench_dbos} (DBOS's system tables), which it drops and recreates.
 */
public final class DurableVersusDbos {

    private static final int POOL_SIZE = 8;
    private static final String DBOS_SCHEMA = "toolgate_bench_dbos";
    private static final String[] SIDES = {"Toolgate", "DBOS", "floor"};
    /** The floor's commits per run: Toolgate's, as counted (its steps' rows and the run's finish). */
    private static final int FLOOR_COMMITS = STEPS + 1;

    private DurableVersusDbos() {
    }

    public static void main(String[] args) throws Exception {
        String pgUrl = args.length > 0 ? args[0] : firstSet("TOOLGATE_BENCH_PG_URL", "TOOLGATE_TEST_PG_URL");
        if (pgUrl == null) {
            throw new IllegalArgumentException("pass a PostgreSQL JDBC URL as the first argument or set TOOLGATE_BENCH_PG_URL");
        }
        Duration slice = Duration.ofMillis(Long.getLong("bench.slice-ms", 3000));
        int rounds = Integer.getInteger("bench.rounds", 5);
        Duration warmup = Duration.ofMillis(Long.getLong("bench.db-warmup-ms", 40_000));
        int countRuns = Integer.getInteger("bench.count-runs", 300);
        int[] threadCounts = Arrays.stream(System.getProperty("bench.threads", "1,4").split(","))
                .mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        Harness harness = new Harness(Duration.ofMillis(1000), slice, rounds);
        System.out.printf(Locale.ROOT, "Durable %d-step runs on PostgreSQL: Toolgate vs DBOS Transact %s vs the raw floor"
                        + " (%d durable INSERTs); %d cores, load average %s; %d rounds of %d ms slices per side%n",
                STEPS, DBOS.version(), FLOOR_COMMITS, Runtime.getRuntime().availableProcessors(), load(), rounds,
                slice.toMillis());

        Class.forName("org.postgresql.Driver"); // DriverManager may have met the driver on another class loader
        String toolgateUrl = BenchText.freshSchema(pgUrl, "toolgate_bench_durable");
        dropSchema(pgUrl, DBOS_SCHEMA);
        CountingDataSource.Counts toolgateCommits = new CountingDataSource.Counts();
        CountingDataSource.Counts dbosCommits = new CountingDataSource.Counts();
        try (JdbcStore store = JdbcStore.builder().url(toolgateUrl).poolSize(POOL_SIZE).build();
             HikariDataSource countingPool = pool(toolgateUrl, "bench-counting");
             JdbcStore countingStore = JdbcStore.builder()
                     .dataSource(CountingDataSource.wrap(countingPool, toolgateCommits)).build();
             RawBaseline raw = new RawBaseline(toolgateUrl, RawBaseline.script(true), POOL_SIZE);
             HikariDataSource dbosPool = SystemDatabase.createDataSource(pgUrl, null, null);
             DBOS dbos = new DBOS(DBOSConfig.defaults("toolgate-bench")
                     .withDataSource(CountingDataSource.wrap(dbosPool, dbosCommits)).withDatabaseSchema(DBOS_SCHEMA))) {
            BenchTools tools = new BenchTools();
            DbosFiveSteps workflow = DbosFiveSteps.register(dbos);
            dbos.launch();
            try (Toolgate gate = StorageWorkloads.gate(store, tools, ToolBudget.unlimited());
                 Toolgate countingGate = StorageWorkloads.gate(countingStore, tools, ToolBudget.unlimited())) {
                CallContext[] ctx = StorageWorkloads.contexts("durable-runner", 16);
                List<Harness.Op> ops = List.of(
                        t -> run(gate, ctx[t]),
                        t -> workflow.run() == STEPS,
                        t -> {
                            for (int i = 0; i < FLOOR_COMMITS; i++) {
                                raw.insertExecuted(BenchTools.PING, ctx[t].principal().key(), ctx[t].sessionId());
                            }
                            return true;
                        });
                System.out.println(Harness.warmUntilSteady(ops, Duration.ofMillis(500), warmup));

                double[] toolgatePerRun = commitsPerRun(toolgateCommits, countRuns, () -> run(countingGate, ctx[0]));
                double[] dbosPerRun = commitsPerRun(dbosCommits, countRuns, () -> workflow.run());
                System.out.printf(Locale.ROOT, "commits per run (counted on the client over %d runs on one thread; writing"
                                + " transactions, then all with the read-only ones): Toolgate %.2f (%.2f), DBOS %.2f (%.2f),"
                                + " floor %d (%d, by construction)%n", countRuns, toolgatePerRun[1], toolgatePerRun[0],
                        dbosPerRun[1], dbosPerRun[0], FLOOR_COMMITS, FLOOR_COMMITS);

                long profile = Long.getLong("bench.profile-seconds", 0);
                if (profile > 0) {
                    profile(gate, ctx[0], Duration.ofSeconds(profile), false); // for JFR: the gate as measured
                    profile(countingGate, ctx[0], Duration.ofSeconds(Math.min(profile, 10)), true);
                    return;
                }
                for (int threads : threadCounts) {
                    measure(harness, threads, ops, rounds);
                }
            }
        }
    }

    /**
     * {@code -Dbench.profile-seconds=N}: only Toolgate's runs, on one thread, for a profiler (JFR), with each
     * statement's round trip timed on the client; prints them and the calling thread's CPU per run.
     */
    private static void profile(Toolgate gate, CallContext ctx, Duration length, boolean statements) {
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        CountingDataSource.timings();
        CountingDataSource.timing = statements;
        com.sun.management.ThreadMXBean allocation = (com.sun.management.ThreadMXBean) bean;
        long bytes = allocation.getCurrentThreadAllocatedBytes();
        long cpu = bean.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        long runs = 0;
        while (System.nanoTime() - start < length.toNanos()) {
            run(gate, ctx);
            runs++;
        }
        long wall = System.nanoTime() - start;
        cpu = bean.getCurrentThreadCpuTime() - cpu;
        bytes = allocation.getCurrentThreadAllocatedBytes() - bytes;
        CountingDataSource.timing = false;
        System.out.printf(Locale.ROOT, "profile: %d runs in %.1f s, %.0f us a run, %.0f us of CPU and %,d bytes allocated"
                + " a run on this thread%n", runs, wall / 1e9, wall / 1e3 / runs, cpu / 1e3 / runs, bytes / runs);
        if (!statements) {
            return;
        }
        long inStatements = 0;
        for (var e : CountingDataSource.timings().entrySet()) {
            long[] t = e.getValue();
            inStatements += t[1];
            System.out.printf(Locale.ROOT, "  %6.2f a run, %6.0f us each: %s%n", t[0] / (double) runs, t[1] / 1e3 / t[0], e.getKey());
        }
        System.out.printf(Locale.ROOT, "  in statements: %.0f us a run; outside them: %.0f us a run%n", inStatements / 1e3 / runs,
                (wall - inStatements) / 1e3 / runs);
    }

    /** One Toolgate run, which must complete. */
    private static boolean run(Toolgate gate, CallContext ctx) {
        ExecutionOutcome outcome = gate.executions().start(ctx, StorageBenchmark.FIVE_READS, (String) null);
        if (!(outcome instanceof ExecutionOutcome.Completed)) {
            throw new IllegalStateException("a run did not complete: " + outcome.status());
        }
        return true;
    }

    private static void measure(Harness harness, int threads, List<Harness.Op> ops, int rounds) throws Exception {
        System.out.printf(Locale.ROOT, "%n%d thread(s), load average %s%n", threads, load());
        Harness.Rounds measured = harness.measure(threads, ops, rounds);
        double[] vsDbos = new double[rounds];
        double[] vsFloor = new double[rounds];
        double[] dbosVsFloor = new double[rounds];
        System.out.printf(Locale.ROOT, "%-6s %12s %12s %12s %14s %16s %13s%n", "round", "Toolgate/s", "DBOS/s",
                "floor/s", "Toolgate/DBOS", "Toolgate/floor", "DBOS/floor");
        for (int round = 0; round < rounds; round++) {
            Harness.Result[] r = measured.perRound()[round];
            vsDbos[round] = r[0].opsPerSecond() / r[1].opsPerSecond();
            vsFloor[round] = r[0].opsPerSecond() / r[2].opsPerSecond();
            dbosVsFloor[round] = r[1].opsPerSecond() / r[2].opsPerSecond();
            System.out.printf(Locale.ROOT, "%-6d %12.0f %12.0f %12.0f %13.2fx %15.2fx %12.2fx%n", round + 1,
                    r[0].opsPerSecond(), r[1].opsPerSecond(), r[2].opsPerSecond(), vsDbos[round], vsFloor[round],
                    dbosVsFloor[round]);
        }
        System.out.printf(Locale.ROOT, "median [min-max] at %d thread(s): Toolgate/DBOS %s, Toolgate/floor %s,"
                + " DBOS/floor %s%n", threads, spread(vsDbos), spread(vsFloor), spread(dbosVsFloor));
        Harness.Result[] total = measured.total();
        for (int side = 0; side < SIDES.length; side++) {
            Harness.Result r = total[side];
            System.out.printf(Locale.ROOT, "  %-8s %,8.0f runs/s, p50 %7.0f us, p99 %7.0f us; per run: %5.0f us of CPU on the"
                            + " calling thread(s), %,7.0f bytes allocated there, %5.0f us of CPU in PostgreSQL%n", SIDES[side],
                    r.opsPerSecond(), r.p50Micros(), r.p99Micros(), r.cpuMicrosPerOp(), r.bytesPerOp(), r.databaseCpuMicrosPerOp());
        }
    }

    /** The transactions, then the writing ones, {@code counts} gains per run over {@code runs} runs of {@code op}. */
    private static double[] commitsPerRun(CountingDataSource.Counts counts, int runs, Counted op) throws Exception {
        op.run(); // its connections' first use (the clock's first read, say) is not a run's
        if (Boolean.getBoolean("bench.count-trace")) {
            CountingDataSource.trace = true;
            op.run();
            CountingDataSource.trace = false;
        }
        long commits = counts.commits().sum();
        long writes = counts.writes().sum();
        for (int i = 0; i < runs; i++) {
            op.run();
        }
        return new double[] {(counts.commits().sum() - commits) / (double) runs, (counts.writes().sum() - writes) / (double) runs};
    }

    private interface Counted {
        Object run() throws Exception;
    }

    static String spread(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "%.2fx [%.2f-%.2f]", BenchText.median(sorted), sorted[0], sorted[sorted.length - 1]);
    }

    private static String load() {
        try {
            String[] parts = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (java.io.IOException | RuntimeException e) {
            return String.format(Locale.ROOT, "%.2f",
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    private static HikariDataSource pool(String url, String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(2);
        config.setPoolName(name);
        return new HikariDataSource(config);
    }

    private static void dropSchema(String url, String schema) throws Exception {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }
}
