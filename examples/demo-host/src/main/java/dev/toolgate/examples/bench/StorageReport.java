package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** The report of {@link StorageBenchmark}: its tables and notes printed, its ratios written as a CSV and a chart. */
final class StorageReport {

    private StorageReport() {
    }

    /** Prints the tables and notes, and writes the CSV and chart. */
    static void print(List<String[]> table, List<String[]> budgetTable, List<String> notes, Duration elapsed) {
        System.out.println();
        System.out.println("Throughput and latency (ratio = ops/s of Toolgate / ops/s of the baseline, same database, same threads)");
        BenchText.printTable(TABLE_HEADER, table);
        System.out.println();
        System.out.printf("Budget admissions: %d principals, cap %d per sliding %d s window; max = most admissions of one"
                + " principal in any window (from the audit rows)%n", StorageBenchmark.PRINCIPALS, StorageBenchmark.CAP,
                StorageBenchmark.WINDOW.toSeconds());
        BenchText.printTable(new String[] {"database", "limiter", "thr", "admitted/s", "refused/s", "admitted*", "refused*", "max/window",
                "verdict"},
                budgetTable);
        System.out.println("* in the timed slices. Bucket4j: capacity " + StorageBenchmark.CAP + ", refilled by "
                + StorageBenchmark.CAP + " every "
                + StorageBenchmark.WINDOW.toSeconds() + " s (refillIntervally), keys locked with pg_advisory_xact_lock; its admissions are"
                + " counted from the audit rows it inserts after each consumed token. Toolgate refuses a principal it"
                + " saw refused again on the same instance, without a statement, until the slot that refusal waits for"
                + " frees (toolgate-jdbc's KnownRefusals); Bucket4j's backend asks the database for every call. So the"
                + " refused calls per second price refusals, not the limiter's admitted path: that is BudgetVersusBucket4j's"
                + " (a cap no call reaches, the admitted path against Bucket4j's).");
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
}
