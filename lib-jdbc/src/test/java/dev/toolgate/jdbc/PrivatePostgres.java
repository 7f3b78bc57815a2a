package dev.toolgate.jdbc;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL cluster of a test's own, for fault injection: created with {@code initdb} in a temporary
 * directory, started on a free port, and stopped, started, frozen ({@code SIGSTOP}) and thawed
 * ({@code SIGCONT}) by the test. Only this cluster's processes are ever signalled: its postmaster (the
 * pid in its own {@code postmaster.pid}) and that process's descendants. Never the machine's shared server.
 *
 * <p>The binaries are looked up in {@code TOOLGATE_PG_BIN}, else the newest {@code /usr/lib/postgresql/<n>/bin}.
 * Without them the test is skipped with that reason, and under {@code CI=true} it fails instead. As root
 * (where {@code initdb} refuses to run) the cluster runs as the user {@code postgres} through {@code runuser}.
 * {@link #close()} thaws, stops and deletes the cluster whatever state it is in; a JVM shutdown hook does
 * the same if the test never got there.
 */
final class PrivatePostgres implements AutoCloseable {

    private final Path bin;
    private final Path dir;
    private final Path data;
    private final int port;
    private final boolean asPostgres;
    private final Thread cleanup;
    private volatile boolean closed;

    private PrivatePostgres(Path bin, Path dir, int port, boolean asPostgres) {
        this.bin = bin;
        this.dir = dir;
        this.data = dir.resolve("data");
        this.port = port;
        this.asPostgres = asPostgres;
        this.cleanup = new Thread(this::closeQuietly, "private-postgres-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
    }

    /** Creates and starts a cluster, or skips the test (fails it under {@code CI=true}) without the binaries. */
    static PrivatePostgres start() throws Exception {
        Path bin = binaries();
        if (bin == null) {
            String why = "no PostgreSQL binaries (initdb, pg_ctl) in TOOLGATE_PG_BIN or /usr/lib/postgresql/*/bin";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                Assertions.fail("PostgreSQL fault tests cannot run under CI=true: " + why);
            }
            Assumptions.abort("PostgreSQL fault tests skipped: " + why);
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory("toolgate-pgfault-");
        PrivatePostgres pg = new PrivatePostgres(bin, dir, freePort(), root);
        try {
            if (root) {
                run(List.of("chown", "postgres", dir.toString()), 10);
            }
            pg.tool(30, "initdb", "-D", pg.data.toString(), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8");
            pg.begin();
            return pg;
        } catch (Exception | Error e) {
            pg.close();
            throw e;
        }
    }

    /** The JDBC URL of the cluster's {@code postgres} database. */
    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /** Starts the (stopped) server and waits until it accepts connections. */
    void begin() throws Exception {
        tool(60, "pg_ctl", "-D", data.toString(), "-l", dir.resolve("log").toString(), "-w", "-t", "30", "-o",
                "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
                        + " -c max_connections=60", "start");
    }

    /** Stops the server as an operator does ({@code pg_ctl stop -m fast}: sessions get "terminating connection"). */
    void stop() throws Exception {
        tool(60, "pg_ctl", "-D", data.toString(), "-m", "fast", "-w", "-t", "30", "stop");
    }

    /** Freezes every process of this cluster (SIGSTOP): connections stay open and silent. */
    void freeze() throws Exception {
        signal("-STOP");
    }

    /** Thaws this cluster's processes (SIGCONT). */
    void thaw() throws Exception {
        signal("-CONT");
    }

    private void signal(String signal) throws Exception {
        List<String> pids = pids();
        if (pids.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", signal));
        command.addAll(pids);
        run(command, 10);
    }

    /** The postmaster of this data directory (from its postmaster.pid) and its descendants. */
    private List<String> pids() throws IOException {
        Path pidFile = data.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return List.of();
        }
        long postmaster = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
        List<String> pids = new ArrayList<>();
        ProcessHandle.of(postmaster).ifPresent(p -> {
            pids.add(String.valueOf(p.pid()));
            p.descendants().forEach(d -> pids.add(String.valueOf(d.pid())));
        });
        return pids;
    }

    @Override
    public void close() {
        closeQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    private synchronized void closeQuietly() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            thaw();
        } catch (Exception ignored) {
            // not running
        }
        try {
            if (Files.exists(data.resolve("postmaster.pid"))) {
                tool(30, "pg_ctl", "-D", data.toString(), "-m", "immediate", "-w", "-t", "20", "stop");
            }
        } catch (Exception ignored) {
            // stopped already
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory
        }
    }

    private void tool(int timeoutSeconds, String name, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        if (asPostgres) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(bin.resolve(name).toString());
        command.addAll(List.of(args));
        run(command, timeoutSeconds);
    }

    private static void run(List<String> command, int timeoutSeconds) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("timed out: " + command);
        }
        String output = new String(process.getInputStream().readAllBytes());
        if (process.exitValue() != 0) {
            throw new IllegalStateException(command + " failed (" + process.exitValue() + "): " + output);
        }
    }

    private static Path binaries() throws IOException {
        String given = System.getenv("TOOLGATE_PG_BIN");
        if (given != null && !given.isBlank()) {
            Path path = Paths.get(given);
            return Files.isExecutable(path.resolve("initdb")) ? path : null;
        }
        Path root = Paths.get("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return null;
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb"))
                            && Files.isExecutable(b.resolve("pg_ctl")))
                    .max(Comparator.comparingInt(b -> version(b.getParent().getFileName().toString()))).orElse(null);
        }
    }

    private static int version(String name) {
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
