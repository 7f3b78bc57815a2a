package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.jdbc.JdbcStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A budgeted governed READ on PostgreSQL against Bucket4j's PostgreSQL backend (its advisory-lock proxy
 * manager) followed by a raw INSERT of the same audit row, over 100 principals, at 1 and 4 threads, in
 * two workloads that answer different questions:
 * <ul>
 *   <li><b>admitted</b>: a cap no principal reaches (1,000 calls per 10 s, with each principal called
 *       about 20 times a second at most), so every call is admitted and both sides pay their whole
 *       admitted path: Toolgate's admission statement and its audit row, Bucket4j's locked read-modify-write
 *       and the raw insert. The goal: Toolgate's admitted calls per second at least 1.5 times Bucket4j's,
 *       printed per round with the median and spread, and no call refused on either side.</li>
 *   <li><b>capped</b>: 5 calls per second per principal, far below what the threads offer, so most calls
 *       are refused. Admitted and refused calls per second are printed apart: a refusal that the instance
 *       already knows needs no statement, so the total rate there mostly prices refusals (the old
 *       single figure read 94x). Both sides must keep their promise: the most admissions of any
 *       principal in any sliding window is at most the cap for Toolgate's sliding window, and at most
 *       twice the cap for Bucket4j's bucket, which is refilled with the cap at each interval (the end of
 *       one interval and the start of the next fit in one window).</li>
 * </ul>
 * Each workload's two sides take turns slice by slice ({@link Harness}).
 *
 * <pre>
 * TOOLGATE_TEST_PG_URL='jdbc:postgresql://127.0.0.1:5432/test?user=postgres' \
 *   ./mvnw -q -pl examples/demo-host -am compile exec:java -Dexec.mainClass=dev.toolgate.examples.bench.BudgetVersusBucket4j
 * </pre>
 * {@code -Dbench.slice-ms} (default 1000), {@code -Dbench.rounds} (default 5), {@code -Dbench.warmup-ms}
 * (default 1000 per slice warm-up, after 20 s of warm-up of both sides).
 */
public final class BudgetVersusBucket4j {

    private static final int PRINCIPALS = 100;
    private static final int[] THREADS = {1, 4};
    private static final int POOL_SIZE = 8;
    private static final double GOAL = 1.5;

    /** One workload's limit. */
    private record Workload(String name, int cap, Duration window) {
    }

    private static final Workload ADMITTED = new Workload("admitted", 1_000, Duration.ofSeconds(10));
    private static final Workload CAPPED = new Workload("capped", 5, Duration.ofSeconds(1));

    private final Harness harness;
    private final List<String[]> table = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    private BudgetVersusBucket4j(Harness harness) {
        this.harness = harness;
    }

    public static void main(String[] args) throws Exception {
        String pgUrl = args.length > 0 ? args[0] : StorageBenchmark.firstSet("TOOLGATE_BENCH_PG_URL", "TOOLGATE_TEST_PG_URL");
        if (pgUrl == null) {
            throw new IllegalArgumentException("pass a PostgreSQL JDBC URL as the first argument or set TOOLGATE_BENCH_PG_URL");
        }
        Harness harness = new Harness(Duration.ofMillis(Long.getLong("bench.warmup-ms", 1000)),
                Duration.ofMillis(Long.getLong("bench.slice-ms", 1000)), Integer.getInteger("bench.rounds", 5));
        System.out.printf(Locale.ROOT, "Budgeted READ vs Bucket4j on PostgreSQL: %d principals, %d cores, %d rounds; load %s%n",
                PRINCIPALS, Runtime.getRuntime().availableProcessors(), harness.rounds(), load());
        BudgetVersusBucket4j bench = new BudgetVersusBucket4j(harness);
        for (Workload workload : List.of(ADMITTED, CAPPED)) {
            bench.run(pgUrl, workload);
        }
        bench.print();
    }

