package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.examples.DemoPrincipals;
import dev.toolgate.examples.console.DemoConsole;
import dev.toolgate.examples.mcp.McpDemoServer;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.json.Json;
import dev.toolgate.spi.InMemoryStore;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;

/**
 * A soak of the operator console with pass/fail checks, used the way operators use it: many signed-in
 * sessions on kept-alive connections poll the inbox (with {@code If-None-Match}) while carol's calls keep
 * proposing, operators approve and deny the cards, people sign in and out, and someone keeps guessing
 * secrets. The gate runs on an H2 file by default ({@code --db h2|memory|JDBC_URL}), so the heap holds
 * only what the console and the server keep (the in-memory store adds its own records, a few MB).
 *
 * <pre>
 * ./mvnw -q -pl examples/demo-host -am compile dependency:build-classpath -Dmdep.outputFile=cp.txt -Dmdep.includeScope=runtime
 * java -Xmx128m -cp examples/demo-host/target/classes:$(cat examples/demo-host/cp.txt) \
 *     dev.toolgate.examples.bench.ConsoleSoak --seconds 120 --sessions 64
 * </pre>
 *
 * Every sample interval it runs a full GC and prints requests, errors, decisions, the heap after the
 * GC, the live sessions and the H2 file's size. Checks: no request failed (every answer is 200, 304,
 * or 409 for a card someone else decided); the live sessions never exceed what signed in and did not
 * sign out; the heap after a full GC at the end is at most 1.25 x the sample at 20% of the run plus
 * 8 MB. Exits 1 if a check failed.
 */
public final class ConsoleSoak {

