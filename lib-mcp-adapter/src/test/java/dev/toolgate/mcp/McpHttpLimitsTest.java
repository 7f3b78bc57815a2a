package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * The Streamable HTTP transport's limits, with real sockets and threads: the read timeout against
 * slow clients (body and head), the bounded worker pool and what a client sees when it is full, and
 * the session caps with eviction and refusal.
 */
class McpHttpLimitsTest {

    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
    private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
    private static final String GET_T1 = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"ticket.get\",\"arguments\":{\"id\":\"T-1\"}}}";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private Toolgate gate;
    private ToolgateMcpServer server;
    private URI endpoint;

    private void start(UnaryOperator<McpHttpBuilder> settings) {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        server = settings.apply(ToolgateMcpServer.http(gate, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)))
                .idleThreadKeepAlive(Duration.ofMillis(300))).start();
        endpoint = server.endpoint().orElseThrow();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable resource : closing) {
            resource.close();
        }
        if (server != null) {
            server.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    // ------------------------------------------------------------------------------------ read timeout

    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // JDK 17's HttpClient streams ignore interrupts
    void threeHundredSlowBodiesDoNotStopANormalClientAndTheirWorkersAreReleased() throws Exception {
        start(b -> b.readTimeout(Duration.ofSeconds(2)).maxQueuedRequests(512));
        int port = server.port();
        // 600 bytes at one a second would hold a worker for ten minutes each
        SlowClients slow = new SlowClients(port, 300, SlowClients.Mode.BODY, "bob-token", 600);
        closing.add(slow);
        AtomicInteger peakWorkers = new AtomicInteger();
        Thread sampler = sampleWorkerThreads(port, peakWorkers);
        slow.start();
        awaitTrue(Duration.ofSeconds(30), () -> server.busyWorkers() == 64, "all 64 workers taken by slow clients");

        long started = System.nanoTime();
        String session = initialize("carol-token");
        HttpResponse<String> list = send(post(LIST, "carol-token").header("Mcp-Session-Id", session));
        HttpResponse<String> call = send(post(GET_T1, "carol-token").header("Mcp-Session-Id", session));
        Duration normal = Duration.ofNanos(System.nanoTime() - started);

        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(Json.parse(list.body()).path("result").path("tools").size()).isEqualTo(5);
        assertThat(call.statusCode()).isEqualTo(200);
        assertThat(Json.parse(call.body()).path("result").path("structuredContent").path("status").asString()).isEqualTo("executed");
        assertThat(normal).as("the normal client, behind 300 slow ones (each worth 600 s)").isLessThan(Duration.ofSeconds(60));

        awaitTrue(Duration.ofSeconds(60), () -> slow.closedByServer() == 300, "every slow connection closed by the server");
        assertThat(slow.answered()).as("slow clients get no answer, only a closed connection").isZero();
        awaitTrue(Duration.ofSeconds(30), () -> server.busyWorkers() == 0 && liveThreads("toolgate-mcp-http-" + port + "-") == 0,
                "worker threads back to idle (none alive after their keep-alive)");
        sampler.interrupt();
        sampler.join(5_000);
        assertThat(peakWorkers.get()).as("worker threads never exceed the maximum").isBetween(1, 64);
        assertThat(liveThreads("toolgate-mcp-http-busy-" + port + "-")).isZero();
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // JDK 17's HttpClient streams ignore interrupts
    void aClientThatTricklesItsRequestLineAndHeadersIsCutOff() throws Exception {
        start(b -> b.readTimeout(Duration.ofSeconds(2)));
        int port = server.port();
        SlowClients slow = new SlowClients(port, 5, SlowClients.Mode.HEAD, "carol-token", 100);
        closing.add(slow);
        slow.start();
        awaitTrue(Duration.ofSeconds(30), () -> server.busyWorkers() == 5, "five workers reading slow heads");
        awaitTrue(Duration.ofSeconds(30), () -> slow.closedByServer() == 5, "every slow head cut off");
        assertThat(slow.answered()).isZero();
        awaitTrue(Duration.ofSeconds(30), () -> server.busyWorkers() == 0 && liveThreads("toolgate-mcp-http-" + port + "-") == 0,
                "worker threads back to idle");
        String session = initialize("carol-token");
        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", session)).statusCode()).isEqualTo(200);
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // JDK 17's HttpClient streams ignore interrupts
    void aClientThatSendsOneByteAndThenNothingIsCutOff() throws Exception {
        start(b -> b.readTimeout(Duration.ofSeconds(1)));
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write('P');
            socket.getOutputStream().flush();
            assertThat(readUntilClosed(socket.getInputStream())).as("no answer, the connection closed").isEmpty();
        }
        awaitTrue(Duration.ofSeconds(30), () -> server.busyWorkers() == 0, "its worker released");
    }

    @Test
    @Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // JDK 17's HttpClient streams ignore interrupts
    void connectionsCutOffByTheReadTimeoutAreForgottenByTheJdkServer() throws Exception {
        start(b -> b.readTimeout(Duration.ofSeconds(1)).maxQueuedRequests(512));
        long before = liveInstances("sun.net.httpserver.HttpConnection");
        SlowClients slow = new SlowClients(server.port(), 50, SlowClients.Mode.BODY, "bob-token", 600);
        closing.add(slow);
        slow.start();
        awaitTrue(Duration.ofSeconds(60), () -> slow.closedByServer() == 50, "every slow connection closed by the server");
        awaitTrue(Duration.ofSeconds(10), () -> server.busyWorkers() == 0, "workers free");

        // a connection closed behind the JDK server's back stays in its bookkeeping until it stops
        assertThat(liveInstances("sun.net.httpserver.HttpConnection") - before).as("connections still held").isLessThan(10);
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // JDK 17's HttpClient streams ignore interrupts
    void theReadTimeoutDoesNotEndALongToolCallNorAnOpenEventStream() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        start(b -> b.readTimeout(Duration.ofMillis(500)).keepAliveInterval(Duration.ofMillis(200)));
        gate.registry().register(ToolProvider.of("slow", Tool.builder("wait", NoInput.class).description("Waits.")
                .effect(Effect.READ).requires("ticket.read").execute((in, ctx) -> {
                    release.await(20, TimeUnit.SECONDS);
                    return "done";
                }).build()));
        String session = initialize("carol-token");
        HttpResponse<InputStream> stream = http.send(HttpRequest.newBuilder(endpoint).header("Authorization", "Bearer carol-token")
                .header("Mcp-Session-Id", session).header("Accept", "text/event-stream").GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);
        CompletableFuture<HttpResponse<String>> call = http.sendAsync(post("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"slow.wait\",\"arguments\":{}}}", "carol-token").header("Mcp-Session-Id", session).build(),
                HttpResponse.BodyHandlers.ofString());
        awaitTrue(Duration.ofSeconds(10), () -> server.busyWorkers() == 1, "the call is running");
        Thread.sleep(2_000); // not a synchronization: four read timeouts pass, which the call and the stream must outlive
        release.countDown();
        HttpResponse<String> answer = call.get(20, TimeUnit.SECONDS);
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(Json.parse(answer.body()).path("result").path("structuredContent").path("result").asString()).isEqualTo("done");

        gate.registry().register(ToolProvider.of("later", Tool.builder("ping", NoInput.class).description("Ping.")
                .effect(Effect.READ).execute((in, ctx) -> "pong").build()));
        try (BufferedReader events = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
            String line;
            String data = null;
            while ((line = events.readLine()) != null) {
                if (line.startsWith("data: ")) {
                    data = line.substring(6);
                    break;
                }
            }
            assertThat(data).as("the stream, open for seconds, still delivers").isNotNull();
            assertThat(Json.parse(data).path("method").asString()).isEqualTo("notifications/tools/list_changed");
        }
    }

    // ------------------------------------------------------------------------------------ bounded pool

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // JDK 17's HttpClient streams ignore interrupts
    void aFullPoolAndQueueAnswer503WithRetryAfterAndTheServerRecovers() throws Exception {
        start(b -> b.readTimeout(Duration.ofSeconds(5)).maxWorkerThreads(1).maxQueuedRequests(1));
        int port = server.port();
        SlowClients slow = new SlowClients(port, 2, SlowClients.Mode.BODY, "carol-token", 100);
        closing.add(slow);
        slow.start();
        awaitTrue(Duration.ofSeconds(10), () -> server.busyWorkers() == 1 && server.queuedRequests() == 1,
                "the one worker and the one queue slot taken");

        HttpResponse<String> busy = send(post(INIT, "carol-token"));
        assertThat(busy.statusCode()).isEqualTo(503);
        assertThat(busy.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(busy.headers().firstValue("Connection")).hasValueSatisfying(v -> assertThat(v).isEqualToIgnoringCase("close"));
        assertThat(error(busy).path("code").asInt()).isEqualTo(-32004);
        assertThat(error(busy).path("message").asString()).startsWith("Server busy");
        assertThat(liveThreads("toolgate-mcp-http-" + port + "-")).as("no thread beyond the maximum").isEqualTo(1);

        awaitTrue(Duration.ofSeconds(30), () -> slow.closedByServer() == 2, "the slow clients cut off");
        String session = initialize("carol-token");
        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", session)).statusCode()).isEqualTo(200);
    }

    @Test
    void beyondTheOverloadResponderTheExecutorRefusesAndTheJdkServerClosesTheConnection() throws Exception {
        // the pool's own refusal, with real threads held on a latch
        CountDownLatch hold = new CountDownLatch(1);
        HttpWatchdog watchdog = new HttpWatchdog(Duration.ofMinutes(1), Thread::new);
        HttpWorkers workers = new HttpWorkers(1, 1, Duration.ofMinutes(1), Duration.ofSeconds(1), watchdog, Thread::new, Thread::new);
        Runnable held = () -> {
            try {
                hold.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        try {
            int accepted = 0;
            RejectedExecutionException refused = null;
            for (int i = 0; i < 1 + 1 + HttpWorkers.OVERLOAD_THREADS + HttpWorkers.OVERLOAD_QUEUE + 1 && refused == null; i++) {
                try {
                    workers.execute(held);
                    accepted++;
                } catch (RejectedExecutionException e) {
                    refused = e;
                }
            }
            assertThat(accepted).as("worker + queue + overload threads + overload queue")
                    .isEqualTo(1 + 1 + HttpWorkers.OVERLOAD_THREADS + HttpWorkers.OVERLOAD_QUEUE);
            assertThat(refused).isNotNull();
        } finally {
            hold.countDown();
            workers.shutdownNow();
            watchdog.close();
        }

        // what the JDK server does with a connection its executor refuses: closes it, no answer
        HttpServer refusing = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        refusing.setExecutor(task -> {
            throw new RejectedExecutionException("full");
        });
        refusing.createContext("/", exchange -> exchange.sendResponseHeaders(200, -1));
        refusing.start();
        try (Socket socket = new Socket("127.0.0.1", refusing.getAddress().getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readUntilClosed(socket.getInputStream())).isEmpty();
        } finally {
            refusing.stop(0);
        }
    }

    // ------------------------------------------------------------------------------------ session caps

    @Test
    void thePrincipalsOldestIdleSessionIsEvictedAndItsIdGets404() throws Exception {
        start(b -> b.maxSessionsPerPrincipal(2).maxSessions(10));
        String first = initialize("carol-token");
        String second = initialize("carol-token");
        String bobs = initialize("bob-token");
        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", first)).statusCode())
                .as("first used after second: second is now the least recently used").isEqualTo(200);

        String third = initialize("carol-token");

        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", second)).statusCode()).as("evicted").isEqualTo(404);
        assertThat(error(send(post(LIST, "carol-token").header("Mcp-Session-Id", second))).path("code").asInt()).isEqualTo(-32001);
        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", first)).statusCode()).isEqualTo(200);
        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", third)).statusCode()).isEqualTo(200);
        assertThat(send(post(LIST, "bob-token").header("Mcp-Session-Id", bobs)).statusCode()).as("another principal's").isEqualTo(200);
        assertThat(server.openSessions()).isEqualTo(3);
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // JDK 17's HttpClient streams ignore interrupts
    void aSessionWithARequestInFlightIsNotEvicted() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start(b -> b.maxSessionsPerPrincipal(2).maxSessions(10));
        gate.registry().register(ToolProvider.of("slow", Tool.builder("wait", NoInput.class).description("Waits.")
                .effect(Effect.READ).requires("ticket.read").execute((in, ctx) -> {
                    entered.countDown();
                    release.await(20, TimeUnit.SECONDS);
                    return "done";
                }).build()));
        String busy = initialize("carol-token");
        String idle = initialize("carol-token");
        CompletableFuture<HttpResponse<String>> call = http.sendAsync(post("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"slow.wait\",\"arguments\":{}}}", "carol-token").header("Mcp-Session-Id", busy).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();

        String fresh = initialize("carol-token"); // the older session is busy, so the idle one goes

        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", idle)).statusCode()).isEqualTo(404);
        release.countDown();
        assertThat(call.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", busy)).statusCode()).isEqualTo(200);
        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", fresh)).statusCode()).isEqualTo(200);
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // JDK 17's HttpClient streams ignore interrupts
    void withNoIdleSessionThePrincipalsCapRefusesWith429() throws Exception {
        start(b -> b.maxSessionsPerPrincipal(2).maxSessions(10));
        String first = initialize("carol-token");
        String second = initialize("carol-token");
        openStream("carol-token", first);
        openStream("carol-token", second);

        HttpResponse<String> refused = send(post(INIT, "carol-token"));

        assertThat(refused.statusCode()).isEqualTo(429);
        JsonNode error = error(refused);
        assertThat(error.path("code").asInt()).isEqualTo(-32005);
        assertThat(error.path("message").asString()).startsWith("Too many sessions").contains("user:carol").contains("2");
        assertThat(error.path("data").path("limit").asString()).isEqualTo("maxSessionsPerPrincipal");
        assertThat(error.path("data").path("max").asInt()).isEqualTo(2);
        assertThat(Json.parse(refused.body()).path("id").asInt()).isEqualTo(1);
        assertThat(refused.headers().firstValue("Mcp-Session-Id")).isEmpty();
        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", first)).statusCode()).as("nothing evicted").isEqualTo(200);
        assertThat(initialize("bob-token")).as("other principals are not affected").isNotBlank();

        assertThat(send(HttpRequest.newBuilder(endpoint).header("Authorization", "Bearer carol-token")
                .header("Mcp-Session-Id", second).DELETE()).statusCode()).isEqualTo(200);
        assertThat(initialize("carol-token")).as("room again after a DELETE").isNotBlank();
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // JDK 17's HttpClient streams ignore interrupts
    void theServersCapEvictsAnyonesOldestIdleSessionThenRefusesWith503() throws Exception {
        start(b -> b.maxSessionsPerPrincipal(3).maxSessions(3));
        String carols = initialize("carol-token");
        String bobs = initialize("bob-token");
        String alices = initialize("alice-token");

        String alicesSecond = initialize("alice-token");

        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", carols)).statusCode())
                .as("the server's oldest idle session, another principal's").isEqualTo(404);
        openStream("bob-token", bobs);
        openStream("alice-token", alices);
        openStream("alice-token", alicesSecond);

        HttpResponse<String> refused = send(post(INIT, "carol-token"));

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(error(refused).path("code").asInt()).isEqualTo(-32005);
        assertThat(error(refused).path("data").path("limit").asString()).isEqualTo("maxSessions");
        assertThat(error(refused).path("data").path("max").asInt()).isEqualTo(3);
        assertThat(server.openSessions()).isEqualTo(3);
    }

    @Test
    void capsAreChecked() {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        McpHttpBuilder builder = ToolgateMcpServer.http(gate, token -> Optional.empty());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> builder.maxSessionsPerPrincipal(0))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> builder.readTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> builder.maxSessions(4).maxSessionsPerPrincipal(5).start())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxSessionsPerPrincipal");
    }

    // ------------------------------------------------------------------------------------ helpers

    private HttpRequest.Builder post(String body, String token) {
        return HttpRequest.newBuilder(endpoint)
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String initialize(String token) throws IOException, InterruptedException {
        HttpResponse<String> response = send(post(INIT, token));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        String session = response.headers().firstValue("Mcp-Session-Id").orElseThrow();
        assertThat(send(post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", token)
                .header("Mcp-Session-Id", session)).statusCode()).isEqualTo(202);
        return session;
    }

    /** Opens the session's GET stream and waits for its first line; the stream stays open until the test ends. */
    private void openStream(String token, String session) throws IOException, InterruptedException {
        HttpResponse<InputStream> stream = http.send(HttpRequest.newBuilder(endpoint).header("Authorization", "Bearer " + token)
                .header("Mcp-Session-Id", session).header("Accept", "text/event-stream").GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);
        InputStream body = stream.body();
        closing.add(body);
        assertThat(body.read()).as("the stream's first comment").isNotNegative();
    }

    private static JsonNode error(HttpResponse<String> response) {
        JsonNode body = Json.parse(response.body());
        assertThat(body.path("jsonrpc").asString()).isEqualTo("2.0");
        return body.path("error");
    }

    /** What the server sent before closing: read until end of stream or reset. */
    private static byte[] readUntilClosed(InputStream in) throws IOException {
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        byte[] buffer = new byte[1024];
        try {
            int n;
            while ((n = in.read(buffer)) != -1) {
                read.write(buffer, 0, n);
            }
        } catch (SocketException reset) {
            // closed with unread data: a reset
        }
        return read.toByteArray();
    }

    /** Live (after a full GC) instances of a class, from the JVM's class histogram. */
    private static long liveInstances(String className) throws Exception {
        String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        for (String line : histogram.split("\n")) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length >= 4 && columns[3].equals(className)) {
                return Long.parseLong(columns[1]);
            }
        }
        return 0;
    }

    private static long liveThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith(prefix)).count();
    }

    private static Thread sampleWorkerThreads(int port, AtomicInteger peak) {
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                peak.accumulateAndGet((int) liveThreads("toolgate-mcp-http-" + port + "-"), Math::max);
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "worker-sampler");
        sampler.setDaemon(true);
        sampler.start();
        return sampler;
    }

    /** Polls {@code condition} until it holds or {@code limit} passes (then fails with {@code what}). */
    private static void awaitTrue(Duration limit, BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + limit + ": " + what);
            }
            Thread.sleep(20);
        }
    }
}