    private void run(String pgUrl, Workload workload) throws Exception {
        System.out.printf(Locale.ROOT, "running %s (cap %d per %d ms) ...%n", workload.name(), workload.cap(), workload.window().toMillis());
        String url = StorageBenchmark.freshSchema(pgUrl, "toolgate_budget_vs_b4j");
        BenchTools tools = new BenchTools();
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(POOL_SIZE).build();
             RawBaseline raw = new RawBaseline(url, RawBaseline.script(true), POOL_SIZE);
             Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(store)
                     .provider(tools.provider()).budget(ToolBudget.perPrincipal(workload.cap(), workload.window()))
                     .sweepInterval(Duration.ZERO).build()) {
            Bucket4jBaseline bucket4j = new Bucket4jBaseline(raw.dataSource(), workload.cap(), workload.window());
            CallContext[] warm = contexts("warm-" + workload.name() + "-");
            Harness.drive(4, t -> ours(gate, warm), Duration.ofSeconds(10));
            Harness.drive(4, t -> theirs(bucket4j, raw, "warm-b4j-" + workload.name() + "-", 90_000), Duration.ofSeconds(10));
            for (int threads : THREADS) {
                String prefix = workload.name() + "-" + threads + "-";
                CallContext[] principals = contexts(prefix);
                String theirsPrefix = "b4j-" + prefix;
                long theirsBase = (workload == ADMITTED ? 0 : 50_000) + threads * 1_000L;
                Harness.Result[][] rounds = harness.rounds(threads, t -> ours(gate, principals),
                        t -> theirs(bucket4j, raw, theirsPrefix, theirsBase));
                int oursMax = maxInAnyWindow(raw.admissions("toolgate_call", BenchTools.PING, "user:" + prefix), workload.window());
                int theirsMax = maxInAnyWindow(raw.admissions(RawBaseline.TABLE, "bucket4j", "user:" + theirsPrefix), workload.window());
                report(workload, threads, rounds, oursMax, theirsMax);
            }
        }
    }

    private void report(Workload workload, int threads, Harness.Result[][] rounds, int oursMax, int theirsMax) {
        double[] ratios = new double[rounds.length];
        long oursRefused = 0;
        long theirsRefused = 0;
        for (int r = 0; r < rounds.length; r++) {
            ratios[r] = admittedPerSecond(rounds[r][0]) / admittedPerSecond(rounds[r][1]);
            oursRefused += rounds[r][0].refused();
            theirsRefused += rounds[r][1].refused();
        }
        String side = workload.name() + ", " + threads + " thread(s)";
        table.add(row(side, "Toolgate", rounds, 0, oursMax, workload.cap()));
        table.add(row(side, "Bucket4j + INSERT", rounds, 1, theirsMax, workload.cap()));
        String ratio = spread(ratios, "%.2fx");
        System.out.printf(Locale.ROOT, "  %s: admitted/s ratio per round %s%n", side, Arrays.toString(Arrays.stream(ratios)
                .mapToObj(v -> String.format(Locale.ROOT, "%.2f", v)).toArray()));
        if (workload == ADMITTED) {
            notes.add(String.format(Locale.ROOT, "admitted path at %d thread(s): Toolgate / Bucket4j admitted calls per second %s"
                    + " (min/median/max over rounds; goal at least %.1fx)", threads, ratio, GOAL));
            if (median(ratios) < GOAL) {
                notes.add(String.format(Locale.ROOT, "goal missed: the admitted path at %d thread(s) is %.2fx of Bucket4j's (goal %.1fx)",
                        threads, median(ratios), GOAL));
            }
            if (oursRefused + theirsRefused > 0) {
                notes.add(String.format(Locale.ROOT, "the admitted workload refused calls (Toolgate %d, Bucket4j %d): its cap was reached",
                        oursRefused, theirsRefused));
            }
        }
        // Toolgate's budget is a sliding window: never more than the cap in any window. Bucket4j's bucket is
        // refilled with the cap at each interval, so a sliding window may hold the end of one interval's
        // tokens and the next interval's: at most twice the cap is its contract
        if (oursMax > workload.cap()) {
            notes.add(String.format(Locale.ROOT, "NOT EXACT: at %s Toolgate let %d calls of one principal into one window; the cap is %d",
                    side, oursMax, workload.cap()));
        }
        if (theirsMax > 2 * workload.cap()) {
            notes.add(String.format(Locale.ROOT, "NOT EXACT: at %s Bucket4j let %d calls of one principal into one window; its bucket"
                    + " allows at most %d (twice the cap)", side, theirsMax, 2 * workload.cap()));
        }
    }

    private static String[] row(String workload, String who, Harness.Result[][] rounds, int side, int max, int cap) {
        double[] admitted = new double[rounds.length];
        double[] refused = new double[rounds.length];
        double[] p50 = new double[rounds.length];
        for (int r = 0; r < rounds.length; r++) {
            Harness.Result result = rounds[r][side];
            admitted[r] = admittedPerSecond(result);
            refused[r] = result.opsPerSecond() - admitted[r];
            p50[r] = result.p50Micros();
        }
        return new String[] {workload, who, spread(admitted, "%.0f"), spread(refused, "%.0f"), spread(p50, "%.0f"),
                max + " / " + (side == 0 ? cap : 2 * cap)};
    }

    /** Calls per second that were admitted: the result's rate times its admitted share. */
    private static double admittedPerSecond(Harness.Result result) {
        return result.ops() == 0 ? 0 : result.opsPerSecond() * (result.ops() - result.refused()) / result.ops();
    }

    private static boolean ours(Toolgate gate, CallContext[] principals) {
        try {
            gate.call(principals[ThreadLocalRandom.current().nextInt(principals.length)], BenchTools.PING, "{}");
            return true;
        } catch (BudgetExceededException e) {
            return false;
        }
    }

    private static boolean theirs(Bucket4jBaseline bucket4j, RawBaseline raw, String prefix, long base) throws Exception {
        int p = ThreadLocalRandom.current().nextInt(PRINCIPALS);
        if (!bucket4j.tryConsume(base + p)) {
            return false;
        }
        raw.insertExecuted("bucket4j", "user:" + prefix + p, "s");
        return true;
    }

    private static CallContext[] contexts(String prefix) {
        CallContext[] contexts = new CallContext[PRINCIPALS];
        for (int i = 0; i < PRINCIPALS; i++) {
            contexts[i] = CallContext.of(Principal.user(prefix + i, BenchTools.RULE)).withTenant("acme").withSession("bench-" + prefix + i);
        }
        return contexts;
    }

    /** The most admissions of any one principal inside any window {@code (t - window, t]}. */
    static int maxInAnyWindow(Map<String, List<Instant>> byPrincipal, Duration window) {
        int max = 0;
        for (List<Instant> admissions : byPrincipal.values()) {
            List<Instant> sorted = new ArrayList<>(admissions);
            Collections.sort(sorted);
            int start = 0;
            for (int end = 0; end < sorted.size(); end++) {
                while (!sorted.get(start).isAfter(sorted.get(end).minus(window))) {
                    start++;
                }
                max = Math.max(max, end - start + 1);
            }
        }
        return max;
    }

    private void print() {
        System.out.printf(Locale.ROOT, "%nBudgeted READ vs Bucket4j on PostgreSQL (per second, min / median / max over the rounds;"
                + " p50 of every call, admitted or refused; exact: the most admissions of a principal in any sliding window / what"
                + " the limiter promises: the cap for Toolgate's sliding window, twice the cap for Bucket4j's bucket refilled at each"
                + " interval);"
                + " load %s%n", load());
        StorageBenchmark.printTable(new String[] {"workload", "side", "admitted/s", "refused/s", "p50 us", "exact"}, table);
        notes.forEach(n -> System.out.println("note: " + n));
    }

    /** The machine's load average (1, 5, 15 minutes), or "?" where it cannot be read. */
    private static String load() {
        try {
            String[] parts = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (java.io.IOException | RuntimeException e) {
            return "?";
        }
    }

    private static String spread(double[] values, String format) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, format + " / " + format + " / " + format, sorted[0], median(values), sorted[sorted.length - 1]);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
