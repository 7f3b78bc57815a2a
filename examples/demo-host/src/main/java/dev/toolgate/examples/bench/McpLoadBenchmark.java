package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.mcp.McpAuthenticator;
import dev.toolgate.mcp.ToolgateMcpServer;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.ToolgateStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * The MCP server under load: kept-alive clients calling a READ tool over Streamable HTTP, against the
 * same call made in process through {@code gate.call} at the same concurrency, on the in-memory store,
 * an H2 file database (in a temporary directory, deleted afterwards) and PostgreSQL.
 *
 * <p>For each store it starts a gate with one trivial READ tool ({@code bench.ping}, so the figures are
 * the gate's, the store's and the transport's, not tool code) and a {@link ToolgateMcpServer} on a free
 * loopback port in this process. Then, for 1, 8 and 64 clients: each client is its own MCP session on
 * one kept-alive HTTP/1.1 connection ({@link McpSession}; by default a blocking socket on the measuring thread,
 * so the latency is the server's and not a client library's) and its own principal; after a warm-up of each
 * side, it alternates timed slices of MCP calls and in-process calls (the {@link Harness}), each slice
 * a repeat, and prints min/median/max across the repeats of calls/s, p50 and p99 of both sides and of
 * their ratio. For H2 and PostgreSQL it prints bytes of disk per call: the growth of the database
 * files (H2) or of {@code pg_total_relation_size} summed over Toolgate's tables, indexes and TOAST in
 * its schema (PostgreSQL; WAL not counted), divided by every call made meanwhile (both sides, warm-ups
 * included).
 *
 * <pre>
 * ./mvnw -q -pl examples/demo-host -am compile exec:java -Dexec.mainClass=dev.toolgate.examples.bench.McpLoadBenchmark \
 *     -Dexec.args="--slice-ms 2000 --repeats 2"
 * </pre>
 *
 * <p>Options: {@code --stores memory,h2,postgres} (default memory and h2, and postgres when a URL is
 * known), {@code --pg-url JDBC_URL} (default {@code TOOLGATE_BENCH_PG_URL} or
 * {@code TOOLGATE_TEST_PG_URL}; the benchmark works in its own schema {@code toolgate_mcp_bench}, created
 * afresh and dropped at the end), {@code --clients 1,8,64}, {@code --warmup-ms 1000} (per cell and side;
 * each store also warms up 3x that at 8 clients), {@code --slice-ms 2000} (one repeat of one side),
 * {@code --repeats 2}, {@code --transport jdk|servlet} (default jdk: the standalone server's hand-written
 * transport on the JDK's HTTP server; servlet: {@code ToolgateMcpServer.servlet}, the MCP SDK's servlet
 * transport, on an embedded Jetty 12, see {@link JettyMcpServer}), {@code --client socket|httpclient}
 * (default socket: {@link KeptAliveConnection}, one kept-alive connection read and written on the
 * measuring thread, as an MCP client's HTTP stack does on the wire; httpclient: the JDK's
 * {@link java.net.http.HttpClient}, whose own thread hand-offs add more per call than the server's whole
 * path on 2 cores); {@code --write-behind-ms N} opens the H2 and PostgreSQL stores with read rows
 * written behind within N ms (the opt-in of {@code JdbcStore.Builder#writeBehind}; default 0, a commit on
 * each call's path); {@code --jit-warmup-ms 20000} (MCP calls from 8 clients on an in-memory store before
 * the first store, measuring nothing, so that no store is measured on code the JIT has not compiled
 * yet; 0 for none). The defaults take about 40 s per store, and 20 s before the first. System properties
 * for the H2 store: {@code -Dbench.h2-fs=async} (H2's file system for the file, default the store's own,
 * {@code interruptsafe}; with another one the store keeps H2's page size, so compare with
 * {@code -Dbench.h2-settings=";PAGE_SIZE=4096;ANALYZE_AUTO=0"}, appended to the URL).
 */
public final class McpLoadBenchmark {

    private static final String CALL = "{\"name\":\"" + BenchTools.PING + "\",\"arguments\":{}}";
    private static final String PG_SCHEMA = "toolgate_mcp_bench";

    /** Parsed options. */
    record Options(List<String> stores, int[] clients, Duration warmup, Duration slice, int repeats, String pgUrl,
                   String transport, McpSession.Client client, Duration writeBehind, Duration jitWarmup) {

        static Options parse(String[] args) {
            Map<String, String> values = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                String key = args[i];
                if (!List.of("--stores", "--clients", "--warmup-ms", "--slice-ms", "--repeats", "--pg-url", "--transport",
                        "--client", "--write-behind-ms", "--jit-warmup-ms").contains(key)
                        || i + 1 >= args.length) {
                    throw new IllegalArgumentException("unknown option or missing value: " + key);
                }
                values.put(key, args[++i]);
            }
            String pgUrl = values.getOrDefault("--pg-url", StorageBenchmark.firstSet("TOOLGATE_BENCH_PG_URL", "TOOLGATE_TEST_PG_URL"));
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
            int[] clients = Stream.of(values.getOrDefault("--clients", "1,8,64").split(",")).mapToInt(Integer::parseInt).toArray();
            int repeats = Integer.parseInt(values.getOrDefault("--repeats", "2"));
            if (repeats < 1 || Arrays.stream(clients).anyMatch(c -> c < 1)) {
                throw new IllegalArgumentException("--repeats and --clients must be at least 1");
            }
            return new Options(stores, clients, Duration.ofMillis(Long.parseLong(values.getOrDefault("--warmup-ms", "1000"))),
                    Duration.ofMillis(Long.parseLong(values.getOrDefault("--slice-ms", "2000"))), repeats, pgUrl,
                    JettyMcpServer.transport(values.getOrDefault("--transport", "jdk")),
                    McpSession.Client.parse(values.getOrDefault("--client", "socket")),
                    Duration.ofMillis(Long.parseLong(values.getOrDefault("--write-behind-ms", "0"))),
                    Duration.ofMillis(Long.parseLong(values.getOrDefault("--jit-warmup-ms", "20000"))));
        }
    }

    /** A store under test, how big it is on disk (null: not on disk), and what to close or delete after it. */
    private record Store(String name, ToolgateStore store, DiskSize disk, AutoCloseable extra) {
    }

    @FunctionalInterface
    private interface DiskSize {
        long bytes() throws Exception;
    }

    private final Options options;
    private final Harness harness;
    private final List<String[]> table = new ArrayList<>();
    private final List<String[]> diskTable = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    private McpLoadBenchmark(Options options) {
        this.options = options;
        this.harness = new Harness(options.warmup(), options.slice(), options.repeats());
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: McpLoadBenchmark [--stores memory,h2,postgres] [--pg-url JDBC_URL] [--clients 1,8,64]"
                    + " [--warmup-ms 1000] [--slice-ms 2000] [--repeats 2] [--transport jdk|servlet]"
                    + " [--client socket|httpclient] [--write-behind-ms 0] [--jit-warmup-ms 20000]");
            System.exit(2);
            return;
        }
        long started = System.nanoTime();
        System.out.printf(Locale.ROOT, "Toolgate MCP load benchmark (transport: %s; client: %s): %d cores, load average %s, Java %s, max heap %d MB;"
                        + " per cell and side %d ms warm-up, then %d repeats of %d ms alternating MCP and in-process%n",
                JettyMcpServer.describe(options.transport()), options.client() == McpSession.Client.SOCKET
                        ? "socket, one kept-alive connection on the measuring thread" : "the JDK's HttpClient",
                Runtime.getRuntime().availableProcessors(), loadAverage(), System.getProperty("java.version"),
                Runtime.getRuntime().maxMemory() >> 20, options.warmup().toMillis(), options.repeats(), options.slice().toMillis());
        McpLoadBenchmark bench = new McpLoadBenchmark(options);
        bench.jitWarmup();
        for (String store : options.stores()) {
            bench.store(store);
        }
        bench.print(Duration.ofNanos(System.nanoTime() - started));
        System.exit(0); // the HTTP clients' selector threads would otherwise linger until collected
    }

    /** How the JDBC stores' names say that read rows are written behind, or nothing. */
    private String behind() {
        return options.writeBehind().isZero() ? "" : " (read rows written behind within " + options.writeBehind().toMillis() + " ms)";
    }

    private Store open(String name) throws Exception {
        switch (name) {
            case "memory" -> {
                return new Store("in-memory", new InMemoryStore(), null, null);
            }
            case "h2" -> {
                Path dir = Files.createTempDirectory("toolgate-mcp-bench");
                JdbcStore store = JdbcStore.builder().url("jdbc:h2:" + System.getProperty("bench.h2-fs", "interruptsafe") + ":"
                        + dir.resolve("bench").toAbsolutePath() + System.getProperty("bench.h2-settings", ""))
                        .writeBehind(options.writeBehind()).build();
                return new Store("H2" + behind(), store, () -> directorySize(dir), () -> deleteTree(dir));
            }
            default -> {
                String url = StorageBenchmark.freshSchema(options.pgUrl(), PG_SCHEMA);
                JdbcStore store = JdbcStore.builder().url(url).writeBehind(options.writeBehind()).build();
                Connection sizes = DriverManager.getConnection(options.pgUrl());
                return new Store("PostgreSQL" + behind(), store, () -> schemaSize(sizes, PG_SCHEMA), () -> {
                    try (Connection c = sizes; Statement drop = c.createStatement()) {
                        drop.execute("DROP SCHEMA IF EXISTS " + PG_SCHEMA + " CASCADE");
                    }
                });
            }
        }
    }

    /**
     * Drives the whole MCP path on an in-memory store for {@code --jit-warmup-ms}, measuring nothing: on 2
     * cores the JIT compiles that path (HTTP, JSON, the SDK, the gate) for tens of seconds, longer than a
     * store's own warm-up, and the first store measured was the slower for it (8 clients: 2,100-3,400
     * calls/s where the same store measured again after the others reached 4,600-8,500).
     */
    private void jitWarmup() throws Exception {
        if (options.jitWarmup().isZero()) {
            return;
        }
        System.out.printf(Locale.ROOT, "JIT warm-up: %d ms of MCP calls from 8 clients on an in-memory store ...%n",
                options.jitWarmup().toMillis());
        Principal[] principals = new Principal[8];
        Map<String, Principal> tokens = new LinkedHashMap<>();
        for (int i = 0; i < principals.length; i++) {
            principals[i] = Principal.user("mcp-warmup-" + i, BenchTools.RULE);
            tokens.put("client-" + i + "-token", principals[i]);
        }
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .provider(new BenchTools().provider()).budget(ToolBudget.unlimited()).build()) {
            JettyMcpServer.Served server = JettyMcpServer.start(options.transport(), gate, McpAuthenticator.fixed(tokens), 64);
            try {
                Cell warm = new Cell(gate, server.endpoint(), principals, 8, options.client());
                try {
                    Harness.drive(8, warm.mcp, options.jitWarmup());
                    Harness.drive(8, warm.inProcess, options.jitWarmup().dividedBy(10));
                } finally {
                    warm.close();
                }
            } finally {
                server.close();
            }
        }
    }

    private void store(String which) throws Exception {
        Store store = open(which);
        System.out.printf("running %s ...%n", store.name());
        int most = Arrays.stream(options.clients()).max().orElse(1);
        Principal[] principals = new Principal[Math.max(most, 8)];
        Map<String, Principal> tokens = new LinkedHashMap<>();
        for (int i = 0; i < principals.length; i++) {
            principals[i] = Principal.user("mcp-client-" + i, BenchTools.RULE);
            tokens.put("client-" + i + "-token", principals[i]);
        }
        BenchTools tools = new BenchTools();
        long calls = 0;
        long diskBefore = store.disk() == null ? 0 : store.disk().bytes();
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(store.store())
                .provider(tools.provider()).budget(ToolBudget.unlimited()).build()) {
            JettyMcpServer.Served server = JettyMcpServer.start(options.transport(), gate, McpAuthenticator.fixed(tokens),
                    Math.max(64, most));
            try {
                URI endpoint = server.endpoint();
                // the JIT's warm-up, once per store, before the first cell (1 client) is measured
                Cell warm = new Cell(gate, endpoint, principals, 8, options.client());
                try {
                    Harness.drive(8, warm.mcp, options.warmup().multipliedBy(3));
                    Harness.drive(8, warm.inProcess, options.warmup().multipliedBy(3));
                } finally {
                    warm.close();
                }
                calls += warm.calls();
                for (int clients : options.clients()) {
                    calls += cell(store, gate, endpoint, principals, clients);
                }
            } finally {
                server.close();
            }
        }
        if (store.disk() != null) {
            long diskAfter = store.disk().bytes();
            store.store().close();
            String afterClose = which.equals("h2") ? String.format(Locale.ROOT, "%,d", store.disk().bytes()) : "-";
            if (store.extra() != null) {
                store.extra().close(); // H2: its directory deleted; PostgreSQL: its schema dropped
            }
            diskTable.add(new String[] {store.name(), String.format(Locale.ROOT, "%,d", calls),
                    String.format(Locale.ROOT, "%,d", diskBefore), String.format(Locale.ROOT, "%,d", diskAfter),
                    perCall(diskAfter - diskBefore, calls), afterClose});
        } else {
            store.store().close();
        }
    }

    /** One concurrency level on one store: sessions opened, the rounds run, sessions closed; returns the calls made. */
    private long cell(Store store, Toolgate gate, URI endpoint, Principal[] principals, int clients) throws Exception {
        Cell cell = new Cell(gate, endpoint, principals, clients, options.client());
        Harness.Result[][] rounds;
        long diskBefore = store.disk() == null ? 0 : store.disk().bytes();
        try {
            rounds = harness.rounds(clients, cell.mcp, cell.inProcess);
        } finally {
            cell.close();
        }
        long diskAfter = store.disk() == null ? 0 : store.disk().bytes();
        String disk = store.disk() == null ? "-" : perCall(diskAfter - diskBefore, cell.calls());
        table.add(new String[] {store.name(), String.valueOf(clients),
                spread(rounds, r -> r[0].opsPerSecond(), 1), spread(rounds, r -> r[0].p50Micros(), 1e3),
                spread(rounds, r -> r[0].p99Micros(), 1e3),
                spread(rounds, r -> r[1].opsPerSecond(), 1), spread(rounds, r -> r[1].p50Micros(), 1e3),
                spread(rounds, r -> r[1].p99Micros(), 1e3),
                spread(rounds, r -> r[0].opsPerSecond() / r[1].opsPerSecond(), 1),
                String.valueOf(cell.errors.sum()), disk});
        System.out.printf(Locale.ROOT, "  %d client(s): MCP %s calls/s, in process %s calls/s, %d error(s)%n", clients,
                spread(rounds, r -> r[0].opsPerSecond(), 1), spread(rounds, r -> r[1].opsPerSecond(), 1), cell.errors.sum());
        cell.failures.stream().limit(3).forEach(f -> notes.add(store.name() + ", " + clients + " client(s): " + f));
        return cell.calls();
    }

    /** The clients of one cell: an MCP session and an in-process context per client, and the two operations. */
    private static final class Cell {
        final McpSession[] sessions;
        final CallContext[] contexts;
        final LongAdder mcpCalls = new LongAdder();
        final LongAdder inProcessCalls = new LongAdder();
        final LongAdder errors = new LongAdder();
        final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        final Harness.Op mcp;
        final Harness.Op inProcess;

        Cell(Toolgate gate, URI endpoint, Principal[] principals, int clients, McpSession.Client client)
                throws IOException, InterruptedException {
            sessions = new McpSession[clients];
            contexts = new CallContext[clients];
            for (int i = 0; i < clients; i++) {
                sessions[i] = McpSession.open(endpoint, "client-" + i + "-token", "mcp-load-" + i, client);
                contexts[i] = CallContext.of(principals[i]).withSession("in-process-" + i);
            }
            mcp = t -> {
                mcpCalls.increment();
                try {
                    sessions[t].call(CALL);
                    return true;
                } catch (IOException e) {
                    fail(e);
                    return false;
                }
            };
            inProcess = t -> {
                inProcessCalls.increment();
                try {
                    if (gate.call(contexts[t], BenchTools.PING, "{}") instanceof Executed) {
                        return true;
                    }
                    fail(new IllegalStateException("in-process call not executed"));
                } catch (RuntimeException e) {
                    fail(e);
                }
                return false;
            };
        }

        private void fail(Exception e) {
            errors.increment();
            if (failures.size() < 10) {
                failures.add(e.toString());
            }
        }

        long calls() {
            return mcpCalls.sum() + inProcessCalls.sum();
        }

        void close() {
            for (int i = 0; i < sessions.length; i++) {
                if (sessions[i] != null) {
                    sessions[i].close();
                    sessions[i] = null;
                }
            }
            // Java 17's HttpClient has no close(): once collected, its selector thread ends and closes its
            // idle connection, so the next cell's server sees only the next cell's connections
            System.gc();
        }
    }

    /** min/median/max of a figure across the repeats; values divided by {@code unit} (1e3: microseconds to ms). */
    private static String spread(Harness.Result[][] rounds, ToDoubleFunction<Harness.Result[]> figure, double unit) {
        double[] values = Arrays.stream(rounds).mapToDouble(figure).map(v -> v / unit).sorted().toArray();
        int n = values.length;
        double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
        return fmt(values[0]) + "/" + fmt(median) + "/" + fmt(values[n - 1]);
    }

    private static String fmt(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        double magnitude = Math.abs(value);
        String pattern = magnitude >= 100 ? "%.0f" : magnitude >= 10 ? "%.1f" : magnitude >= 1 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, pattern, value);
    }

    private static String perCall(long bytes, long calls) {
        return calls == 0 ? "-" : String.format(Locale.ROOT, "%.0f", (double) bytes / calls);
    }

    private void print(Duration elapsed) {
        System.out.println();
        System.out.println("MCP over Streamable HTTP (one kept-alive HTTP/1.1 connection and session per client) against the same"
                + " READ (" + BenchTools.PING + ") through gate.call in process; each figure min/median/max over "
                + options.repeats() + " repeats of " + options.slice().toMillis() + " ms; ratio = MCP calls/s / in-process"
                + " calls/s in the same repeat");
        StorageBenchmark.printTable(new String[] {"store", "clients", "MCP calls/s", "MCP p50 ms", "MCP p99 ms",
                "in-proc calls/s", "in-proc p50 ms", "in-proc p99 ms", "ratio", "errors", "disk B/call"}, table);
        if (!diskTable.isEmpty()) {
            System.out.println();
            System.out.println("Disk per call: growth of the H2 files / of pg_total_relation_size over Toolgate's schema"
                    + " (tables, indexes, TOAST; not WAL) while the store was open, divided by every call made (MCP and"
                    + " in process, warm-ups included)");
            StorageBenchmark.printTable(new String[] {"store", "calls", "bytes at start", "bytes at end", "bytes/call",
                    "bytes after close"}, diskTable);
        }
        notes.forEach(n -> System.out.println("error: " + n));
        System.out.printf(Locale.ROOT, "load average at the end %s; total time %.0f s%n", loadAverage(), elapsed.toMillis() / 1000.0);
    }

    static long directorySize(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0; // a file H2 just deleted
                }
            }).sum();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** Tables (with their indexes and TOAST) of one schema, in bytes. */
    static long schemaSize(Connection connection, String schema) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)"
                + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind IN ('r', 'p', 'm')")) {
            s.setString(1, schema);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
