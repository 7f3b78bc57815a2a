package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.micrometer.ToolgateObservability;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.codemode.Codemode;
import dev.toolgate.gate.CallContext;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.ToolgateStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Measures what governance costs in storage, in one process and one run, on H2 (a temporary file
 * database) and PostgreSQL, at 1 and 4 threads, against physical-limit baselines measured in the
 * same run on the same database:
 *
 * <ul>
 *   <li>a governed READ call (access, validation, cached policy, execution, one audit insert) vs one raw
 *       autocommit INSERT of the same row into an identical table (the one-commit limit); and the same READ
 *       with its tool handed off to a tool thread of the gate ({@code Tool.Builder.onCallerThread(false)}),
 *       which costs two thread wake-ups;</li>
 *   <li>a propose + apply pair vs the same durability in raw JDBC: an INSERT of the proposal, the guarded
 *       UPDATE that claims it and the UPDATE of its outcome, three commits (the outcome's asynchronous on
 *       PostgreSQL, as Toolgate's is); and vs the two-commit INSERT + guarded UPDATE pair; and the same
 *       pair outside any session, which has no pending cap to decide (the baseline has none: the
 *       difference is what the session's lock and its count of pending proposals cost);</li>
 *   <li>a durable execution of 5 steps that all run at once vs the same 5 governed single calls (the cost
 *       of the run's log: its start and its end);</li>
 *   <li>budget-checked governed calls over 100 principals vs Bucket4j's PostgreSQL backend doing the
 *       admission plus the same raw audit INSERT, with the most admissions either let into any
 *       sliding window (Toolgate's must equal the cap);</li>
 *   <li>a codemode script of 100 reads vs the same 100 governed calls, and the cost of one sandbox
 *       context ({@link CodemodeWorkloads});</li>
 *   <li>on the in-memory store, the governed READ with toolgate-micrometer installed (a no-op and a simple
 *       registry) vs the same READ without it (goal: at most 10 % slower).</li>
 * </ul>
 *
 * For the READ and the pair on each database a note also gives each side's CPU time per operation on
 * its calling threads: the governed side's own work, a figure that unlike the throughput ratio does not
 * move with the machine's load; and, on Linux, the whole machine's CPU per operation, split into this
 * JVM's, the PostgreSQL server's processes' (read from {@code /proc/<pid>/schedstat} when the server runs
 * on this machine) and the rest's, the collectors' pause and the share of time stolen by the
 * hypervisor. The PostgreSQL READ's goal notes also give the ratio of each round on
 * its own (min, median, max): how far one round's ratio strays is the noise any one run's figure carries.
 *
 * <pre>
 * ./mvnw -q -pl examples/demo-host -am compile exec:java -Dexec.mainClass=dev.toolgate.examples.bench.StorageBenchmark
 * </pre>
 *
 * The PostgreSQL URL comes from the first argument, {@code TOOLGATE_BENCH_PG_URL} or
 * {@code TOOLGATE_TEST_PG_URL} (PostgreSQL is skipped without one); the benchmark works in its own
 * schema {@code toolgate_bench} (and {@code toolgate_bench_handed_off}, {@code toolgate_bench_behind} for
 * the handed-off variants and the rows written behind), which it drops and recreates. Each cell warms both sides up, then
 * alternates timed slices of Toolgate and its baseline so both see the same background load;
 * {@code -Dbench.warmup-ms}, {@code -Dbench.slice-ms} and {@code -Dbench.rounds} change that
 * (default 1000 ms, 1000 ms, 3 rounds); the engine part first drives its workloads for
 * {@code -Dbench.jit-warmup-ms} (3000 ms in all) so that the JIT has compiled the engine's path before any cell;
 * each database part first drives its governed calls and their baselines in turn, half a second each,
 * until none is still getting faster (the median of its last three turns at most 5 % above that of
 * the three before) or {@code -Dbench.db-warmup-ms}
 * (40,000) has passed, and says which in a note: on a 2-core machine a fresh JVM compiles the path of
 * a governed call on a database (driver and pool included) for about twenty seconds, and a propose +
 * apply measured in that time ran at a third of its later speed;
 * {@code -Dbench.only} runs only the parts it names, comma-separated:
 * {@code engine} (the in-memory rows: what the engine itself costs), {@code observability} (the metrics'
 * overhead), {@code h2}, {@code postgres}; {@code -Dbench.h2-compact-interval-ms} sets the H2 store's
 * compaction interval (0 switches it off, to see what it costs the calls).
 *
 * <p>On each database the governed READ is also measured on a second store that writes the rows of
 * reads behind the calls in batches ({@code JdbcStore.Builder#writeBehind}, 100 ms): an opt-in that
 * trades the durability of the last rows for speed, reported beside the durable default, never as it.
 *
 * <p>Besides printing its tables, it writes the throughput table as CSV and a chart of the ratios as SVG,
 * {@code storage.csv} and {@code storage-ratios.svg} in {@code -Dbench.out} (default {@code target/bench},
 * relative to the working directory).
 */
public final class StorageBenchmark {

    private static final int POOL_SIZE = 8;
    private static final int[] THREADS = {1, 4};
    /** Each workload's turn in the warm-up that runs until throughput is steady, before a database's cells. */
    private static final Duration DB_WARMUP_WINDOW = Duration.ofMillis(500);
    private static final int PRINCIPALS = 100;
    private static final int CAP = 5;
    private static final Duration WINDOW = Duration.ofSeconds(1);
    /** The governed READ on PostgreSQL against the raw durable insert, at every thread count (issue 19). */
    private static final double READ_GOAL = 0.9;
    /** The same READ with its tool handed off to a tool thread of the gate. */
    private static final String READ_HANDED_OFF = "governed READ, tool handed off";
    /** How long the opt-in write-behind lets a read's row wait. */
    private static final Duration WRITE_BEHIND = Duration.ofMillis(100);
    /** The same READ on a store that writes read rows behind the calls, in batches (opt-in, not durable per call). */
    private static final String READ_BEHIND = "governed READ, row written behind (opt-in)";
    /** The governed READ's p50 on H2 at 1 thread, in microseconds (issue 19). */
    private static final double H2_READ_P50_GOAL = 50;
    /** The same pair with its tool's dry-run and execution handed off to tool threads of the gate. */
    private static final String PAIR_HANDED_OFF = "propose + apply, tool handed off";
    /** The pair outside any session: no pending cap to decide (the session's lock and its count of pending proposals). */
    private static final String PAIR_NO_SESSION = "propose + apply, no session (no pending cap)";
    /** The budgeted READ on PostgreSQL against Bucket4j's PostgreSQL backend, at every thread count (issue 19). */
    private static final double BUDGET_GOAL = 1.5;
    private static final int PROPOSALS_PER_SESSION = 10;
    private static final int STEPS = 5;
    /** A run's log may cost at most this much over its steps as single calls: ratio at least 1/1.3. */
    private static final double RUN_GOAL = 1 / 1.3;
    private static final String FIVE_READS = "bench.fiveReads";
    /** The governed READ with metrics installed may cost at most 10 % of its throughput. */
    private static final double OBSERVED_GOAL = 1 / 1.1;
    /** The baseline with the durability of Toolgate's mutation path. */
    private static final String THREE_COMMITS = "raw INSERT + claim UPDATE + outcome UPDATE (3 commits)";
    /** Propose + apply against {@link #THREE_COMMITS} on PostgreSQL (issue 19). */
    private static final double PAIR_GOAL = 0.8;

    private final Harness harness;
    /** The longest warm-up before a database's cells ({@code -Dbench.db-warmup-ms}); it ends sooner once steady. */
    private final Duration dbWarmup = Duration.ofMillis(Long.getLong("bench.db-warmup-ms", 40_000));
    private final List<String[]> table = new ArrayList<>();
    private final List<String[]> budgetTable = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    private StorageBenchmark(Harness harness) {
        this.harness = harness;
    }

    public static void main(String[] args) throws Exception {
        String pgUrl = args.length > 0 ? args[0] : firstSet("TOOLGATE_BENCH_PG_URL", "TOOLGATE_TEST_PG_URL");
        Duration warmup = Duration.ofMillis(Long.getLong("bench.warmup-ms", 1000));
        Duration slice = Duration.ofMillis(Long.getLong("bench.slice-ms", 1000));
        int rounds = Integer.getInteger("bench.rounds", 3);
        StorageBenchmark bench = new StorageBenchmark(new Harness(warmup, slice, rounds));
        long started = System.nanoTime();
        System.out.printf("Toolgate storage benchmark: %d cores, pools of %d connections; per cell and side: %d ms warmup,"
                        + " then %d timed slices of %d ms alternating with the baseline's%n",
                Runtime.getRuntime().availableProcessors(), POOL_SIZE, warmup.toMillis(), rounds, slice.toMillis());

        // -Dbench.only=engine,observability,h2,postgres (any of them, comma-separated): only those parts
        Set<String> only = Set.of(System.getProperty("bench.only", "engine,observability,h2,postgres").split(","));
        if (only.contains("engine")) {
            bench.engineOnly();
        }
        if (only.contains("observability")) {
            bench.observability();
        }
        if (only.contains("h2")) {
            Path dir = Files.createTempDirectory("toolgate-bench");
            // the file system the store opens a file URL on (async:, which no interrupt can close), for the
            // baseline too; -Dbench.h2-fs=nio measures H2's default one, retry: its reopen-on-interrupt one
            String fs = System.getProperty("bench.h2-fs", "async");
            String url = "jdbc:h2:" + fs + ":" + dir.resolve("bench").toAbsolutePath();
            bench.database("H2 (" + fs + ":)", url, false, other -> url + "-" + other); // one store per file
        }
        if (only.contains("postgres")) {
            if (pgUrl == null) {
                bench.notes.add("PostgreSQL skipped: pass a JDBC URL as the first argument or set TOOLGATE_BENCH_PG_URL");
            } else {
                bench.database("PostgreSQL", freshSchema(pgUrl, "toolgate_bench"), true,
                        other -> freshSchema(pgUrl, "toolgate_bench_" + other));
            }
        }
        bench.print(Duration.ofNanos(System.nanoTime() - started));
    }

    /** The same workloads on the in-memory store: what the engine costs without any storage. */
    private void engineOnly() throws Exception {
        System.out.println("running the engine on the in-memory store ...");
        BenchTools tools = new BenchTools();
        try (Toolgate gate = gate(new InMemoryStore(), tools, ToolBudget.unlimited())) {
            // a fresh JVM compiles the engine's path for seconds on a small machine, longer than a cell's
            // warm-up: the first cells measured partly interpreted code (p50 15-21 us in runs that then
            // measured 3.5 us); drive every workload of this part first, measuring nothing
            Duration jit = Duration.ofMillis(Long.getLong("bench.jit-warmup-ms", 3000));
            CallContext[] warm = contexts("memory-warmup", 1);
            Sessions warmSessions = new Sessions(contexts("memory-warmup-writer", 1));
            for (String tool : List.of(BenchTools.PING, BenchTools.PING_HANDED_OFF)) {
                Harness.drive(1, t -> {
                    gate.call(warm[t], tool, "{}");
                    return true;
                }, jit.dividedBy(4));
            }
            for (String tool : List.of(BenchTools.TOUCH, BenchTools.TOUCH_HANDED_OFF)) {
                Harness.drive(1, pairOf(gate, warmSessions, tool), jit.dividedBy(4));
            }
            for (int threads : THREADS) {
                CallContext[] ctx = contexts("memory-reader", threads);
                Harness.Result[] reads = harness.compare(threads, t -> {
                    gate.call(ctx[t], BenchTools.PING, "{}");
                    return true;
                }, t -> {
                    gate.call(ctx[t], BenchTools.PING_HANDED_OFF, "{}");
                    return true;
                });
                Harness.Result read = reads[0];
                row("in-memory", "governed READ call", threads, read, "(engine only, no storage)", null);
                row("in-memory", READ_HANDED_OFF, threads, reads[1], "(engine only, no storage)", null);
                // what the engine's own work costs, whatever share of a busy machine the slices got
                notes.add(String.format(Locale.ROOT, "engine only: a governed READ at %d thread(s) used %.1f us of CPU on its"
                        + " calling thread and allocated %.0f bytes (p50 %.1f us; the goal is a p50 under 20 us at 1 thread)",
                        threads, read.cpuMicrosPerOp(), read.bytesPerOp(), read.p50Micros()));
                notes.add(String.format(Locale.ROOT, "engine only, tool handed off: a governed READ at %d thread(s)"
                        + " used %.1f us of CPU on its calling thread (p50 %.1f us)", threads, reads[1].cpuMicrosPerOp(),
                        reads[1].p50Micros()));
            }
            for (int threads : THREADS) {
                CallContext[] ctx = contexts("memory-runner", threads);
                row("in-memory", STEPS + "-step run, all at once", threads, harness.run(threads, t -> {
                    gate.executions().start(ctx[t], FIVE_READS, (String) null);
                    return true;
                }), "(engine only, no storage)", null);
            }
            CodemodeWorkloads.scriptVersusCalls("in-memory", gate, harness, THREADS, contexts("memory-coder", 4), this::row);
            notes.add(CodemodeWorkloads.contextCost(gate, harness, contexts("memory-tester", 1)[0], this::row));
            for (int threads : THREADS) {
                Sessions sessions = new Sessions(contexts("memory-writer", threads));
                Sessions sessionsHandedOff = new Sessions(contexts("memory-writer-handed-off", threads));
                Harness.Result[] pairs = harness.compare(threads, pairOf(gate, sessions, BenchTools.TOUCH),
                        pairOf(gate, sessionsHandedOff, BenchTools.TOUCH_HANDED_OFF));
                row("in-memory", "propose + apply pair", threads, pairs[0], "(engine only, no storage)", null);
                row("in-memory", PAIR_HANDED_OFF, threads, pairs[1], "(engine only, no storage)", null);
            }
        }
    }

    /**
     * The governed READ on the in-memory store (where nothing hides its cost) with toolgate-micrometer
     * installed, against the same gate without it: with a no-op observation registry (metrics installed,
     * switched off), and with a real one recording into a {@link SimpleMeterRegistry}. Goal: within 10 %.
     * The three take turns slice by slice ({@code -Dbench.obs-rounds}, default 15, rounds; every other
     * round in reverse order); each round gives a ratio per registry, and the verdict is the median ratio,
     * with the spread printed, so that a busy moment on a shared machine does not decide it.
     */
    private void observability() throws Exception {
        int rounds = Integer.getInteger("bench.obs-rounds", 15);
        System.out.printf("running the governed READ with and without toolgate-micrometer (load average %s) ...%n", load());
        BenchTools tools = new BenchTools();
        try (Toolgate plain = readGate(tools, null, null);
             Toolgate noop = readGate(tools, ObservationRegistry.NOOP, null);
             Toolgate simple = readGate(tools, ObservationRegistry.create(), new SimpleMeterRegistry())) {
            for (int threads : THREADS) {
                CallContext[] ctx = contexts("observed-" + threads + "-", threads);
                Harness.Rounds measured = harness.measure(threads, List.of(t -> {
                    plain.call(ctx[t], BenchTools.PING, "{}");
                    return true;
                }, t -> {
                    noop.call(ctx[t], BenchTools.PING, "{}");
                    return true;
                }, t -> {
                    simple.call(ctx[t], BenchTools.PING, "{}");
                    return true;
                }), rounds);
                observed("no-op registry", threads, measured, 1);
                observed("simple registry", threads, measured, 2);
                if (threads == 1) {
                    double listener = ListenerCost.nanosPerEvent();
                    double read = measured.total()[0].cpuMicrosPerOp() * 1000;
                    String cost = String.format(Locale.ROOT, "the listener alone (meters on a simple registry): %.0f ns of"
                            + " CPU per executed READ, %.1f %% of a governed READ's %.0f ns (median of 9 batches of 200,000"
                            + " events on one thread)", listener, 100 * listener / read, read);
                    System.out.println("  " + cost);
                    notes.add(cost);
                }
            }
        }
        System.out.printf("  load average after: %s%n", load());
    }

    private void observed(String registry, int threads, Harness.Rounds measured, int side) {
        Harness.Result[] total = measured.total();
        row("in-memory", "governed READ + metrics (" + registry + ")", threads, total[side], "governed READ, no metrics",
                total[0]);
        double[] ratios = sorted(java.util.Arrays.stream(measured.perRound())
                .mapToDouble(round -> round[side].opsPerSecond() / round[0].opsPerSecond()));
        double[] cpu = sorted(java.util.Arrays.stream(measured.perRound())
                .mapToDouble(round -> round[side].cpuMicrosPerOp() / round[0].cpuMicrosPerOp()));
        String summary = String.format(Locale.ROOT, "metrics (%s) at %d thread(s), %d rounds: throughput ratio median %.3fx"
                        + " (interquartile %.3f-%.3f, min %.3f, max %.3f); CPU per call median %.3fx of without"
                        + " (interquartile %.3f-%.3f; %.2f vs %.2f us); allocated %.0f vs %.0f bytes per call", registry, threads, ratios.length, median(ratios),
                ratios[ratios.length / 4], ratios[(3 * ratios.length) / 4], ratios[0], ratios[ratios.length - 1],
                median(cpu), cpu[cpu.length / 4], cpu[(3 * cpu.length) / 4], total[side].cpuMicrosPerOp(),
                total[0].cpuMicrosPerOp(), total[side].bytesPerOp(), total[0].bytesPerOp());
        System.out.println("  " + summary);
        notes.add(summary);
        if (median(ratios) < OBSERVED_GOAL) {
            notes.add(String.format(Locale.ROOT, "goal missed by throughput: the governed READ with metrics (%s) at %d"
                    + " thread(s) is %.2fx of the READ without (median of the rounds; goal %.2fx, at most 10 %% slower)",
                    registry, threads, median(ratios), OBSERVED_GOAL));
        }
        if (median(cpu) > 1 / OBSERVED_GOAL) {
            notes.add(String.format(Locale.ROOT, "goal missed by CPU time: a governed READ with metrics (%s) at %d"
                    + " thread(s) costs %.2fx the CPU of one without (median of the rounds; goal at most %.2fx)",
                    registry, threads, median(cpu), 1 / OBSERVED_GOAL));
        }
    }

    private static double[] sorted(java.util.stream.DoubleStream values) {
        return values.sorted().toArray();
    }

    private static double median(double[] sorted) {
        return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }

    /** The machine's load average (1, 5, 15 minutes), or "?" where it cannot be read. */
    private static String load() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (java.io.IOException | RuntimeException e) {
            double one = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            return one < 0 ? "?" : String.format(Locale.ROOT, "%.2f", one);
        }
    }

    /** A gate of the bench tools on its own in-memory store, with toolgate-micrometer if {@code observations} is set. */
    private static Toolgate readGate(BenchTools tools, ObservationRegistry observations, MeterRegistry meters) {
        ToolgateBuilder builder = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .provider(tools.provider()).budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO);
        if (observations == null) {
            return builder.build();
        }
        return ToolgateObservability.install(builder, observations, meters).bind(builder.build());
    }

    /**
     * @param url       the governed calls' store and the raw baseline's table
     * @param postgres  whether {@code url} is PostgreSQL's
     * @param elsewhere makes a URL of its own from a name: the handed-off variants and the rows written behind
     *                  go to stores of their own, so that the governed calls' table grows at the raw table's
     *                  pace (an index that holds twice the rows, or the written-behind cell's 200,000 rows a
     *                  second, costs each later insert more)
     */
    private void database(String name, String url, boolean postgres, ThrowingFunction elsewhere) throws Exception {
        System.out.printf("running %s ...%n", name);
        JdbcStore.Builder storeBuilder = JdbcStore.builder().url(url).poolSize(POOL_SIZE);
        if (!postgres && System.getProperty("bench.h2-compact-interval-ms") != null) {
            storeBuilder = storeBuilder.h2Compaction(Duration.ofMillis(Long.getLong("bench.h2-compact-interval-ms")), 80);
        }
        JdbcStore.Builder handedOffBuilder = storeBuilder.url(elsewhere.apply("handed_off"));
        // the opt-in trade: read rows written behind in batches
        JdbcStore.Builder behindBuilder = storeBuilder.url(elsewhere.apply("behind")).writeBehind(WRITE_BEHIND);
        try (JdbcStore store = storeBuilder.build();
             JdbcStore handedOffStore = handedOffBuilder.build();
             JdbcStore behindStore = behindBuilder.build();
             RawBaseline raw = new RawBaseline(url, RawBaseline.script(postgres), POOL_SIZE)) {
            BenchTools tools = new BenchTools();
            try (Toolgate gate = gate(store, tools, ToolBudget.unlimited());
                 Toolgate handedOff = gate(handedOffStore, tools, ToolBudget.unlimited());
                 Toolgate behind = gate(behindStore, tools, ToolBudget.unlimited())) {
                CallContext warm = contexts("warm-reader", 1)[0];
                Sessions warmSessions = new Sessions(contexts("warm-writer", 1));
                Sessions rawSessions = new Sessions(contexts("warm-raw-writer", 1));
                notes.add(name + ", governed calls and their baselines: " + Harness.warmUntilSteady(List.of(t -> {
                    gate.call(warm, BenchTools.PING, "{}");
                    return true;
                }, t -> {
                    raw.insertExecuted(BenchTools.PING, warm.principal().key(), warm.sessionId());
                    return true;
                }, pairOf(gate, warmSessions, BenchTools.TOUCH), rawPairOf(raw, rawSessions, postgres)), DB_WARMUP_WINDOW, dbWarmup));
                for (int threads : THREADS) {
                    CallContext[] ctx = contexts("reader", threads);
                    Harness.Rounds measured = harness.measure(threads, List.of(t -> {
                        gate.call(ctx[t], BenchTools.PING, "{}");
                        return true;
                    }, t -> {
                        handedOff.call(ctx[t], BenchTools.PING_HANDED_OFF, "{}");
                        return true;
                    }, t -> {
                        raw.insertExecuted(BenchTools.PING, ctx[t].principal().key(), ctx[t].sessionId());
                        return true;
                    }), harness.rounds());
                    Harness.Result[] results = measured.total();
                    Harness.Result base = results[2];
                    row(name, "governed READ call", threads, results[0], "raw INSERT (1 commit)", base);
                    notes.add(cpuNote(name, "governed READ", threads, results[0], "the raw insert", base));
                    row(name, READ_HANDED_OFF, threads, results[1], "raw INSERT (1 commit)", base);
                    // a cell of its own: its writer thread's last batch must not run into another side's slice
                    Harness.Result[] behindResults = harness.compare(threads, List.of(t -> {
                        behind.call(ctx[t], BenchTools.PING, "{}");
                        return true;
                    }, t -> {
                        raw.insertExecuted(BenchTools.PING, ctx[t].principal().key(), ctx[t].sessionId());
                        return true;
                    }));
                    row(name, READ_BEHIND, threads, behindResults[0], "raw INSERT (1 commit)", behindResults[1]);
                    if (!postgres && threads == 1) {
                        Harness.Result[] sides = {results[0], behindResults[0]};
                        for (int side = 0; side < 2; side++) {
                            double p50 = sides[side].p50Micros();
                            // the durable READ's floor is one durable H2 commit: the raw insert's own p50 says where it is
                            double floor = side == 0 ? base.p50Micros() : behindResults[1].p50Micros();
                            notes.add(String.format(Locale.ROOT, "goal %s: governed READ%s on H2 at 1 thread has p50 %.1f us"
                                    + " (goal under %.0f us; the raw durable insert's own p50 %.1f us%s)",
                                    p50 < H2_READ_P50_GOAL ? "met" : "missed",
                                    side == 0 ? "" : " (rows written behind, opt-in)", p50, H2_READ_P50_GOAL, floor,
                                    side == 0 && floor >= H2_READ_P50_GOAL ? ": below one durable commit only rows written"
                                            + " behind, the opt-in that trades durability, can meet it" : ""));
                        }
                    }
                    for (int side = 0; side < 2 && postgres; side++) {
                        double ratio = results[side].opsPerSecond() / base.opsPerSecond();
                        int k = side;
                        double[] perRound = sorted(java.util.Arrays.stream(measured.perRound())
                                .mapToDouble(round -> round[k].opsPerSecond() / round[2].opsPerSecond()));
                        notes.add(String.format(Locale.ROOT, "goal %s: governed READ%s on PostgreSQL at %d thread(s) is"
                                + " %.2fx of the raw insert (goal %.1fx; its %d rounds' ratios: min %.2f, median %.2f, max %.2f)",
                                ratio < READ_GOAL ? "missed" : "met", side == 0 ? "" : " (tool handed off)", threads, ratio,
                                READ_GOAL, perRound.length, perRound[0], median(perRound), perRound[perRound.length - 1]));
                    }
                }
                for (int threads : THREADS) {
                    Sessions ours = new Sessions(contexts("writer", threads));
                    Sessions oursHandedOff = new Sessions(contexts("writer-handed-off", threads));
                    Sessions theirs = new Sessions(contexts("raw-writer", threads));
                    Sessions theirs3 = new Sessions(contexts("raw3-writer", threads));
                    CallContext[] sessionless = java.util.Arrays.stream(contexts("writer-sessionless", threads))
                            .map(c -> c.withSession(null)).toArray(CallContext[]::new);
                    Harness.Result[] results = harness.compare(threads, List.of(pairOf(gate, ours, BenchTools.TOUCH),
                            rawPairOf(raw, theirs3, postgres), t -> {
                        CallContext ctx = theirs.next(t);
                        raw.proposeThenApply(ctx.principal().key(), ctx.sessionId());
                        return true;
                    }, pairOf(handedOff, oursHandedOff, BenchTools.TOUCH_HANDED_OFF), t -> {
                        gate.apply(sessionless[t], gate.propose(sessionless[t], BenchTools.TOUCH, "{\"key\":\"k\"}").token());
                        return true;
                    }));
                    row(name, "propose + apply pair", threads, results[0], THREE_COMMITS, results[1]);
                    notes.add(cpuNote(name, "propose + apply pair", threads, results[0], "the 3-commit baseline", results[1]));
                    row(name, "propose + apply pair", threads, results[0], "raw INSERT + guarded UPDATE (2 commits)", results[2]);
                    row(name, PAIR_HANDED_OFF, threads, results[3], THREE_COMMITS, results[1]);
                    row(name, PAIR_NO_SESSION, threads, results[4], THREE_COMMITS, results[1]);
                    notes.add(cpuNote(name, PAIR_NO_SESSION, threads, results[4], "the 3-commit baseline", results[1]));
                    for (int side : new int[] {0, 3}) {
                        double ratio = results[side].opsPerSecond() / results[1].opsPerSecond();
                        if (postgres) {
                            notes.add(String.format(Locale.ROOT, "goal %s: propose + apply%s on PostgreSQL at %d thread(s) is %.2fx"
                                    + " of the same-durability baseline (goal %.1fx)", ratio < PAIR_GOAL ? "missed" : "met",
                                    side == 0 ? "" : " (tool handed off)", threads, ratio, PAIR_GOAL));
                        }
                    }
                }
                for (int threads : THREADS) {
                    CallContext[] ctx = contexts("runner", threads);
                    Harness.Result[] results = harness.compare(threads, t -> {
                        gate.executions().start(ctx[t], FIVE_READS, (String) null);
                        return true;
                    }, t -> {
                        for (int step = 0; step < STEPS; step++) {
                            gate.call(ctx[t], BenchTools.PING, "{}");
                        }
                        return true;
                    });
                    row(name, STEPS + "-step run, all at once", threads, results[0], STEPS + " governed single calls", results[1]);
                    double ratio = results[0].opsPerSecond() / results[1].opsPerSecond();
                    if (ratio < RUN_GOAL) {
                        notes.add(String.format(Locale.ROOT, "goal missed: a %d-step run on %s at %d thread(s) is %.2fx of"
                                + " its steps as single calls (goal %.2fx, that is at most 1.3x the time)", STEPS, name, threads,
                                ratio, RUN_GOAL));
                    }
                }
            }
            try (Toolgate gate = gate(store, tools, ToolBudget.unlimited())) {
                CodemodeWorkloads.scriptVersusCalls(name, gate, harness, THREADS, contexts("coder", 4), this::row);
            }
            try (Toolgate budgeted = gate(store, tools, ToolBudget.perPrincipal(CAP, WINDOW))) {
                Bucket4jBaseline bucket4j = postgres ? new Bucket4jBaseline(raw.dataSource(), CAP, WINDOW) : null;
                CallContext[] warmPrincipals = contexts("budget-warm-", PRINCIPALS);
                List<Harness.Op> warmOps = new ArrayList<>(List.of(t -> {
                    try {
                        budgeted.call(warmPrincipals[ThreadLocalRandom.current().nextInt(PRINCIPALS)], BenchTools.PING, "{}");
                    } catch (BudgetExceededException e) {
                        return false;
                    }
                    return true;
                }));
                if (bucket4j != null) {
                    warmOps.add(t -> {
                        int p = ThreadLocalRandom.current().nextInt(PRINCIPALS);
                        if (!bucket4j.tryConsume(99_000L + p)) {
                            return false;
                        }
                        raw.insertExecuted("bucket4j", "user:bucket4j-warm-" + p, "s");
                        return true;
                    });
                }
                notes.add(name + ", budgeted calls and their baseline: " + Harness.warmUntilSteady(warmOps, DB_WARMUP_WINDOW, dbWarmup));
                for (int threads : THREADS) {
                    String prefix = "budget-" + threads + "-";
                    CallContext[] principals = contexts(prefix, PRINCIPALS);
                    Harness.Op oursOp = t -> {
                        try {
                            budgeted.call(principals[ThreadLocalRandom.current().nextInt(PRINCIPALS)], BenchTools.PING, "{}");
                            return true;
                        } catch (BudgetExceededException e) {
                            return false;
                        }
                    };
                    String b4jPrefix = "bucket4j-" + threads + "-";
                    Harness.Op theirsOp = bucket4j == null ? null : t -> {
                        int p = ThreadLocalRandom.current().nextInt(PRINCIPALS);
                        if (!bucket4j.tryConsume(threads * 1_000L + p)) {
                            return false;
                        }
                        raw.insertExecuted("bucket4j", "user:" + b4jPrefix + p, "s");
                        return true;
                    };
                    Harness.Result[] results = harness.compare(threads, oursOp, theirsOp);
                    Harness.Result ours = results[0];
                    int oursMax = maxInAnyWindow(raw.admissions("toolgate_call", BenchTools.PING, "user:" + prefix));
                    if (bucket4j == null) {
                        budgetRow(name, "Toolgate (governed call)", threads, ours, oursMax);
                        row(name, "budgeted READ, 100 principals", threads, ours, "-", null);
                        continue;
                    }
                    Harness.Result theirs = results[1];
                    int theirsMax = maxInAnyWindow(raw.admissions(RawBaseline.TABLE, "bucket4j", "user:" + b4jPrefix));
                    row(name, "budgeted READ, 100 principals", threads, ours, "Bucket4j PG + raw INSERT", theirs);
                    if (ours.opsPerSecond() / theirs.opsPerSecond() < BUDGET_GOAL) {
                        notes.add(String.format(Locale.ROOT, "goal missed: the budgeted READ on PostgreSQL at %d thread(s) is"
                                + " %.2fx of Bucket4j's (goal %.1fx)", threads, ours.opsPerSecond() / theirs.opsPerSecond(),
                                BUDGET_GOAL));
                    }
                    budgetRow(name, "Toolgate (governed call)", threads, ours, oursMax);
                    budgetRow(name, "Bucket4j advisory lock + INSERT", threads, theirs, theirsMax);
                }
            }
        }
    }

    /**
     * Each thread's conversation: a new session every {@value #PROPOSALS_PER_SESSION} proposals, as
     * conversations go (and so a session's history stays small, as it does in real use).
     */
    private static final class Sessions {
        private final CallContext[] base;
        private final long[] count;

        Sessions(CallContext[] base) {
            this.base = base;
            this.count = new long[base.length];
        }

        CallContext next(int thread) {
            return base[thread].withSession(base[thread].sessionId() + "-" + count[thread]++ / PROPOSALS_PER_SESSION);
        }
    }

    /** A propose + apply pair of {@code tool} in the next session of the calling thread. */
    private static Harness.Op pairOf(Toolgate gate, Sessions sessions, String tool) {
        return t -> {
            CallContext ctx = sessions.next(t);
            gate.apply(ctx, gate.propose(ctx, tool, "{\"key\":\"k\"}").token());
            return true;
        };
    }

    /** The raw baseline's three commits of a pair, in the next session of the calling thread. */
    private static Harness.Op rawPairOf(RawBaseline raw, Sessions sessions, boolean postgres) {
        return t -> {
            CallContext ctx = sessions.next(t);
            raw.proposeClaimComplete(ctx.principal().key(), ctx.sessionId(), postgres);
            return true;
        };
    }

    private static Toolgate gate(ToolgateStore store, BenchTools tools, ToolBudget budget) {
        return CodemodeWorkloads.withTools(Toolgate.builder().discoverTools(false).discoverComponents(false).store(store).provider(tools.provider())
                .budget(budget).maxPendingPerSession(1000).sweepInterval(Duration.ZERO)
                .program(FIVE_READS, run -> {
                    for (int step = 0; step < STEPS; step++) {
                        run.call(BenchTools.PING, null);
                    }
                    return null;
                })
                .programs(Codemode.programs())
                .build());
    }

    private static CallContext[] contexts(String prefix, int count) {
        CallContext[] contexts = new CallContext[count];
        for (int i = 0; i < count; i++) {
            contexts[i] = CallContext.of(Principal.user(prefix + i, BenchTools.RULE)).withTenant("acme")
                    .withSession("bench-" + prefix + i);
        }
        return contexts;
    }

    /** The most admissions of any one principal inside any window {@code (t - WINDOW, t]}. */
    private static int maxInAnyWindow(Map<String, List<Instant>> byPrincipal) {
        int max = 0;
        for (List<Instant> admissions : byPrincipal.values()) {
            List<Instant> sorted = new ArrayList<>(admissions);
            Collections.sort(sorted);
            int start = 0;
            for (int end = 0; end < sorted.size(); end++) {
                while (!sorted.get(start).isAfter(sorted.get(end).minus(WINDOW))) {
                    start++;
                }
                max = Math.max(max, end - start + 1);
            }
        }
        return max;
    }

    private void row(String db, String workload, int threads, Harness.Result ours, String baseline, Harness.Result base) {
        table.add(new String[] {db, workload, String.valueOf(threads), fmt(ours.opsPerSecond()), fmt(ours.p50Micros()),
                fmt(ours.p99Micros()), baseline, base == null ? "-" : fmt(base.opsPerSecond()),
                base == null ? "-" : fmt(base.p50Micros()), base == null ? "-" : fmt(base.p99Micros()),
                base == null ? "-" : String.format(Locale.ROOT, "%.2fx", ours.opsPerSecond() / base.opsPerSecond())});
        System.out.printf("  %s, %d thread(s): %s ops/s%n", workload, threads, fmt(ours.opsPerSecond()));
    }

    private void budgetRow(String db, String limiter, int threads, Harness.Result result, int maxInWindow) {
        long admitted = result.ops() - result.refused();
        budgetTable.add(new String[] {db, limiter, String.valueOf(threads), fmt(result.opsPerSecond()), String.valueOf(admitted),
                String.valueOf(result.refused()), String.valueOf(maxInWindow),
                maxInWindow <= CAP ? "exact (cap " + CAP + ")" : "over by " + (maxInWindow - CAP)});
    }

    private void print(Duration elapsed) {
        System.out.println();
        System.out.println("Throughput and latency (ratio = ops/s of Toolgate / ops/s of the baseline, same database, same threads)");
        printTable(TABLE_HEADER, table);
        System.out.println();
        System.out.printf("Budget admissions: %d principals, cap %d per sliding %d s window; max = most admissions of one"
                + " principal in any window (from the audit rows)%n", PRINCIPALS, CAP, WINDOW.toSeconds());
        printTable(new String[] {"database", "limiter", "thr", "ops/s", "admitted*", "refused*", "max/window", "verdict"},
                budgetTable);
        System.out.println("* in the timed slices. Bucket4j: capacity " + CAP + ", refilled by " + CAP + " every "
                + WINDOW.toSeconds() + " s (refillIntervally), keys locked with pg_advisory_xact_lock; its admissions are"
                + " counted from the audit rows it inserts after each consumed token. Toolgate refuses a principal it"
                + " saw refused again on the same instance, without a statement, until the slot that refusal waits for"
                + " frees (toolgate-jdbc's KnownRefusals); Bucket4j's backend asks the database for every call.");
        notes.forEach(n -> System.out.println("note: " + n));
        System.out.printf("total time %.0f s%n", elapsed.toMillis() / 1000.0);
        try {
            Path out = Path.of(System.getProperty("bench.out", "target/bench")).toAbsolutePath();
            BenchReport.write(out, TABLE_HEADER, table, String.format(Locale.ROOT,
                    "Toolgate / raw JDBC baseline, ops/s ratio (%d cores, %s)", Runtime.getRuntime().availableProcessors(),
                    java.time.LocalDate.now(java.time.ZoneOffset.UTC)));
            System.out.println("wrote " + out.resolve(BenchReport.CSV) + " and " + out.resolve(BenchReport.SVG));
        } catch (java.io.IOException e) {
            System.out.println("note: could not write the CSV and chart: " + e);
        }
    }

    private static final String[] TABLE_HEADER = {"database", "workload", "thr", "ops/s", "p50 us", "p99 us", "baseline",
            "base ops/s", "base p50", "base p99", "ratio"};

    static void printTable(String[] header, List<String[]> rows) {
        int[] widths = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            widths[i] = header[i].length();
            for (String[] r : rows) {
                widths[i] = Math.max(widths[i], r[i].length());
            }
        }
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < header.length; i++) {
            line.append(String.format("%-" + widths[i] + "s", header[i])).append(i + 1 < header.length ? "  " : "");
        }
        System.out.println(line);
        System.out.println("-".repeat(line.length()));
        for (String[] r : rows) {
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                boolean numeric = r[i].matches("[0-9.,x/-]+");
                out.append(String.format("%" + (numeric ? "" : "-") + widths[i] + "s", r[i])).append(i + 1 < r.length ? "  " : "");
            }
            System.out.println(out);
        }
    }

    private static String fmt(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        return value >= 100 ? String.format(Locale.ROOT, "%,.0f", value) : String.format(Locale.ROOT, "%.1f", value);
    }

    static String firstSet(String... variables) {
        for (String variable : variables) {
            String value = System.getenv(variable);
            if (value != null && !value.isBlank()) {
                return value;
            }
        }
        return null;
    }

    /**
     * What a workload and its baseline cost in CPU on their calling threads per operation: unlike their
     * throughput ratio, which moves by a tenth from run to run on a busy 2-core machine, this is the
     * governed side's own work (kernel time of its socket calls included). Where Linux tells, also the
     * whole machine's CPU per operation and their ratio, which is what the throughput ratio comes to when
     * the cores are saturated and nothing else competes, split into this JVM's part, the database
     * server's processes' own (PostgreSQL's backends and writers, measured on their own) and the rest
     * (the machine's other services), and the share of time the hypervisor stole during the slices.
     */
    private static String cpuNote(String store, String workload, int threads, Harness.Result ours, String baseline,
                                  Harness.Result theirs) {
        String note = String.format(Locale.ROOT, "%s, %s at %d thread(s): %.1f us of CPU per operation on the calling"
                + " thread, %s %.1f us (%+.1f us)", store, workload, threads, ours.cpuMicrosPerOp(), baseline,
                theirs.cpuMicrosPerOp(), ours.cpuMicrosPerOp() - theirs.cpuMicrosPerOp());
        if (!Double.isNaN(ours.machineCpuMicrosPerOp()) && !Double.isNaN(theirs.machineCpuMicrosPerOp())) {
            note += String.format(Locale.ROOT, "; the whole machine %.1f us against %.1f us (ratio %.2fx), of which this"
                    + " JVM %.1f us against %.1f us (collections %.1f us against %.1f us of pause; %.0f bytes"
                    + " allocated on the calling thread against %.0f)", ours.machineCpuMicrosPerOp(),
                    theirs.machineCpuMicrosPerOp(), theirs.machineCpuMicrosPerOp() / ours.machineCpuMicrosPerOp(),
                    ours.processCpuMicrosPerOp(), theirs.processCpuMicrosPerOp(), ours.gcPauseMicrosPerOp(),
                    theirs.gcPauseMicrosPerOp(), ours.bytesPerOp(), theirs.bytesPerOp());
            double oursRest = ours.machineCpuMicrosPerOp() - ours.processCpuMicrosPerOp();
            double theirsRest = theirs.machineCpuMicrosPerOp() - theirs.processCpuMicrosPerOp();
            if (store.equals("PostgreSQL") && !Double.isNaN(ours.databaseCpuMicrosPerOp())
                    && !Double.isNaN(theirs.databaseCpuMicrosPerOp())) {
                note += String.format(Locale.ROOT, ", PostgreSQL's processes %.1f us against %.1f us (%+.1f us) and the"
                        + " rest of the machine %.1f us against %.1f us", ours.databaseCpuMicrosPerOp(),
                        theirs.databaseCpuMicrosPerOp(), ours.databaseCpuMicrosPerOp() - theirs.databaseCpuMicrosPerOp(),
                        oursRest - ours.databaseCpuMicrosPerOp(), theirsRest - theirs.databaseCpuMicrosPerOp());
            } else {
                note += String.format(Locale.ROOT, " and the rest (the database) %.1f us against %.1f us", oursRest, theirsRest);
            }
            note += String.format(Locale.ROOT, "; stolen by the hypervisor %.1f %% / %.1f %% of the time",
                    100 * ours.stealShare(), 100 * theirs.stealShare());
        }
        return note;
    }

    /** A URL made from a name (a schema's, a file's). */
    @FunctionalInterface
    private interface ThrowingFunction {
        String apply(String name) throws Exception;
    }

    static String freshSchema(String url, String schema) throws Exception {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            s.execute("CREATE SCHEMA " + schema);
        }
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }
}
