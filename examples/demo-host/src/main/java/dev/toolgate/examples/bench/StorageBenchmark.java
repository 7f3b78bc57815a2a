package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.examples.bench.StorageWorkloads.Sessions;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.spi.InMemoryStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import static dev.toolgate.examples.bench.BenchText.cpuNote;
import static dev.toolgate.examples.bench.BenchText.fmt;
import static dev.toolgate.examples.bench.BenchText.median;
import static dev.toolgate.examples.bench.BenchText.sorted;
import static dev.toolgate.examples.bench.StorageWorkloads.contexts;
import static dev.toolgate.examples.bench.StorageWorkloads.gate;
import static dev.toolgate.examples.bench.StorageWorkloads.maxInAnyWindow;
import static dev.toolgate.examples.bench.StorageWorkloads.pairOf;
import static dev.toolgate.examples.bench.StorageWorkloads.rawPairOf;

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
    static final int[] THREADS = {1, 4};
    /** Each workload's turn in the warm-up that runs until throughput is steady, before a database's cells. */
    private static final Duration DB_WARMUP_WINDOW = Duration.ofMillis(500);
    static final int PRINCIPALS = 100;
    static final int CAP = 5;
    static final Duration WINDOW = Duration.ofSeconds(1);
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
    static final int PROPOSALS_PER_SESSION = 10;
    static final int STEPS = 5;
    /** A run's log may cost at most this much over its steps as single calls: ratio at least 1/1.3. */
    private static final double RUN_GOAL = 1 / 1.3;
    static final String FIVE_READS = "bench.fiveReads";
    /** The governed READ with metrics installed may cost at most 10 % of its throughput. */
    static final double OBSERVED_GOAL = 1 / 1.1;
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
            new ObservabilityBench(bench.harness, bench::row, bench.notes).run();
        }
        if (only.contains("h2")) {
            Path dir = Files.createTempDirectory("toolgate-bench");
            // the file system the store opens a file URL on (interruptsafe:, which no interrupt can close), for
            // the baseline too; -Dbench.h2-fs=nio measures H2's default one, async: the store's before
            String fs = System.getProperty("bench.h2-fs", "interruptsafe");
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
                    // the capped workload's calls are mostly refused, and a refusal the instance knows needs no
                    // statement: its calls per second price refusals, so the table and graph take the admitted
                    // calls per second (both sides admit what the cap allows); the admitted path against
                    // Bucket4j's is BudgetVersusBucket4j's
                    if (bucket4j == null) {
                        budgetRow(name, "Toolgate (governed call)", threads, ours, oursMax);
                        admittedRow(name, threads, ours, null);
                        continue;
                    }
                    Harness.Result theirs = results[1];
                    int theirsMax = maxInAnyWindow(raw.admissions(RawBaseline.TABLE, "bucket4j", "user:" + b4jPrefix));
                    admittedRow(name, threads, ours, theirs);
                    budgetRow(name, "Toolgate (governed call)", threads, ours, oursMax);
                    budgetRow(name, "Bucket4j advisory lock + INSERT", threads, theirs, theirsMax);
                }
            }
        }
    }

    private void print(Duration elapsed) {
        StorageReport.print(table, budgetTable, notes, elapsed);
    }

    private void row(String db, String workload, int threads, Harness.Result ours, String baseline, Harness.Result base) {
        table.add(new String[] {db, workload, String.valueOf(threads), fmt(ours.opsPerSecond()), fmt(ours.p50Micros()),
                fmt(ours.p99Micros()), baseline, base == null ? "-" : fmt(base.opsPerSecond()),
                base == null ? "-" : fmt(base.p50Micros()), base == null ? "-" : fmt(base.p99Micros()),
                base == null ? "-" : String.format(Locale.ROOT, "%.2fx", ours.opsPerSecond() / base.opsPerSecond())});
        System.out.printf("  %s, %d thread(s): %s ops/s%n", workload, threads, fmt(ours.opsPerSecond()));
    }

    /** The capped budget's row of the main table (and graph): admitted calls per second only, against Bucket4j's. */
    private void admittedRow(String db, int threads, Harness.Result ours, Harness.Result theirs) {
        double admitted = admittedPerSecond(ours);
        String[] cells = {db, "budgeted READ, capped: admitted/s", String.valueOf(threads), fmt(admitted), fmt(ours.p50Micros()),
                fmt(ours.p99Micros()), theirs == null ? "-" : "Bucket4j PG + raw INSERT", theirs == null ? "-" : fmt(admittedPerSecond(theirs)),
                theirs == null ? "-" : fmt(theirs.p50Micros()), theirs == null ? "-" : fmt(theirs.p99Micros()),
                theirs == null ? "-" : String.format(Locale.ROOT, "%.2fx", admitted / admittedPerSecond(theirs))};
        table.add(cells);
        System.out.printf("  budgeted READ (capped), %d thread(s): %s admitted/s, %s refused/s%n", threads, fmt(admitted),
                fmt(ours.opsPerSecond() - admitted));
    }

    private static double admittedPerSecond(Harness.Result result) {
        return result.ops() == 0 ? 0 : result.opsPerSecond() * (result.ops() - result.refused()) / result.ops();
    }

    private void budgetRow(String db, String limiter, int threads, Harness.Result result, int maxInWindow) {
        long admitted = result.ops() - result.refused();
        double admittedRate = admittedPerSecond(result);
        budgetTable.add(new String[] {db, limiter, String.valueOf(threads), fmt(admittedRate), fmt(result.opsPerSecond() - admittedRate),
                String.valueOf(admitted), String.valueOf(result.refused()), String.valueOf(maxInWindow),
                maxInWindow <= CAP ? "exact (cap " + CAP + ")" : "over by " + (maxInWindow - CAP)});
    }

    /** A URL made from a name (a schema's, a file's). */
    @FunctionalInterface
    private interface ThrowingFunction {
        String apply(String name) throws Exception;
    }

    /** See {@link BenchText#printTable}. */
    static void printTable(String[] header, List<String[]> rows) {
        BenchText.printTable(header, rows);
    }

    /** See {@link BenchText#firstSet}. */
    static String firstSet(String... variables) {
        return BenchText.firstSet(variables);
    }

    /** See {@link BenchText#freshSchema}. */
    static String freshSchema(String url, String schema) throws Exception {
        return BenchText.freshSchema(url, schema);
    }
}
