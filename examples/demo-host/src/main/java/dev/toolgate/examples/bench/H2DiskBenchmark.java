package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.jdbc.JdbcStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.MVStoreTool;

/**
 * What the embedded H2 store's file costs under a write-heavy load, for each way of keeping it small:
 * governed READ calls (one audit row each) from 8 threads on a fresh H2 file, and for each setting the
 * calls/s, the bytes of file grown per call, the file at the end of the load, its live data (the size
 * of the file compacted by {@link MVStoreTool#compact} once the database is closed) and their ratio,
 * the CPU time of the compaction thread per call, and the bytes H2 wrote to the file per call (the calls'
 * chunks and the compaction's rewrites). Each setting is warmed up, then measured in fresh
 * databases {@code -Dbench.repeats} times (default 3): the table shows min/median/max.
 *
 * <pre>
 * ./mvnw -q -pl examples/demo-host -am compile exec:java -Dexec.mainClass=dev.toolgate.examples.bench.H2DiskBenchmark
 * </pre>
 *
 * Settings: {@code -Dbench.seconds} (measured seconds per repeat, default 15), {@code -Dbench.warmup-seconds}
 * (default 3), {@code -Dbench.threads} (8), {@code -Dbench.variants=1,4} (only those rows of the table),
 * {@code -Dbench.h2-fs=nio} (H2's file system, default {@code interruptsafe}, the one the store opens a file URL on),
 * {@code -Dbench.keep-seconds=N} (purge every second what finished more than N s before, as retention
 * does, so that the live data levels off; default 0, no purge, as the default 90-day retention in a
 * short run), {@code -Dbench.h2-settings=;PAGE_SIZE=4096} (appended to the URL the store opens).
 */
public final class H2DiskBenchmark {

    private static final Duration KEEP = Duration.ofSeconds(Integer.getInteger("bench.keep-seconds", 0));
    private static final AtomicLong ERRORS = new AtomicLong();

    /** One way to run the H2 file: the store's compaction settings and SQL run after the store opened. */
    private record Variant(String name, Duration interval, int fillRate, String sql, boolean compactFile,
                           Duration retention, Duration writeBehind) {
        Variant(String name, Duration interval, int fillRate, String sql) {
            this(name, interval, fillRate, sql, false, Duration.ZERO);
        }

        Variant(String name, Duration interval, int fillRate, String sql, boolean compactFile) {
            this(name, interval, fillRate, sql, compactFile, Duration.ZERO);
        }

        Variant(String name, Duration interval, int fillRate, String sql, boolean compactFile, Duration retention) {
            this(name, interval, fillRate, sql, compactFile, retention, Duration.ZERO);
        }
    }

    // every compaction row runs with a retention time of 0 unless it says otherwise
    private static final List<Variant> VARIANTS = List.of(
            new Variant("no compaction (before)", Duration.ZERO, 80, null, false, Duration.ofSeconds(45)),
            new Variant("no compaction, RETENTION_TIME 0", Duration.ZERO, 80, "SET RETENTION_TIME 0"),
            new Variant("H2 housekeeping: WRITE_DELAY 500 (unsafe)", Duration.ZERO, 80, "SET WRITE_DELAY 500"),
            new Variant("compaction 1 s, fill 80%", Duration.ofSeconds(1), 80, null),
            new Variant("compaction 1 s, fill 50%", Duration.ofSeconds(1), 50, null),
            new Variant("compaction 5 s, fill 80%", Duration.ofSeconds(5), 80, null),
            new Variant("compaction 1 s, fill 80%, RETENTION_TIME 45000", Duration.ofSeconds(1), 80,
                    "SET RETENTION_TIME 45000"),
            new Variant("MVStore.compactFile(200 ms) every 1 s", Duration.ZERO, 80, null, true),
            new Variant("compaction 250 ms, fill 80%, retention 0", Duration.ofMillis(250), 80, null),
            new Variant("compaction 250 ms, fill 90%", Duration.ofMillis(250), 90, null),
            new Variant("compaction 100 ms, fill 80%", Duration.ofMillis(100), 80, null),
            new Variant("compaction 50 ms, fill 80%", Duration.ofMillis(50), 80, null),
            new Variant("compaction 250 ms, fill 80%, retention 45 s (H2's default)", Duration.ofMillis(250), 80, null, false,
                    Duration.ofSeconds(45)),
            new Variant("compaction 250 ms, fill 80%, retention 2 s (the store's default)", Duration.ofMillis(250), 80, null,
                    false, Duration.ofSeconds(2)),
            new Variant("the store's default, read rows written behind (100 ms, opt-in)", Duration.ofMillis(250), 80, null,
                    false, Duration.ofSeconds(2), Duration.ofMillis(100)));

