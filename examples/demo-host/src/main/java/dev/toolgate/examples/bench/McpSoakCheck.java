package dev.toolgate.examples.bench;

import dev.toolgate.examples.mcp.McpDemoServer;
import dev.toolgate.spi.InMemoryStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A soak with pass/fail checks: starts the demo MCP server ({@link McpDemoServer}, Streamable HTTP, no
 * budget) as a child JVM with a small heap on one store, drives kept-alive MCP clients against it for
 * a while, and checks that no call failed, that the heap after a full GC stayed flat, and that the
 * server still answers at the end. Exits 1 if a check failed.
 *
 * <pre>
 * ./mvnw -q -pl examples/demo-host -am compile exec:java -Dexec.mainClass=dev.toolgate.examples.bench.McpSoakCheck \
 *     -Dexec.args="--seconds 600 --stores memory,h2,postgres"
 * </pre>
 *
 * <p>The child is the same {@code java} ({@code java.home}) on this process's classpath, run as
 * {@code java -Xmx256m -XX:+UseG1GC -Xlog:gc,gc+heap=debug:file=gc.log McpDemoServer --transport http
 * --port 0 --budget 0 --db STORE}. Each client ({@code --clients}, default 8) is one MCP session as
 * carol on its own kept-alive HTTP/1.1 connection ({@link McpSession}), calling READ tools in turn
 * ({@code docs.searchDocs}, {@code catalog.listSystems}, {@code docs.getDoc}, {@code incident.list},
 * {@code incident.get}) as fast as answers come. Every sample interval (10 s; a sixth of the run, at
 * least 3 s, for runs under 100 s) it runs {@code jcmd PID GC.run} (a full GC, logged as "Diagnostic
 * Command") and reads the heap left after it from the child's GC log (in KB), and prints calls, errors,
 * p50/p99 latency of the interval, that heap, the child's resident memory and the store's size on disk.
 *
 * <p>Checks, for each store:
 * <ul>
 *   <li>errors: every call answered HTTP 200 with a result that is not {@code isError}, and the server
 *       logged no ERROR and no {@code OutOfMemoryError};</li>
 *   <li>heap: the heap after a full GC at the end is at most 1.25 x the first sample at or after 20% of
 *       the run, plus 8 MB. Before 20% the heap still fills with what a server holds once (classes'
 *       statics, the docs index, JIT-triggered caches, the sessions); afterwards a bounded server stays
 *       put. The 8 MB absorb caches that fill up to a bound of their own (H2's page cache goes on
 *       filling as the database file grows), per-connection buffers and G1's region granularity;
 *       the 25% the noise that grows with the heap. A store that keeps
 *       every call's record in memory grows by kilobytes per call, which over a ten-minute soak is far
 *       beyond both. It also prints the growth per call between the two samples, the figure to watch
 *       in a short run;</li>
 *   <li>answering: the child is still running and a new session's {@code catalog.listSystems} is
 *       answered after the load has stopped;</li>
 *   <li>disk (H2): the H2 files, sampled every 250 ms for 10 s after the load stopped ({@code
 *       -Dsoak.settle-ms}) with the server still running, end at most twice the live data: the size of a
 *       compacted copy of the file ({@link H2LiveData}) once the server stopped. It also prints the ratio
 *       at the last sample while the clients still called, when the files first came within twice the
 *       data, and the ratio 3 s after the load.</li>
 * </ul>
 *
 * <p>The in-memory store grows by design until it holds its cap of finished calls
 * ({@code memory.max-finished-calls}, passed to the child as {@code -Dtoolgate.memory.max-finished-calls}:
 * {@code --memory-cap N}, default the store's own 50,000 for runs of 100 s or more and 2,000 for shorter
 * ones, so that a 30-second run reaches it in its first seconds); its heap check starts no earlier than
 * the first sample by which that many calls were made. Where the clients are slower than that (a slow
 * machine), its load goes on past {@code --seconds} until two samples follow the cap, at most three times
 * {@code --seconds} in all, and the run says so.
 *
 * <p>Options: {@code --seconds N} (default 600), {@code --clients N} (8), {@code --stores memory,h2,postgres}
 * (default memory and h2, and postgres when a URL is known), {@code --pg-url JDBC_URL} (default
 * {@code TOOLGATE_TEST_PG_URL}; the soak works in its own schema {@code toolgate_soak}, created afresh),
 * {@code --xmx 256m}, {@code --sample-seconds N}, {@code --memory-cap N}, {@code --h2-retention-ms N} (the
 * H2 store's {@code jdbc.h2.retention-time-ms}; default the store's 2 s: with H2's 45 s the file holds up
 * to 45 s of writes beyond its data and the disk check fails), {@code --parallel} (soak the stores at the same time, each
 * with its own server and clients, and print each report when it ends: quicker, and each store then
 * shares the machine with the others). On a pass the store's temporary directory (H2 files,
 * server log, GC log) is deleted and the PostgreSQL schema dropped; on a failure they are kept and named.
 */
