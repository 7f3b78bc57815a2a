package dev.toolgate.examples.bench;

import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.BudgetLimit;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.ToolgateStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What one budget admission costs as the cap grows: caps of 10, 100, 1,000 and 10,000 calls per window,
 * on the in-memory store, H2 (a temporary file database) and PostgreSQL, through the store's
 * {@link CallStore#admit} (the statement a budgeted call makes before its tool runs).
 *
 * <p>Each cap's principal is first admitted {@code cap} times, so its ledger is as full as the cap lets
 * it be (a cap's cost shows only once that many admissions are remembered); then each cap warms up, and
 * the caps take turns for {@code -Dbench.rounds} slices of {@code -Dbench.slice-ms} each, so they all see
 * the same background load. The window is 1 ms, so the admissions measured are admitted (below the cap per
 * millisecond: only the cap of 10 can be reached, by admissions under 100 us each, and the few refused are
 * counted in the table's last column) and every one writes; in memory, where an admission takes a microsecond, the store's
 * clock steps by {@code window / cap} at every reading instead. Printed per cell: the p50 latency of one
 * admission and the mean (wall time per admission, from throughput), each as min / median / max over
 * the slices, and per store each cap's median p50 against the smallest cap's (the goal for H2 and
 * PostgreSQL: at most 1.5 for the largest).
 *
 * <pre>
 * TOOLGATE_TEST_PG_URL='jdbc:postgresql://127.0.0.1:5432/test?user=postgres' \
 *   ./mvnw -q -pl examples/demo-host -am compile exec:java -Dexec.mainClass=dev.toolgate.examples.bench.BudgetBenchmark
 * </pre>
 */
public final class BudgetBenchmark {

    private static final int[] CAPS = {10, 100, 1_000, 10_000};
    private static final Duration WINDOW = Duration.ofMillis(1);
    private static final int PRINCIPALS = 1;
    private static final double GOAL = 1.5;

    private final Harness harness;
    private final int rounds;
    private final List<String[]> table = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    private BudgetBenchmark(Harness harness, int rounds) {
        this.harness = harness;
        this.rounds = rounds;
    }

    public static void main(String[] args) throws Exception {
        String pgUrl = args.length > 0 ? args[0] : StorageBenchmark.firstSet("TOOLGATE_BENCH_PG_URL", "TOOLGATE_TEST_PG_URL");
        Duration warmup = Duration.ofMillis(Long.getLong("bench.warmup-ms", 1000));
        Duration slice = Duration.ofMillis(Long.getLong("bench.slice-ms", 1000));
        int rounds = Integer.getInteger("bench.rounds", 5);
        BudgetBenchmark bench = new BudgetBenchmark(new Harness(warmup, slice, rounds), rounds);
        System.out.printf("Toolgate budget admission cost by cap: %d cores; per cell: the ledgers filled, %d ms warmup, %d slices"
                        + " of %d ms per cap, the caps taking turns, 1 thread, %d principal(s) per cap, window %d ms%n",
                Runtime.getRuntime().availableProcessors(), warmup.toMillis(), rounds, slice.toMillis(), PRINCIPALS,
                WINDOW.toMillis());
        // in memory an admission takes about a microsecond, far more per principal per millisecond than any
        // cap here: its clock steps by window / cap per reading instead, so every admission is admitted
        // with exactly the cap's number of earlier ones still in its window (the ledger as full as it gets)
        try (InMemoryStore memory = new InMemoryStore(bench.steppingClock)) {
            bench.store("in-memory", memory);
        }
        Path dir = Files.createTempDirectory("toolgate-budget-bench");
        try (JdbcStore h2 = JdbcStore.builder().url("jdbc:h2:file:" + dir.resolve("bench").toAbsolutePath()).poolSize(4).build()) {
            bench.store("H2", h2);
        }
        if (pgUrl == null) {
            bench.notes.add("PostgreSQL skipped: pass a JDBC URL as the first argument or set TOOLGATE_BENCH_PG_URL");
        } else {
            try (JdbcStore pg = JdbcStore.builder().url(StorageBenchmark.freshSchema(pgUrl, "toolgate_budget_bench")).poolSize(4)
                    .build()) {
                bench.store("PostgreSQL", pg);
            }
        }
        bench.print();
    }

    private void store(String name, ToolgateStore store) throws Exception {
        System.out.printf("running %s ...%n", name);
        CallStore calls = store.calls();
        double smallest = Double.NaN;
        double largest = Double.NaN;
        // warms the JIT and the connections up before the first cap is measured
        BudgetCharge warm = new BudgetCharge("user:warm-up", BudgetLimit.of(CAPS[0], WINDOW));
        steppingClock.step = WINDOW.toNanos() / ((long) CAPS[0] * PRINCIPALS);
        Harness.drive(1, t -> admit(calls, warm), Duration.ofSeconds(3));
        // each cap's ledgers filled first; then the caps take turns slice by slice, so all see the same
        // background (other processes, checkpoints, vacuum) rather than one cap getting a quiet minute
        List<Harness.Op> ops = new ArrayList<>();
        for (int cap : CAPS) {
            steppingClock.step = WINDOW.toNanos() / ((long) cap * PRINCIPALS);
            BudgetCharge[] charges = new BudgetCharge[PRINCIPALS];
            for (int p = 0; p < PRINCIPALS; p++) {
                charges[p] = new BudgetCharge("user:cap" + cap + "-" + p, BudgetLimit.of(cap, WINDOW));
                for (int i = 0; i < cap; i++) {
                    admit(calls, charges[p]);
                }
            }
            int[] turn = new int[1];
            long step = steppingClock.step;
            ops.add(t -> {
                steppingClock.step = step;
                return admit(calls, charges[turn[0]++ % PRINCIPALS]);
            });
        }
        Harness.Result[][] results = harness.rounds(1, ops);
        for (int c = 0; c < CAPS.length; c++) {
            int cap = CAPS[c];
            double[] cost = new double[rounds];
            double[] p50 = new double[rounds];
            long refused = 0;
            for (int r = 0; r < rounds; r++) {
                cost[r] = 1e6 / results[r][c].opsPerSecond();
                p50[r] = results[r][c].p50Micros();
                refused += results[r][c].refused();
            }
            // the ratio compares median p50 latencies: on a loaded machine the mean (from throughput) also
            // measures how often the benchmark's thread was descheduled; both are printed
            double median = median(p50);
            if (cap == CAPS[0]) {
                smallest = median;
            }
            if (cap == CAPS[CAPS.length - 1]) {
                largest = median;
            }
            table.add(new String[] {name, String.format(Locale.ROOT, "%,d", cap), spread(p50), spread(cost),
                    String.format(Locale.ROOT, "%.2fx", median / smallest), String.valueOf(refused)});
            System.out.printf("  cap %,d: p50 %.1f us per admission (median of the slices)%n", cap, median);
        }
        double ratio = largest / smallest;
        if (!"in-memory".equals(name) && ratio > GOAL) {
            notes.add(String.format(Locale.ROOT, "goal missed: on %s the largest cap's admission costs %.2fx the smallest's"
                    + " (goal at most %.1fx)", name, ratio, GOAL));
        }
    }

    private final SteppingClock steppingClock = new SteppingClock();

    /** A clock that moves {@code step} nanoseconds forward at every reading (for the in-memory store). */
    private static final class SteppingClock extends java.time.Clock {
        private final java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
        private final java.time.Instant start = java.time.Instant.parse("2026-01-01T00:00:00Z");
        volatile long step;

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public java.time.Instant instant() {
            return start.plusNanos(nanos.addAndGet(step));
        }
    }

    /** One admission; false when refused. */
    private static boolean admit(CallStore calls, BudgetCharge charge) {
        try {
            calls.admit(charge);
            return true;
        } catch (BudgetExceededException e) {
            return false;
        }
    }

    private void print() {
        System.out.println();
        System.out.println("Budget admission cost by cap (p50 = median latency of one admission in a slice; mean = 1e6 /"
                + " admissions per second; each min / median / max over the slices; ratio = median p50 / the smallest cap's"
                + " median p50, same store; refused = admissions refused in the slices: few or none, as a cap of 10 is reached"
                + " within the 1 ms window only by admissions under 100 us, and a refusal, which writes nothing, only makes"
                + " that cap look cheaper)");
        StorageBenchmark.printTable(new String[] {"store", "cap", "p50 us min/med/max", "mean us min/med/max", "ratio",
                "refused"}, table);
        notes.forEach(n -> System.out.println("note: " + n));
    }

    private static String spread(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "%.1f / %.1f / %.1f", sorted[0], median(values), sorted[sorted.length - 1]);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