    /** One measured run of a setting. */
    private record Run(double callsPerSecond, double bytesPerCall, long fileBytes, long liveBytes, double cpuMicrosPerCall,
                       double writtenPerCall) {
        double ratio() {
            return (double) fileBytes / liveBytes;
        }
    }

    public static void main(String[] args) throws Exception {
        int seconds = Integer.getInteger("bench.seconds", 15);
        int warmup = Integer.getInteger("bench.warmup-seconds", 3);
        int repeats = Integer.getInteger("bench.repeats", 3);
        int threads = Integer.getInteger("bench.threads", 8);
        long started = System.nanoTime();
        System.out.printf(Locale.ROOT, "H2 file under governed READ calls: %d threads, %d s warm-up + %d s measured, %d"
                + " repeats, %s; load average %s%n", threads, warmup, seconds, repeats, KEEP.isZero() ? "no purge"
                : "purge every 1 s of what finished " + KEEP.toSeconds() + " s before", McpLoadBenchmark.loadAverage());
        List<String[]> rows = new ArrayList<>();
        String only = System.getProperty("bench.variants");
        for (int v = 0; v < VARIANTS.size(); v++) {
            Variant variant = VARIANTS.get(v);
            if (only != null && !Arrays.asList(only.split(",")).contains(String.valueOf(v + 1))) {
                continue;
            }
            List<Run> runs = new ArrayList<>();
            for (int r = 0; r < repeats; r++) {
                runs.add(run(variant, threads, warmup, seconds));
            }
            rows.add(new String[] {variant.name(),
                    spread(runs.stream().mapToDouble(Run::callsPerSecond).toArray(), "%,.0f"),
                    spread(runs.stream().mapToDouble(Run::bytesPerCall).toArray(), "%,.0f"),
                    spread(runs.stream().mapToDouble(x -> x.fileBytes() / 1048576.0).toArray(), "%.1f"),
                    spread(runs.stream().mapToDouble(x -> x.liveBytes() / 1048576.0).toArray(), "%.1f"),
                    spread(runs.stream().mapToDouble(Run::ratio).toArray(), "%.2f"),
                    spread(runs.stream().mapToDouble(Run::cpuMicrosPerCall).toArray(), "%.1f"),
                    spread(runs.stream().mapToDouble(x -> x.writtenPerCall() / 1024).toArray(), "%.1f")});
            System.out.println("  done: " + variant.name());
        }
        System.out.println();
        StorageBenchmark.printTable(new String[] {"setting", "calls/s", "file bytes/call", "file MB at end",
                "live MB", "file/live", "compaction CPU us/call", "KB written/call"}, rows);
        System.out.printf(Locale.ROOT, "min/median/max of %d repeats; load average at the end %s; total %.0f s%n", repeats,
                McpLoadBenchmark.loadAverage(), (System.nanoTime() - started) / 1e9);
        if (ERRORS.get() > 0) {
            System.out.println("error: " + ERRORS.get() + " calls failed");
        }
        System.exit(ERRORS.get() == 0 ? 0 : 1);
    }

