package dev.toolgate.examples.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * A soak of a running MCP server over Streamable HTTP, as clients use it: {@code sessions} sessions on
 * kept-alive HTTP/1.1 connections, each initialized once and then calling tools in a loop for
 * {@code seconds}. Every 10 s it prints calls, errors, p50/p99/max latency of the window, and, given
 * the server's pid and a directory to watch, the server's resident memory and the directory's size.
 *
 * <pre>
 * java ... McpSoak http://127.0.0.1:8765/mcp carol-token 16 300 SERVER_PID /path/to/db/dir [tool,tool,...]
 * </pre>
 */
public final class McpSoak {

    private static final String PROTOCOL = "2025-11-25";
    private static final String[] ALL_CALLS = {
        "{\"name\":\"docs.searchDocs\",\"arguments\":{\"query\":\"roll back a durable run\"}}",
        "{\"name\":\"catalog.listSystems\",\"arguments\":{}}",
        "{\"name\":\"docs.getDoc\",\"arguments\":{\"slug\":\"lib-jdbc\"}}",
        "{\"name\":\"incident.list\",\"arguments\":{}}",
        "{\"name\":\"web.probeUrl\",\"arguments\":{\"url\":\"http://169.254.169.254/\"}}",
    };

    private McpSoak() {
    }

    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        String token = args[1];
        int sessions = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        long pid = args.length > 4 ? Long.parseLong(args[4]) : -1;
        Path watched = args.length > 5 ? Path.of(args[5]) : null;
        // optionally only some tools: a comma-separated list of names
        List<String> only = args.length > 6 ? List.of(args[6].split(",")) : List.of();
        String[] calls = Stream.of(ALL_CALLS).filter(c -> only.isEmpty() || only.stream().anyMatch(
                name -> c.startsWith("{\"name\":\"" + name + "\""))).toArray(String[]::new);

        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        AtomicLong made = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        ConcurrentLinkedQueue<Long> window = new ConcurrentLinkedQueue<>();
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        CountDownLatch done = new CountDownLatch(sessions);
        for (int s = 0; s < sessions; s++) {
            int session = s;
            Thread thread = new Thread(() -> {
                try {
                    String id = initialize(client, endpoint, token);
                    for (long n = 0; System.nanoTime() < end; n++) {
                        String body = "{\"jsonrpc\":\"2.0\",\"id\":" + n + ",\"method\":\"tools/call\",\"params\":"
                                + calls[(int) ((n + session) % calls.length)] + "}";
                        long start = System.nanoTime();
                        HttpResponse<String> response = client.send(post(endpoint, token, id, body),
                                HttpResponse.BodyHandlers.ofString());
                        window.add((System.nanoTime() - start) / 1_000);
                        made.incrementAndGet();
                        if (response.statusCode() != 200 || !response.body().contains("\"result\"")) {
                            errors.incrementAndGet();
                        }
                    }
                } catch (Exception e) {
                    errors.incrementAndGet();
                    System.err.println("session " + session + " ended: " + e);
                } finally {
                    done.countDown();
                }
            }, "soak-" + s);
            thread.start();
        }
        System.out.printf("soak: %d sessions, %d s, %s%n", sessions, seconds, endpoint);
        System.out.println("   t    calls  errors   p50 ms   p99 ms   max ms   rss MB   disk MB");
        long started = System.nanoTime();
        long lastCalls = 0;
        while (!done.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
            lastCalls = report(started, made, errors, window, pid, watched, lastCalls);
        }
        report(started, made, errors, window, pid, watched, lastCalls);
        System.out.printf("total: %d calls, %d errors%n", made.get(), errors.get());
    }

    private static long report(long started, AtomicLong calls, AtomicLong errors, ConcurrentLinkedQueue<Long> window,
                               long pid, Path watched, long lastCalls) throws IOException {
        List<Long> micros = new ArrayList<>();
        for (Long v; (v = window.poll()) != null; ) {
            micros.add(v);
        }
        Collections.sort(micros);
        long total = calls.get();
        System.out.printf("%4d %8d %7d %8.1f %8.1f %8.1f %8s %9s%n", (System.nanoTime() - started) / 1_000_000_000L,
                total - lastCalls, errors.get(), pct(micros, 0.50), pct(micros, 0.99), pct(micros, 1.0),
                pid > 0 ? String.valueOf(rssMb(pid)) : "-", watched != null ? String.format("%.1f", sizeMb(watched)) : "-");
        return total;
    }

    private static double pct(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        int index = (int) Math.min(sorted.size() - 1, Math.ceil(p * sorted.size()) - 1);
        return sorted.get(Math.max(0, index)) / 1000.0;
    }

    private static long rssMb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
            }
        }
        return -1;
    }

    private static double sizeMb(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum() / 1048576.0;
        }
    }

    private static String initialize(HttpClient client, URI endpoint, String token) throws IOException, InterruptedException {
        String init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + PROTOCOL
                + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"soak\",\"version\":\"1\"}}}";
        HttpResponse<String> response = client.send(post(endpoint, token, null, init), HttpResponse.BodyHandlers.ofString());
        String id = response.headers().firstValue("Mcp-Session-Id").orElseThrow(() ->
                new IllegalStateException("no session: " + response.statusCode() + " " + response.body()));
        client.send(post(endpoint, token, id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"),
                HttpResponse.BodyHandlers.discarding());
        return id;
    }

    private static HttpRequest post(URI endpoint, String token, String session, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + token).header("MCP-Protocol-Version", PROTOCOL)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            request.header("Mcp-Session-Id", session);
        }
        return request.build();
    }
}