public final class McpSoakCheck {

    static final String TOKEN = "carol-token";
    static final String[] CALLS = {
        "{\"name\":\"docs.searchDocs\",\"arguments\":{\"query\":\"roll back a durable run\"}}",
        "{\"name\":\"catalog.listSystems\",\"arguments\":{}}",
        "{\"name\":\"docs.getDoc\",\"arguments\":{\"slug\":\"lib-jdbc\"}}",
        "{\"name\":\"incident.list\",\"arguments\":{}}",
        "{\"name\":\"incident.get\",\"arguments\":{\"id\":\"INC-1\"}}",
    };
    private static final String FINAL_CALL = "{\"name\":\"catalog.listSystems\",\"arguments\":{}}";
    private static final String PG_SCHEMA = "toolgate_soak";
    /** The in-memory store's finished-call cap in a run under 100 s: reached in its first seconds. */
    private static final int SHORT_RUN_MEMORY_CAP = 2_000;
    /** The H2 file at the end of the load may be at most this many times its live data. */
    private static final double DISK_FACTOR = 2.0;
    /** How long after the load the H2 files may take to come within {@link #DISK_FACTOR} of the live data. */
    private static final long SETTLE_MS = Long.getLong("soak.settle-ms", 10_000);
    /** How often the H2 files are measured after the load. */
    private static final long SETTLE_SAMPLE_MS = 250;