    private static Run run(Variant variant, int threads, int warmup, int seconds) throws Exception {
        Path dir = Files.createTempDirectory("toolgate-h2-disk");
        // the file system the store opens a file URL on (interruptsafe:), so that this class's own connections
        // join the same database; -Dbench.h2-fs=nio measures H2's default one
        String url = "jdbc:h2:" + System.getProperty("bench.h2-fs", "interruptsafe") + ":" + dir.resolve("bench").toAbsolutePath()
                + System.getProperty("bench.h2-settings", "");
        Path file = dir.resolve("bench.mv.db");
        Run measured;
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(threads + 2)
                .h2Compaction(variant.interval(), variant.fillRate(), variant.retention())
                .writeBehind(variant.writeBehind()).build();
             Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(store)
                     .provider(new BenchTools().provider()).budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO)
                     .build()) {
            if (variant.sql() != null) {
                try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
                    s.execute(variant.sql());
                }
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong calls = new AtomicLong();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                CallContext ctx = CallContext.of(Principal.user("writer" + t, BenchTools.RULE)).withTenant("acme")
                        .withSession("disk-" + t);
                Thread worker = new Thread(() -> {
                    while (!stop.get()) {
                        try {
                            gate.call(ctx, BenchTools.PING, "{}");
                        } catch (RuntimeException e) {
                            if (ERRORS.incrementAndGet() == 1) {
                                System.out.println("  a call failed: " + e);
                            }
                        }
                        calls.incrementAndGet();
                    }
                }, "h2-disk-writer-" + t);
                worker.start();
                workers.add(worker);
            }
            Thread purger = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        Thread.sleep(1000);
                        if (!KEEP.isZero()) {
                            gate.purge(Instant.now().minus(KEEP));
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "h2-disk-purger");
            purger.setDaemon(true);
            purger.start();
            Thread compactor = new Thread(() -> {
                while (variant.compactFile() && !stop.get()) {
                    try (Connection c = DriverManager.getConnection(url)) {
                        Thread.sleep(1000);
                        ((SessionLocal) c.unwrap(JdbcConnection.class).getSession()).getDatabase().getStore().getMvStore()
                                .compactFile(200);
                    } catch (Exception e) {
                        System.out.println("  compactFile failed: " + e);
                        return;
                    }
                }
            }, "h2-disk-compactor");
            compactor.start();
            Thread.sleep(warmup * 1000L);
            long callsBefore = calls.get();
            long cpuBefore = compactionCpuNanos();
            long writtenBefore = writtenBytes(url);
            long fileBefore = Files.size(file);
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            long made = calls.get() - callsBefore;
            double cpuPerCall = (compactionCpuNanos() - cpuBefore) / 1000.0 / made;
            double writtenPerCall = (writtenBytes(url) - writtenBefore) / (double) made;
            double elapsed = (System.nanoTime() - t0) / 1e9;
            long fileAfter = Files.size(file);
            stop.set(true);
            for (Thread worker : workers) {
                worker.join();
            }
            compactor.join();
            purger.join(); // never interrupted: an interrupt inside H2's file I/O closes the database's file
            measured = new Run(made / elapsed, (fileAfter - fileBefore) / (double) made, fileAfter, 0, cpuPerCall,
                    writtenPerCall);
        }
        try {
            // the database is closed now; its file, compacted in place, is its live data (closing adds none)
            MVStoreTool.compact(file.toAbsolutePath().toString(), false);
            return new Run(measured.callsPerSecond(), measured.bytesPerCall(), measured.fileBytes(), Files.size(file),
                    measured.cpuMicrosPerCall(), measured.writtenPerCall());
        } finally {
            try (var files = Files.walk(dir)) {
                for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** CPU time of the threads that compact (the store's and this benchmark's), in ns. */
    /**
     * Bytes H2 has written to the database's file since it was opened: calls' chunks and the compaction's
     * rewrites (H2 keeps the counter, {@code FileStore.getWriteBytes}, to itself; read by reflection).
     */
    private static long writtenBytes(String url) throws Exception {
        try (Connection c = DriverManager.getConnection(url)) {
            var fileStore = ((SessionLocal) c.unwrap(JdbcConnection.class).getSession()).getDatabase().getStore().getMvStore()
                    .getFileStore();
            var counter = org.h2.mvstore.FileStore.class.getDeclaredMethod("getWriteBytes");
            counter.setAccessible(true);
            return (long) counter.invoke(fileStore);
        }
    }

    private static long compactionCpuNanos() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (ThreadInfo info : threads.dumpAllThreads(false, false)) {
            String name = info.getThreadName();
            if (name.startsWith("toolgate-h2-compaction-") || name.equals("h2-disk-compactor")) {
                total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return total;
    }

    private static String spread(double[] values, String format) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, format + "/" + format + "/" + format, sorted[0], sorted[sorted.length / 2],
                sorted[sorted.length - 1]);
    }
}
