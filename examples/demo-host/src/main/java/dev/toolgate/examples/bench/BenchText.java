package dev.toolgate.examples.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

/**
 * Text and set-up helpers of {@link StorageBenchmark} that the other benchmarks share: tables, numbers,
 * CPU notes, the first environment variable set, a fresh PostgreSQL schema.
 */
final class BenchText {

    private BenchText() {
    }

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

    static String fmt(double value) {
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
    static String cpuNote(String store, String workload, int threads, Harness.Result ours, String baseline,
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

    static String freshSchema(String url, String schema) throws Exception {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            s.execute("CREATE SCHEMA " + schema);
        }
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    /** The values, sorted. */
    static double[] sorted(java.util.stream.DoubleStream values) {
        return values.sorted().toArray();
    }

    /** The median of sorted values. */
    static double median(double[] sorted) {
        return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
}