    private ConsoleSoak() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = Integer.parseInt(DemoPrincipals.option(args, "--seconds").orElse("60"));
        int sessions = Integer.parseInt(DemoPrincipals.option(args, "--sessions").orElse("64"));
        String db = DemoPrincipals.option(args, "--db").orElse("h2");
        Path dir = Files.createTempDirectory("toolgate-console-soak");
        boolean ok;
        ToolgateBuilder builder = Toolgate.builder().budget(ToolBudget.unlimited());
        if (db.equals("memory")) {
            builder.store(new InMemoryStore());
        } else if (db.equals("h2")) {
            builder.storeSetting("jdbc.url", "jdbc:h2:file:" + dir.resolve("soak").toAbsolutePath());
        } else {
            builder.storeSetting("jdbc.url", db);
        }
        try (Toolgate gate = builder.build();
             DemoConsole console = DemoConsole.start(gate, McpDemoServer.TOKENS, "127.0.0.1", 0)) {
            System.out.printf(Locale.ROOT, "console soak: store %s%n", db.startsWith("jdbc:")
                    ? db.replaceAll("password=[^&;]*", "password=***") : db);
            ok = new Run(gate, console, seconds, sessions, dir).go();
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
            }
        }
        System.exit(ok ? 0 : 1);
    }

    private static final class Run {
        private final Toolgate gate;
        private final DemoConsole console;
        private final String url;
        private final String origin;
        private final int seconds;
        private final int sessions;
        private final Path dir;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong requests = new AtomicLong();
        private final AtomicLong errors = new AtomicLong();
        private final AtomicLong decisions = new AtomicLong();
        private final AtomicLong proposals = new AtomicLong();
        private final AtomicLong signIns = new AtomicLong();
        private final AtomicLong capped = new AtomicLong();
        private final ConcurrentHashMap<String, String> firstErrors = new ConcurrentHashMap<>();
        private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();

        Run(Toolgate gate, DemoConsole console, int seconds, int sessions, Path dir) {
            this.gate = gate;
            this.console = console;
            this.url = console.url();
            this.origin = url.substring(0, url.indexOf("/console/"));
            this.seconds = seconds;
            this.sessions = sessions;
            this.dir = dir;
        }

        /** One signed-in page. */
        private final class Page {
            String cookie;
            String csrf;
            String etag;

            boolean signIn(String user) throws Exception {
                HttpResponse<String> r = post("api/login", "{\"user\":\"" + user + "\",\"secret\":\"" + user + "-token\"}", false);
                if (r.statusCode() != 200) {
                    return false;
                }
                String set = r.headers().firstValue("Set-Cookie").orElseThrow();
                cookie = set.substring(0, set.indexOf(';'));
                csrf = Json.parse(r.body()).get("csrf").asString();
                signIns.incrementAndGet();
                return true;
            }

            HttpResponse<String> post(String path, String body, boolean signed) throws Exception {
                HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json").header("Origin", origin)
                        .POST(HttpRequest.BodyPublishers.ofString(body));
                if (signed) {
                    b.header("Cookie", cookie).header("X-Toolgate-Csrf", csrf);
                }
                return send(b.build(), path);
            }

            /** The cards, or null when unchanged. */
            JsonNode poll() throws Exception {
                HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + "api/inbox")).timeout(Duration.ofSeconds(30))
                        .header("Cookie", cookie);
                if (etag != null) {
                    b.header("If-None-Match", etag);
                }
                HttpResponse<String> r = send(b.build(), "api/inbox");
                etag = r.headers().firstValue("ETag").orElse(etag);
                return r.statusCode() == 200 ? Json.parse(r.body()).get("cards") : null;
            }
        }

        private HttpResponse<String> send(HttpRequest request, String what) throws Exception {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            requests.incrementAndGet();
            int s = r.statusCode();
            boolean expected = s == 200 || s == 204 || s == 304 || s == 409 || (what.equals("api/login") && s == 401);
            if (!expected) {
                errors.incrementAndGet();
                firstErrors.putIfAbsent(what + " " + s, r.body());
            }
            return r;
        }

        boolean go() throws Exception {
            ExecutorService pool = Executors.newFixedThreadPool(sessions + 3);
            List<Page> pages = new ArrayList<>();
            for (int i = 0; i < sessions; i++) {
                Page page = new Page();
                if (!page.signIn(i % 3 == 0 ? "bob" : "alice")) {
                    throw new IllegalStateException("sign-in failed");
                }
                pages.add(page);
            }
            for (int i = 0; i < sessions; i++) {
                Page page = pages.get(i);
                boolean operator = i % 3 != 0;
                int n = i;
                pool.submit(() -> {
                    while (running.get()) {
                        try {
                            if (!operator) {
                                send(HttpRequest.newBuilder(URI.create(url + "api/session")).header("Cookie", page.cookie)
                                        .timeout(Duration.ofSeconds(30)).build(), "api/session");
                                Thread.sleep(100);
                                continue;
                            }
                            JsonNode cards = page.poll();
                            if (operator && cards != null && cards.size() > 0) {
                                JsonNode card = cards.get(n % cards.size());
                                String id = card.get("callId").asString();
                                HttpResponse<String> r = n % 2 == 0
                                        ? page.post("api/inbox/" + id + "/approve", "{}", true)
                                        : page.post("api/inbox/" + id + "/deny", "{\"reason\":\"soak\"}", true);
                                if (r.statusCode() == 200) {
                                    decisions.incrementAndGet();
                                }
                            }
                            Thread.sleep(100);
                        } catch (InterruptedException e) {
                            return;
                        } catch (Exception e) {
                            if (!running.get()) {
                                return;
                            }
                            errors.incrementAndGet();
                            firstErrors.putIfAbsent("client " + e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
                        }
                    }
                });
            }
            // carol's model keeps proposing changes to one incident (nothing grows in the demo's data)
            pool.submit(() -> {
                CallContext carol = CallContext.of(DemoPrincipals.CAROL).withSession("soak-carol");
                String[] severities = {"LOW", "MEDIUM", "HIGH", "CRITICAL"};
                int i = 0;
                while (running.get()) {
                    try {
                        if (gate.pending(CallContext.of(DemoPrincipals.ALICE), null).size() < 20) {
                            CallResult r = gate.call(carol, "incident.update",
                                    "{\"id\":\"INC-1\",\"severity\":\"" + severities[i++ % 4] + "\"}");
                            if (r.status().equals("awaiting_operator")) {
                                proposals.incrementAndGet();
                            }
                        }
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        return;
                    } catch (dev.toolgate.tool.ToolValidationException e) {
                        // the severity it picked is the current one: feedback for a model, not a failure
                    } catch (dev.toolgate.call.PendingLimitException e) {
                        // the session's cap (10 by default; pending() counts every session's, and lags the
                        // decisions in flight): backpressure while the operators catch up, not a failure
                        capped.incrementAndGet();
                    } catch (Exception e) {
                        if (!running.get()) {
                            return;
                        }
                        errors.incrementAndGet();
                        firstErrors.putIfAbsent("propose " + e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
                    }
                }
            });
            // people come and go: sign in, look, sign out
            pool.submit(() -> {
                while (running.get()) {
                    try {
                        Page page = new Page();
                        if (page.signIn("alice")) {
                            page.poll();
                            page.post("api/logout", "{}", true);
                        }
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        if (!running.get()) {
                            return;
                        }
                        errors.incrementAndGet();
                        firstErrors.putIfAbsent("churn " + e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
                    }
                }
            });
            // someone keeps guessing secrets (throttled: 401, then 429)
            AtomicLong refused = new AtomicLong();
            pool.submit(() -> {
                while (running.get()) {
                    try {
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "api/login"))
                                .header("Content-Type", "application/json").header("Origin", origin)
                                .POST(HttpRequest.BodyPublishers.ofString("{\"user\":\"alice\",\"secret\":\"guess\"}")).build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() == 401 || r.statusCode() == 429) {
                            refused.incrementAndGet();
                        } else {
                            errors.incrementAndGet();
                            firstErrors.putIfAbsent("guess " + r.statusCode(), r.body());
                        }
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        if (running.get()) {
                            errors.incrementAndGet();
                        }
                    }
                }
            });

            long interval = Math.max(3, seconds / 6);
            long start = System.nanoTime();
            long baseline = -1;
            int maxSessions = 0;
            long last = 0;
            System.out.printf(Locale.ROOT, "console soak: %d sessions, %d s, heap max %d MB%n", sessions, seconds,
                    Runtime.getRuntime().maxMemory() >> 20);
            System.out.println("   t(s)   requests  errors  proposals  decisions  heap-after-GC(MB)  sessions  h2(KB)");
            while (true) {
                long elapsed = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
                if (elapsed >= seconds) {
                    break;
                }
                Thread.sleep(Math.min(interval, seconds - elapsed) * 1000);
                elapsed = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
                last = heapAfterGc();
                if (baseline < 0 && elapsed >= seconds / 5) {
                    baseline = last;
                }
                System.out.printf(Locale.ROOT, "%7d %10d %7d %10d %10d %18.1f %9d %7d%n", elapsed, requests.get(), errors.get(),
                        proposals.get(), decisions.get(), last / 1048576.0, console.activeSessions(), h2Kb());
                maxSessions = Math.max(maxSessions, console.activeSessions());
            }
            running.set(false);
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
            last = heapAfterGc();
            if (baseline < 0) {
                baseline = last;
            }
            boolean ok = true;
            long limit = (long) (baseline * 1.25) + 8L * 1048576;
            System.out.printf(Locale.ROOT, "requests %d, decisions %d, proposals %d (%d refused at the session's pending cap),"
                    + " sign-ins %d, guesses refused %d%n", requests.get(), decisions.get(), proposals.get(), capped.get(),
                    signIns.get(), refused.get());
            if (errors.get() > 0) {
                ok = false;
                System.out.println("FAIL errors: " + errors.get() + " " + firstErrors);
            }
            if (last > limit) {
                ok = false;
                System.out.printf(Locale.ROOT, "FAIL heap: %.1f MB after GC at the end > limit %.1f MB%n", last / 1048576.0, limit / 1048576.0);
            }
            if (decisions.get() == 0 || proposals.get() == 0) {
                ok = false;
                System.out.println("FAIL nothing was decided");
            }
            if (maxSessions > sessions + 2) {
                ok = false;
                System.out.println("FAIL sessions: " + maxSessions + " live at once; at most " + (sessions + 2) + " were signed in");
            }
            if (refused.get() == 0) {
                ok = false;
                System.out.println("FAIL the guesser was never refused");
            }
            System.out.printf(Locale.ROOT, "%s: heap %.1f MB at the end (baseline %.1f, limit %.1f), %d errors, at most %d sessions live%n",
                    ok ? "PASS" : "FAIL", last / 1048576.0, baseline / 1048576.0, limit / 1048576.0, errors.get(), maxSessions);
            return ok;
        }

        private long h2Kb() {
            try (Stream<Path> files = Files.list(dir)) {
                return files.mapToLong(p -> p.toFile().length()).sum() / 1024;
            } catch (IOException e) {
                return -1;
            }
        }

        private static long heapAfterGc() {
            System.gc();
            return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        }
    }
}