    /** Parsed options. */
    record Options(int seconds, int clients, List<String> stores, String pgUrl, String xmx, int sampleSeconds,
                   boolean parallel, int memoryCap, String h2RetentionMs) {

        static Options parse(String[] args) {
            Map<String, String> values = new LinkedHashMap<>();
            boolean parallel = false;
            for (int i = 0; i < args.length; i++) {
                String key = args[i];
                if (key.equals("--parallel")) {
                    parallel = true;
                    continue;
                }
                if (!List.of("--seconds", "--clients", "--stores", "--pg-url", "--xmx", "--sample-seconds", "--memory-cap",
                        "--h2-retention-ms")
                        .contains(key)
                        || i + 1 >= args.length) {
                    throw new IllegalArgumentException("unknown option or missing value: " + key);
                }
                values.put(key, args[++i]);
            }
            String pgUrl = values.getOrDefault("--pg-url", StorageBenchmark.firstSet("TOOLGATE_TEST_PG_URL"));
            List<String> stores = List.of(values.getOrDefault("--stores", pgUrl == null ? "memory,h2" : "memory,h2,postgres")
                    .toLowerCase(Locale.ROOT).split(","));
            for (String store : stores) {
                if (!List.of("memory", "h2", "postgres").contains(store)) {
                    throw new IllegalArgumentException("--stores takes memory, h2 and postgres, not " + store);
                }
            }
            if (stores.contains("postgres") && pgUrl == null) {
                throw new IllegalArgumentException("postgres needs --pg-url or TOOLGATE_TEST_PG_URL");
            }
            int seconds = Integer.parseInt(values.getOrDefault("--seconds", "600"));
            int clients = Integer.parseInt(values.getOrDefault("--clients", "8"));
            if (seconds < 10 || clients < 1) {
                throw new IllegalArgumentException("--seconds must be at least 10 and --clients at least 1");
            }
            int sample = Integer.parseInt(values.getOrDefault("--sample-seconds",
                    String.valueOf(seconds >= 100 ? 10 : Math.max(3, seconds / 6))));
            if (sample < 1 || sample > seconds / 2) {
                throw new IllegalArgumentException("--sample-seconds must be between 1 and half of --seconds");
            }
            int memoryCap = Integer.parseInt(values.getOrDefault("--memory-cap",
                    String.valueOf(seconds >= 100 ? InMemoryStore.DEFAULT_MAX_FINISHED_CALLS : SHORT_RUN_MEMORY_CAP)));
            if (memoryCap < 1) {
                throw new IllegalArgumentException("--memory-cap must be at least 1");
            }
            String retention = values.get("--h2-retention-ms");
            if (retention != null && !retention.matches("\\d{1,9}")) {
                throw new IllegalArgumentException("--h2-retention-ms takes milliseconds, not " + retention);
            }
            return new Options(seconds, clients, stores, pgUrl, values.getOrDefault("--xmx", "256m"), sample, parallel,
                    memoryCap, retention);
        }
    }

    private final Options options;

