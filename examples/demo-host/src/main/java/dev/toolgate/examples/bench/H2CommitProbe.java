package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.jdbc.JdbcStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a governed READ's commit costs on an H2 file, in process: {@code threads} threads calling a trivial
 * READ for rounds of {@code seconds} (the first a warm-up), each round printing calls per second, calls per
 * H2 chunk (H2 writes one chunk per store of the MVStore, and commits that wait for the store lock while
 * another thread stores share its chunk: H2's group commit), what H2 wrote per call (its
 * {@code info.FILE_WRITE_BYTES}) and this JVM's CPU time per call (the compaction's included).
 *
 * <pre>
 * java -cp ... dev.toolgate.examples.bench.H2CommitProbe [threads=8] [seconds=5] [rounds=3]
 * </pre>
 *
 * <p>{@code -Dbench.h2-fs=async} and {@code -Dbench.h2-settings=";PAGE_SIZE=2048;ANALYZE_AUTO=0"} as in
 * {@link McpLoadBenchmark}.
 */
public final class H2CommitProbe {
    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args.length > 0 ? args[0] : "8");
        int seconds = Integer.parseInt(args.length > 1 ? args[1] : "5");
        int rounds = Integer.parseInt(args.length > 2 ? args[2] : "3");
        Path dir = Files.createTempDirectory("h2probe");
        String file = dir.resolve("probe").toAbsolutePath().toString();
        String url = "jdbc:h2:" + System.getProperty("bench.h2-fs", "interruptsafe") + ":" + file
                + System.getProperty("bench.h2-settings", "");
        try (JdbcStore store = JdbcStore.builder().url(url).build();
             Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(store)
                     .provider(new BenchTools().provider()).budget(ToolBudget.unlimited()).build();
             Connection info = DriverManager.getConnection(store.toString().replaceAll("^JdbcStore\\[H2 (.*)]$", "$1"))) {
            for (int r = 0; r < rounds + 1; r++) {
                long[] before = info(info);
                long cpu0 = Cpu.self();
                LongAdder calls = new LongAdder();
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> ts = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    CallContext ctx = CallContext.of(Principal.user("p" + t, BenchTools.RULE)).withSession("s" + t);
                    Thread th = new Thread(() -> {
                        while (!stop.get()) {
                            gate.call(ctx, BenchTools.PING, "{}");
                            calls.increment();
                        }
                    });
                    ts.add(th);
                    th.start();
                }
                long start = System.nanoTime();
                Thread.sleep(seconds * 1000L);
                stop.set(true);
                for (Thread th : ts) {
                    th.join();
                }
                double secs = (System.nanoTime() - start) / 1e9;
                long cpu = Cpu.self() - cpu0;
                long[] after = info(info);
                long n = calls.sum();
                System.out.printf("%s threads=%d calls/s=%.0f calls/chunk=%.2f writeKB/call=%.1f cpu-us/call=%.0f load=%s%n",
                        r == 0 ? "warmup" : "round" + r, threads, n / secs, n / (double) Math.max(1, after[0] - before[0]),
                        (after[1] - before[1]) / 1024.0 / n, cpu / 1000.0 / n,
                        Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
            }
        }
    }

    private static long[] info(Connection c) throws Exception {
        long version = 0;
        long bytes = 0;
        try (ResultSet rs = c.createStatement().executeQuery("select setting_name, setting_value from information_schema.settings"
                + " where setting_name in ('info.CURRENT_VERSION', 'info.FILE_WRITE_BYTES')")) {
            while (rs.next()) {
                if (rs.getString(1).equals("info.CURRENT_VERSION")) {
                    version = Long.parseLong(rs.getString(2));
                } else {
                    bytes = Long.parseLong(rs.getString(2));
                }
            }
        }
        return new long[] {version, bytes};
    }
}
