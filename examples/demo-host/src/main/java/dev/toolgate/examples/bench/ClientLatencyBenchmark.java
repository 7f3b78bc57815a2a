package dev.toolgate.examples.bench;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * What the official MCP clients take per call on Toolgate's MCP server, against a raw HTTP client on the
 * same server: one trivial READ tool ({@code bench.ping}) called one call after the other by 1 and by 8
 * concurrent clients, by
 * <ul>
 *   <li>{@code raw-socket}: a kept-alive HTTP/1.1 socket read and written on the calling thread
 *       ({@link McpSession}, {@link KeptAliveConnection}): the server's own latency;</li>
 *   <li>{@code raw-httpclient}: the JDK's {@code java.net.http.HttpClient}, kept alive;</li>
 *   <li>{@code java-sdk}: the MCP Java SDK's {@link McpSyncClient} over Streamable HTTP
 *       ({@link HttpClientStreamableHttpTransport}) and over stdio ({@link StdioClientTransport});</li>
 *   <li>{@code ts-sdk}: the official TypeScript SDK's {@code Client} (version pinned in
 *       {@code src/bench/ts-client/package-lock.json}, installed with {@code npm ci} under
 *       {@code target/ts-client-bench}) driven by Node ({@code client-bench.mjs}), over Streamable HTTP and stdio.</li>
 * </ul>
 * Each cell starts a fresh server process ({@link ClientBenchServer}, same JVM options for both
 * transports), warms up, then measures several rounds and prints, per cell, calls/s, p50 and p99 as
 * min/median/max across the rounds, and the median CPU time per call of the client's process and of the
 * server's ({@link Cpu}: what each side's own work costs, which the machine's load moves far less than
 * the latency). Over HTTP each client is its own session (and principal); over stdio the one session
 * of the server process has that many calls in flight (the Java SDK's stdio client through
 * {@link SerializedSends}). The load average is printed before and after.
 *
 * <pre>
 * ./mvnw -q -o -pl examples/demo-host -am compile exec:java -Dexec.mainClass=dev.toolgate.examples.bench.ClientLatencyBenchmark \
 *     -Dexec.args="--rounds 5 --round-ms 2000"
 * </pre>
 *
 * <p>Options: {@code --clients 1,8}, {@code --server-warmup-ms 6000} (per cell, 8 clients: raw sockets for
 * HTTP, the measured client for stdio, so that every client meets a server the JIT has compiled),
 * {@code --warmup-ms 4000} (per cell, the measured client alone), {@code --rounds 5},
 * {@code --round-ms 2000}, {@code --only raw-socket,raw-httpclient,java-sdk-http,java-sdk-stdio,ts-sdk-http,ts-sdk-stdio}
 * (default all; the TypeScript rows need {@code node} and {@code npm}), {@code --node PATH} (default
 * {@code node}), {@code --server-jvm "-Xmx512m"} (the server process's JVM options, split at spaces;
 * add {@code -XX:StartFlightRecording=...} to profile it), {@code --server-java PATH} (default this JVM's
 * {@code java}; a newer JDK's server writes a small response's headers and body in one write, JDK 17's in two),
 * {@code --http-server jdk|servlet} (default {@code jdk}, the standalone server; {@code servlet}: the servlet
 * endpoint on an embedded Jetty 12).
 */
public final class ClientLatencyBenchmark {

    private static final String TOOL = BenchTools.PING;
    private static final String CALL = "{\"name\":\"" + TOOL + "\",\"arguments\":{}}";
    /** How many clients warm the server up before each cell (the JIT's warm-up, whatever the client measured). */
    private static final int SERVER_WARMUP_CLIENTS = 8;
    private static final List<String> KINDS = List.of("raw-socket", "raw-httpclient", "java-sdk-http", "java-sdk-stdio",
            "ts-sdk-http", "ts-sdk-stdio");

    record Options(int[] clients, long serverWarmupMs, long warmupMs, int rounds, long roundMs, List<String> only, String node,
                   List<String> serverJvm, String serverJava, String httpServer) {

        static Options parse(String[] args) {
            Map<String, String> values = new LinkedHashMap<>(Map.of("--clients", "1,8", "--server-warmup-ms", "6000", "--warmup-ms", "4000",
                    "--rounds", "5", "--round-ms", "2000", "--only", String.join(",", KINDS), "--node", "node",
                    "--server-jvm", "-Xmx512m", "--http-server", "jdk"));
            values.put("--server-java", Path.of(System.getProperty("java.home"), "bin", "java").toString());
            for (int i = 0; i < args.length; i += 2) {
                if (!values.containsKey(args[i]) || i + 1 >= args.length) {
                    throw new IllegalArgumentException("unknown option or missing value: " + args[i] + "; options: " + values.keySet());
                }
                values.put(args[i], args[i + 1]);
            }
            List<String> only = Arrays.stream(values.get("--only").split(",")).map(String::strip).toList();
            for (String kind : only) {
                if (!KINDS.contains(kind)) {
                    throw new IllegalArgumentException("--only takes " + KINDS + ", not " + kind);
                }
            }
            return new Options(Arrays.stream(values.get("--clients").split(",")).mapToInt(Integer::parseInt).toArray(),
                    Long.parseLong(values.get("--server-warmup-ms")), Long.parseLong(values.get("--warmup-ms")), Integer.parseInt(values.get("--rounds")),
                    Long.parseLong(values.get("--round-ms")), only, values.get("--node"),
                    Arrays.stream(values.get("--server-jvm").split(" ")).filter(s -> !s.isBlank()).toList(), values.get("--server-java"),
                    JettyMcpServer.transport(values.get("--http-server")));
        }
    }

    /** One round of one cell. */
    record Round(long calls, double seconds, double p50Millis, double p99Millis, double clientCpuMicros, double serverCpuMicros) {
        double callsPerSecond() {
            return calls / seconds;
        }

        /** With the CPU each process spent per call (µs) in this round. */
        Round withCpu(double client, double server) {
            return new Round(calls, seconds, p50Millis, p99Millis, client, server);
        }
    }

    /** A blocking call; one caller per thread. */
    @FunctionalInterface
    interface Caller {
        void call() throws Exception;
    }

    private final Options options;
    private final Path work = Path.of("target", "client-bench").toAbsolutePath();
    /** The children's classpath: this process's own, also under {@code exec:java} (see {@link McpSoakCheck#classpath}). */
    private final String classpath = childClasspath();
    /** The server's {@code java}. */
    private final String java;

    private ClientLatencyBenchmark(Options options) {
        this.options = options;
        this.java = options.serverJava();
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        new ClientLatencyBenchmark(options).run();
        System.exit(0); // the SDK clients' non-daemon threads
    }

    private void run() throws Exception {
        Files.createDirectories(work.resolve("logs"));
        System.out.printf(Locale.ROOT, "Client latency on Toolgate's MCP server: %s called one call after the other; per cell a fresh "
                        + "server process (%s %s), HTTP on %s, %d ms of server warm-up, %d ms of the client's, %d rounds of %d ms; "
                        + "client Java %s, %d cores%nload before: %s%n",
                TOOL, options.serverJava(), String.join(" ", options.serverJvm()), JettyMcpServer.describe(options.httpServer()), options.serverWarmupMs(), options.warmupMs(),
                options.rounds(), options.roundMs(), System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), load());
        Path node = options.only().stream().anyMatch(k -> k.startsWith("ts-")) ? installNodeClient() : null;
        Map<String, List<Round>> results = new LinkedHashMap<>();
        for (String kind : options.only()) {
            for (int clients : options.clients()) {
                String cell = kind + " x" + clients;
                System.out.printf("running %s ...%n", cell);
                try {
                    List<Round> rounds = kind.startsWith("ts-") ? node(node, kind, clients) : java(kind, clients);
                    results.put(cell, rounds);
                    ClientLatencyReport.print(cell, rounds);
                } catch (Exception e) {
                    System.out.printf("  %s failed: %s%n", cell, e);
                }
            }
        }
        System.out.printf(Locale.ROOT, "%nload after: %s%n%-20s %-22s %-22s %-22s %-11s %-11s %-9s%n", load(), "client x concurrency",
                "calls/s min/med/max", "p50 ms min/med/max", "p99 ms min/med/max", "client CPU", "server CPU", "CPU floor");
        System.out.println("(CPU: median over the rounds of each process's CPU time per call, in µs; CPU floor: the p50 in ms "
                + "that CPU alone allows on this machine's cores, see cpuFloorMillis)");
        results.forEach(ClientLatencyReport::row);
        ClientLatencyReport.gaps(results);
    }

    // ------------------------------------------------------------------------------------ Java clients

    private List<Round> java(String kind, int clients) throws Exception {
        boolean stdio = kind.endsWith("-stdio");
        Process server = stdio ? null : startHttpServer(kind + "-" + clients);
        List<AutoCloseable> open = new ArrayList<>();
        try {
            URI endpoint = stdio ? null : endpointOf(server);
            Caller[] callers = new Caller[clients];
            if (stdio) {
                // the SDK's stdio client fails concurrent sends ("Failed to enqueue message", java-sdk#875):
                // SerializedSends makes them one at a time, which changes nothing for one client
                McpSyncClient client = javaSdk(new SerializedSends(new StdioClientTransport(ServerParameters.builder(java)
                        .args(serverCommand("stdio")).build(), McpJsonDefaults.getMapper())));
                open.add(client::closeGracefully);
                Caller[] warm = new Caller[SERVER_WARMUP_CLIENTS];
                Arrays.fill(warm, (Caller) () -> javaSdkCall(client));
                drive(warm, options.serverWarmupMs());
                Arrays.fill(callers, (Caller) () -> javaSdkCall(client));
            } else {
                serverWarmup(endpoint);
                for (int i = 0; i < clients; i++) {
                    String token = ClientBenchServer.token(i);
                    switch (kind) {
                        case "raw-socket", "raw-httpclient" -> {
                            McpSession session = McpSession.open(endpoint, token, "raw-" + i,
                                    kind.equals("raw-socket") ? McpSession.Client.SOCKET : McpSession.Client.HTTP_CLIENT);
                            open.add(session::close);
                            callers[i] = () -> session.call(CALL);
                        }
                        default -> {
                            McpSyncClient client = javaSdk(HttpClientStreamableHttpTransport
                                    .builder(endpoint.getScheme() + "://" + endpoint.getAuthority()).endpoint(endpoint.getPath())
                                    .addHttpRequestCustomizer((builder, method, uri, body, context) ->
                                            builder.header("Authorization", "Bearer " + token))
                                    .build());
                            open.add(client::closeGracefully);
                            callers[i] = () -> javaSdkCall(client);
                        }
                    }
                }
            }
            drive(callers, options.warmupMs());
            List<Round> rounds = new ArrayList<>();
            for (int r = 0; r < options.rounds(); r++) {
                long client = Cpu.self();
                long serverCpu = Cpu.servers();
                Round round = drive(callers, options.roundMs());
                rounds.add(round.withCpu((Cpu.self() - client) / 1e3 / round.calls(), (Cpu.servers() - serverCpu) / 1e3 / round.calls()));
            }
            return rounds;
        } finally {
            for (AutoCloseable closeable : open) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    // the server process ends next
                }
            }
            if (server != null) {
                server.destroy();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Warms the HTTP server up with {@value #SERVER_WARMUP_CLIENTS} raw clients, so that a slow client is
     * not measured on a server whose JIT has seen fewer calls than a fast client's.
     */
    private void serverWarmup(URI endpoint) throws Exception {
        Caller[] callers = new Caller[SERVER_WARMUP_CLIENTS];
        List<McpSession> sessions = new ArrayList<>();
        try {
            for (int i = 0; i < callers.length; i++) {
                McpSession session = McpSession.open(endpoint, ClientBenchServer.token(i), "warm-up-" + i, McpSession.Client.SOCKET);
                sessions.add(session);
                callers[i] = () -> session.call(CALL);
            }
            drive(callers, options.serverWarmupMs());
        } finally {
            sessions.forEach(McpSession::close);
        }
    }

    private static McpSyncClient javaSdk(io.modelcontextprotocol.spec.McpClientTransport transport) {
        McpSyncClient client = McpClient.sync(transport)
                .clientInfo(McpSchema.Implementation.builder("toolgate-java-bench", "1.0").build())
                .requestTimeout(Duration.ofSeconds(30)).build();
        client.initialize();
        client.listTools();
        return client;
    }

    private static void javaSdkCall(McpSyncClient client) throws McpSession.CallFailed {
        McpSchema.CallToolResult result = client.callTool(McpSchema.CallToolRequest.builder(TOOL).arguments(Map.of()).build());
        if (Boolean.TRUE.equals(result.isError())) {
            throw new McpSession.CallFailed("the call failed: " + result);
        }
    }

    /** Every caller on a thread of its own calls in a loop for {@code millis}; one round. */
    private static Round drive(Caller[] callers, long millis) throws Exception {
        long[][] latencies = new long[callers.length][];
        int[] counts = new int[callers.length];
        Exception[] failures = new Exception[callers.length];
        Thread[] threads = new Thread[callers.length];
        long start = System.nanoTime();
        long until = start + TimeUnit.MILLISECONDS.toNanos(millis);
        for (int t = 0; t < callers.length; t++) {
            int index = t;
            latencies[t] = new long[4096];
            threads[t] = new Thread(() -> {
                try {
                    long now = System.nanoTime();
                    while (now < until) {
                        callers[index].call();
                        long end = System.nanoTime();
                        if (counts[index] == latencies[index].length) {
                            latencies[index] = Arrays.copyOf(latencies[index], counts[index] * 2);
                        }
                        latencies[index][counts[index]++] = end - now;
                        now = end;
                    }
                } catch (Exception e) {
                    failures[index] = e;
                }
            }, "bench-client-" + t);
            threads[t].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        for (Exception failure : failures) {
            if (failure != null) {
                throw failure;
            }
        }
        long[] all = new long[Arrays.stream(counts).sum()];
        int at = 0;
        for (int t = 0; t < callers.length; t++) {
            System.arraycopy(latencies[t], 0, all, at, counts[t]);
            at += counts[t];
        }
        Arrays.sort(all);
        return new Round(all.length, seconds, percentile(all, 0.50) / 1e6, percentile(all, 0.99) / 1e6, Double.NaN, Double.NaN);
    }

    private static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[(int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
    }

    // ------------------------------------------------------------------------------------ the TypeScript client

    /** Installs the pinned TypeScript SDK and the driver under target/ts-client-bench; returns the driver. */
    private Path installNodeClient() throws Exception {
        Path source = Path.of("src", "bench", "ts-client").toAbsolutePath();
        if (!Files.isDirectory(source)) {
            source = Path.of("examples", "demo-host", "src", "bench", "ts-client").toAbsolutePath();
        }
        Path target = work.getParent().resolve("ts-client-bench");
        Files.createDirectories(target);
        for (String file : List.of("package.json", "package-lock.json", "client-bench.mjs")) {
            Files.copy(source.resolve(file), target.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
                .directory(target.toFile()).redirectErrorStream(true).redirectOutput(work.resolve("logs/npm.log").toFile()).start();
        if (npm.waitFor() != 0) {
            throw new IOException("npm ci failed, see " + work.resolve("logs/npm.log"));
        }
        return target.resolve("client-bench.mjs");
    }

    private List<Round> node(Path script, String kind, int clients) throws Exception {
        boolean stdio = kind.endsWith("-stdio");
        Process server = stdio ? null : startHttpServer(kind + "-" + clients);
        try {
            List<String> command = new ArrayList<>(List.of(options.node(), script.toString(), "--tool", TOOL,
                    "--clients", String.valueOf(clients), "--warmup-ms", String.valueOf(options.warmupMs()),
                    "--server-warmup-ms", String.valueOf(stdio ? options.serverWarmupMs() : 0),
                    "--rounds", String.valueOf(options.rounds()), "--round-ms", String.valueOf(options.roundMs())));
            if (stdio) {
                String args = serverCommand("stdio").stream().map(a -> "\"" + a.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
                        .collect(Collectors.joining(",", "[", "]"));
                command.addAll(List.of("--transport", "stdio", "--command", java, "--args", args));
            } else {
                URI endpoint = endpointOf(server);
                serverWarmup(endpoint);
                command.addAll(List.of("--transport", "http", "--url", endpoint.toString(), "--token", "client-{i}-token"));
            }
            Process driver = new ProcessBuilder(command).redirectError(work.resolve("logs/" + kind + "-" + clients + ".node.log").toFile())
                    .start();
            List<Round> rounds = new ArrayList<>();
            List<String> other = new ArrayList<>();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(driver.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                long serverCpu = 0;
                while ((line = out.readLine()) != null) {
                    if (line.equals("START")) { // the rounds begin: the server's CPU from here, as each round line arrives
                        serverCpu = Cpu.servers();
                    } else if (line.startsWith("ROUND ")) {
                        String[] f = line.split(" ");
                        long calls = Long.parseLong(f[1]);
                        long now = Cpu.servers();
                        rounds.add(new Round(calls, Double.parseDouble(f[2]), Double.parseDouble(f[3]), Double.parseDouble(f[4]),
                                Double.parseDouble(f[5]), (now - serverCpu) / 1e3 / calls));
                        serverCpu = now;
                    } else {
                        other.add(line);
                    }
                }
            }
            if (driver.waitFor() != 0 || rounds.isEmpty()) {
                throw new IOException("the Node driver failed: " + String.join(" / ", other));
            }
            return rounds;
        } finally {
            if (server != null) {
                server.destroy();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    // ------------------------------------------------------------------------------------ the server

    private List<String> serverCommand(String transport) {
        List<String> command = new ArrayList<>(options.serverJvm());
        command.addAll(List.of("-cp", classpath, ClientBenchServer.class.getName(), "--transport", transport));
        return command;
    }

    private Process startHttpServer(String name) throws IOException {
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(serverCommand(options.httpServer().equals("jdk") ? "http" : "servlet"));
        return new ProcessBuilder(command).redirectError(work.resolve("logs/" + name + ".server.log").toFile()).start();
    }

    private static URI endpointOf(Process server) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("LISTENING ")) {
                return URI.create(line.substring("LISTENING ".length()).strip());
            }
        }
        throw new IOException("the HTTP server ended before it listened");
    }

    // ------------------------------------------------------------------------------------ report

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String childClasspath() {
        try {
            return McpSoakCheck.classpath();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException("this process's classpath cannot be read: " + e.getMessage(), e);
        }
    }
}