    private McpSoakCheck(Options options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: McpSoakCheck [--seconds 600] [--clients 8] [--stores memory,h2,postgres] [--pg-url JDBC_URL]"
                    + " [--xmx 256m] [--sample-seconds N] [--memory-cap N] [--h2-retention-ms N] [--parallel]");
            System.exit(2);
            return;
        }
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            System.err.println("error: " + jcmd + " not found; the soak check needs a full JDK (jcmd runs the full GCs)");
            System.exit(2);
            return;
        }
        McpSoakCheck check = new McpSoakCheck(options);
        Map<String, String> verdicts = new LinkedHashMap<>();
        if (options.parallel()) {
            // each store's soak in its own thread, its report printed whole when it ends
            System.out.println("soaking " + String.join(", ", options.stores()) + " at the same time, " + options.seconds()
                    + " s each");
            ExecutorService pool = Executors.newFixedThreadPool(options.stores().size());
            Map<String, Future<String>> running = new LinkedHashMap<>();
            for (String store : options.stores()) {
                running.put(store, pool.submit(() -> {
                    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
                    PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
                    String failure = check.soakOrFailure(store, jcmd, out);
                    synchronized (System.out) {
                        System.out.print(buffer.toString(StandardCharsets.UTF_8));
                        System.out.flush();
                    }
                    return failure;
                }));
            }
            for (Map.Entry<String, Future<String>> soak : running.entrySet()) {
                verdicts.put(soak.getKey(), soak.getValue().get());
            }
            pool.shutdown();
        } else {
            for (String store : options.stores()) {
                verdicts.put(store, check.soakOrFailure(store, jcmd, System.out));
            }
        }
        System.out.println();
        boolean passed = true;
        for (Map.Entry<String, String> verdict : verdicts.entrySet()) {
            System.out.printf("%s %s%s%n", verdict.getValue() == null ? "PASS" : "FAIL", verdict.getKey(),
                    verdict.getValue() == null ? "" : ": " + verdict.getValue());
            passed &= verdict.getValue() == null;
        }
        System.exit(passed ? 0 : 1);
    }

    private String soakOrFailure(String store, Path jcmd, PrintStream out) {
        try {
            return soak(store, jcmd, out);
        } catch (Exception e) {
            out.println("the soak of " + store + " failed: " + e);
            return "the soak itself failed: " + e;
        }
    }

    /** Soaks one store; returns null if every check passed, otherwise what failed. */
    private String soak(String store, Path jcmd, PrintStream out) throws Exception {
        Path dir = Files.createTempDirectory("toolgate-soak-" + store);
        Connection pg = null;
        String db;
        switch (store) {
            case "memory" -> db = "memory";
            case "h2" -> db = "jdbc:h2:file:" + Files.createDirectories(dir.resolve("db")).resolve("soak").toAbsolutePath();
            default -> {
                db = StorageBenchmark.freshSchema(options.pgUrl(), PG_SCHEMA);
                pg = DriverManager.getConnection(options.pgUrl());
            }
        }
        Path serverLog = dir.resolve("server.log");
        Path gcLog = dir.resolve("gc.log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + options.xmx(), "-XX:+UseG1GC", "-Xlog:gc,gc+heap=debug:file=" + gcLog,
                "-Dtoolgate." + InMemoryStore.MAX_FINISHED_CALLS + "=" + options.memoryCap(),
                "-cp", classpath(), McpDemoServer.class.getName(),
                "--transport", "http", "--port", "0", "--budget", "0", "--db", db));
        if (options.h2RetentionMs() != null) {
            command.add(1, "-Dtoolgate.jdbc.h2.retention-time-ms=" + options.h2RetentionMs());
        }
        Process server = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(serverLog.toFile()).start();
        Thread reaper = new Thread(server::destroyForcibly, "soak-server-reaper"); // if this process is stopped first
        Runtime.getRuntime().addShutdownHook(reaper);
        List<String> failures = new ArrayList<>();
        long diskAtEndOfLoad = -1; // the H2 files at the last sample, while the clients still call
        List<long[]> diskAfterLoad = new ArrayList<>(); // {ms since the load stopped, bytes}, every 250 ms after it
        long loadStopped = 0;
        try {
            URI endpoint = SoakChild.awaitEndpoint(server, serverLog);
            out.printf(Locale.ROOT, "%nsoak %s: %s, %d clients, %d s, server pid %d with -Xmx%s at %s; heap after a full GC"
                            + " (jcmd GC.run) every %d s%n", store,
                    db.startsWith("jdbc:postgresql") ? "PostgreSQL schema " + PG_SCHEMA : db, options.clients(),
                    options.seconds(), server.pid(), options.xmx(), endpoint, options.sampleSeconds());
            if (store.equals("memory")) {
                out.printf(Locale.ROOT, "the store keeps at most %,d finished calls; the heap check starts once that many"
                        + " calls were made%n", options.memoryCap());
            }
            out.println("     t     calls  errors   p50 ms   p99 ms  heap MB   rss MB   disk MB");
            SoakLoad load = new SoakLoad(endpoint, options.clients(), out);
            List<SoakHeap.HeapSample> heap = new ArrayList<>();
            long started = System.nanoTime();
            load.start();
            long lastCalls = 0;
            long interval = TimeUnit.SECONDS.toNanos(options.sampleSeconds());
            long end = started + TimeUnit.SECONDS.toNanos(options.seconds());
            // the in-memory store's heap check needs two samples after its cap was reached: on a slow machine
            // the clients may not make that many calls in --seconds, so its run goes on (at most 3 x --seconds)
            int cap = store.equals("memory") ? options.memoryCap() : 0;
            long longest = started + TimeUnit.SECONDS.toNanos(3L * options.seconds());
            boolean extended = false;
            // samples on a fixed schedule; one that runs late (jcmd is a JVM start) delays the next, never the end
            for (long next = started + interval; ; next = Math.max(next + interval, System.nanoTime())) {
                long target = Math.min(next, end);
                long wait = target - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                long elapsed = Math.round((System.nanoTime() - started) / 1e9);
                if (!server.isAlive()) {
                    failures.add("the server exited (code " + server.exitValue() + ") " + elapsed + " s into the run");
                    break;
                }
                long calls = load.calls.get();
                List<Long> window = load.drainLatencies();
                long heapKb = SoakChild.fullGc(jcmd, server.pid(), gcLog, out);
                if (heapKb >= 0) {
                    heap.add(new SoakHeap.HeapSample(elapsed, calls, heapKb));
                }
                out.printf(Locale.ROOT, "%6d %9d %7d %8.1f %8.1f %8s %8s %9s%n", elapsed, calls - lastCalls,
                        load.errors.get(), percentile(window, 0.50), percentile(window, 0.99),
                        heapKb < 0 ? "?" : String.format(Locale.ROOT, "%.1f", heapKb / 1024.0), SoakChild.rssMb(server.pid()),
                        diskMb(store, dir, pg));
                if (store.equals("h2")) {
                    diskAtEndOfLoad = McpLoadBenchmark.directorySize(dir.resolve("db"));
                }
                lastCalls = calls;
                if (target >= end) {
                    if (cap > 0 && SoakHeap.heapWindow(heap, options.seconds(), cap).size() < 2 && System.nanoTime() < longest) {
                        if (!extended) {
                            extended = true;
                            out.printf(Locale.ROOT, "the clients made %,d calls in %d s, the heap check needs two samples"
                                    + " after the store's cap of %,d: the load goes on (at most %d s in all)%n", calls,
                                    elapsed, cap, 3L * options.seconds());
                        }
                        end = Math.min(longest, Math.max(next + interval, System.nanoTime())); // the schedule's next sample
                        continue;
                    }
                    break;
                }
            }
            load.stop();
            loadStopped = System.nanoTime();
            double seconds = (System.nanoTime() - started) / 1e9;
            long calls = load.calls.get();
            long errors = load.errors.get();
            out.printf(Locale.ROOT, "total: %d calls (%.0f calls/s), %d errors%n", calls, calls / seconds, errors);

            // errors
            List<String> serverErrors = Files.readAllLines(serverLog, StandardCharsets.UTF_8).stream()
                    .filter(line -> line.contains(" ERROR ") || line.contains("OutOfMemoryError")).toList();
            String errorCheck = String.format(Locale.ROOT, "%d of %d calls failed, the server logged %d ERROR line(s)",
                    errors, calls, serverErrors.size());
            if (errors > 0 || !serverErrors.isEmpty() || calls == 0) {
                failures.add(errorCheck + (calls == 0 ? " (no call was made)" : ""));
                load.failures.stream().limit(5).forEach(f -> out.println("  call failed: " + f));
                serverErrors.stream().limit(5).forEach(f -> out.println("  server: " + f));
            }
            boolean clean = errors == 0 && serverErrors.isEmpty() && calls > 0;
            out.println("check errors:    " + errorCheck + (clean ? " ... ok" : " ... FAILED"));

            // heap
            String heapCheck = SoakHeap.heapCheck(heap, options.seconds(), cap, calls);
            out.println("check heap:      " + heapCheck);
            if (heapCheck.endsWith("FAILED")) {
                failures.add("heap after a full GC not flat: " + heapCheck.substring(0, heapCheck.lastIndexOf(" ...")));
            }

            // answering
            String answer;
            if (!server.isAlive()) {
                answer = "the server is not running ... FAILED";
                failures.add("the server is not running at the end");
            } else {
                long t0 = System.nanoTime();
                try {
                    McpSession last = McpSession.open(endpoint, TOKEN, "soak-final", McpSession.Client.HTTP_CLIENT);
                    last.call(FINAL_CALL);
                    last.close();
                    answer = String.format(Locale.ROOT, "a new session's catalog.listSystems answered in %.0f ms ... ok",
                            (System.nanoTime() - t0) / 1e6);
                } catch (IOException e) {
                    answer = "the final call failed: " + e.getMessage() + " ... FAILED";
                    failures.add("the final call failed: " + e.getMessage());
                }
            }
            out.println("check answering: " + answer);
            if (store.equals("h2") && server.isAlive()) {
                // the compaction's rounds go on while the server is idle; the files are sampled until the limit
                for (;;) {
                    long ms = (System.nanoTime() - loadStopped) / 1_000_000;
                    diskAfterLoad.add(new long[] {ms, McpLoadBenchmark.directorySize(dir.resolve("db"))});
                    if (ms >= SETTLE_MS) {
                        break;
                    }
                    Thread.sleep(Math.min(SETTLE_SAMPLE_MS, SETTLE_MS - ms));
                }
                out.println("H2 files after the load: " + diskAfterLoad.stream().filter(x -> x[0] % 1000 < SETTLE_SAMPLE_MS
                        || x == diskAfterLoad.get(0)).map(x -> String.format(Locale.ROOT, "%.2f s %.1f MB", x[0] / 1000.0,
                        x[1] / 1048576.0)).collect(Collectors.joining(", ")));
            }
        } finally {
            SoakChild.stop(server);
            Runtime.getRuntime().removeShutdownHook(reaper);
            if (pg != null) {
                pg.close();
            }
        }
        if (store.equals("h2")) {
            String diskCheck = H2LiveData.check(dir.resolve("db").resolve("soak.mv.db"), diskAtEndOfLoad, diskAfterLoad,
                    SETTLE_MS, DISK_FACTOR);
            out.println("check disk:      " + diskCheck);
            if (diskCheck.endsWith("FAILED")) {
                failures.add("H2 file not within " + DISK_FACTOR + "x of its live data: "
                        + diskCheck.substring(0, diskCheck.lastIndexOf(" ...")));
            }
        }
        if (failures.isEmpty()) {
            SoakChild.deleteTree(dir, out);
            if (store.equals("postgres")) {
                try (Connection c = DriverManager.getConnection(options.pgUrl()); Statement drop = c.createStatement()) {
                    drop.execute("DROP SCHEMA IF EXISTS " + PG_SCHEMA + " CASCADE");
                }
            }
            return null;
        }
        out.println("server log, GC log and files kept in " + dir
                + (store.equals("postgres") ? ", the tables in schema " + PG_SCHEMA : ""));
        return String.join("; ", failures);
    }

    /**
     * This process's classpath for a child process: the class loader's URLs when run under Maven's
     * {@code exec:java} (whose {@code java.class.path} is Maven's own), else {@code java.class.path}. The
     * other benchmarks that start servers use it too.
     */
    static String classpath() throws URISyntaxException {
        if (McpSoakCheck.class.getClassLoader() instanceof URLClassLoader loader && loader.getURLs().length > 0) {
            List<String> paths = new ArrayList<>();
            for (URL url : loader.getURLs()) {
                if (url.getProtocol().equals("file")) {
                    paths.add(Path.of(url.toURI()).toString());
                }
            }
            return String.join(java.io.File.pathSeparator, paths);
        }
        return System.getProperty("java.class.path");
    }

    private static double percentile(List<Long> sortedMicros, double p) {
        if (sortedMicros.isEmpty()) {
            return 0;
        }
        int index = (int) Math.min(sortedMicros.size() - 1, Math.ceil(p * sortedMicros.size()) - 1);
        return sortedMicros.get(Math.max(0, index)) / 1000.0;
    }

    private static String diskMb(String store, Path dir, Connection pg) {
        try {
            long bytes = switch (store) {
                case "h2" -> McpLoadBenchmark.directorySize(dir.resolve("db"));
                case "postgres" -> McpLoadBenchmark.schemaSize(pg, PG_SCHEMA);
                default -> -1;
            };
            return bytes < 0 ? "-" : String.format(Locale.ROOT, "%.1f", bytes / 1048576.0);
        } catch (Exception e) {
            return "?";
        }
    }
}
