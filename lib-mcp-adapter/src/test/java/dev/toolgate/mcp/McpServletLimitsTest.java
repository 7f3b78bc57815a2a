package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.json.Json;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The standalone server's hostile-input defences ({@link McpHttpLimitsTest}, {@link McpHttpKeepAliveTest})
 * asked of the servlet endpoint on an embedded Jetty 12, configured as a careful host would: 72
 * threads, a 2 s idle timeout (the standalone tests' read timeout), request bodies slower than
 * 100 bytes/s cut off. Slow clients and workers are the container's business here, so these tests
 * measure Jetty plus the SDK's transport, not Toolgate code; the ones disabled record a defence the
 * standalone server has and this stack does not (see the module README).
 */
class McpServletLimitsTest {

    private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";

    private final List<AutoCloseable> closing = new ArrayList<>();
    private Toolgate gate;
    private ServedMcp server;

    private void start(UnaryOperator<McpServletBuilder> settings) {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        McpServletEndpoint endpoint = settings.apply(ToolgateMcpServer.servlet(gate,
                McpRequestAuthenticator.bearer(token -> Optional.ofNullable(Fixtures.TOKENS.get(token))))).build();
        server = ServedMcp.jetty(endpoint, 72, 2_000, 100);
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

    @Test
    @Timeout(180)
    void threeHundredSlowBodiesDoNotStopANormalClient() throws Exception {
        start(b -> b);
        SlowClients slow = new SlowClients(server.port(), 300, SlowClients.Mode.BODY, "bob-token", 600);
        closing.add(slow);
        slow.start();
        Thread.sleep(3_000); // every slow client has its request under way

        long started = System.nanoTime();
        try (KeptAliveClient normal = new KeptAliveClient(server.port(), "carol-token").initialize()) {
            KeptAliveClient.Response list = normal.post(LIST);
            assertThat(list.status()).isEqualTo(200);
            assertThat(toolCount(list)).isEqualTo(5);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the normal client, behind 300 slow ones")
                .isLessThan(Duration.ofSeconds(60));
        awaitTrue(Duration.ofSeconds(60), () -> slow.closedByServer() == 300, "every slow connection closed by the server");
    }

    @Test
    @Timeout(120)
    void aClientThatSendsOneByteAndThenNothingIsCutOff() throws Exception {
        start(b -> b);
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(15_000);
            socket.getOutputStream().write('P');
            socket.getOutputStream().flush();
            long started = System.nanoTime();
            InputStream in = socket.getInputStream();
            try {
                while (in.read() != -1) {
                    // an error response may come first; the connection must end
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the server kept a one-byte connection open for 15 s", e);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    @Timeout(120)
    @org.junit.jupiter.api.Disabled("measured: Jetty's idle timeout restarts with every byte, so a request line and headers "
            + "trickled one byte a second are never cut off (the standalone server's read timeout counts from the first byte); "
            + "they hold no Jetty thread meanwhile")
    void aClientThatTricklesItsRequestLineAndHeadersIsCutOff() throws Exception {
        start(b -> b);
        SlowClients slow = new SlowClients(server.port(), 5, SlowClients.Mode.HEAD, "bob-token", 600);
        closing.add(slow);
        slow.start();
        awaitTrue(Duration.ofSeconds(30), () -> slow.closedByServer() == 5, "every trickling head cut off");
    }

    @Test
    void thePrincipalsOldestIdleSessionIsEvictedAndItsIdGets404() throws Exception {
        start(b -> b.maxSessionsPerPrincipal(2).maxSessions(10));
        KeptAliveClient first = client("carol-token").initialize();
        KeptAliveClient second = client("carol-token").initialize();
        assertThat(second.post(LIST).status()).isEqualTo(200); // the first is now the least recently used

        KeptAliveClient third = client("carol-token").initialize();
        assertThat(first.post(LIST).status()).as("the evicted session").isEqualTo(404);
        assertThat(second.post(LIST).status()).isEqualTo(200);
        assertThat(third.post(LIST).status()).isEqualTo(200);
        assertThat(client("bob-token").initialize().post(LIST).status()).as("another principal's cap is its own").isEqualTo(200);
    }

    @Test
    @Timeout(60)
    void withNoIdleSessionTheCapsRefuseWith429And503AndADeleteMakesRoom() throws Exception {
        start(b -> b.maxSessionsPerPrincipal(2).maxSessions(3));
        KeptAliveClient first = client("carol-token").initialize();
        KeptAliveClient second = client("carol-token").initialize();
        openStream("carol-token", first.sessionId());
        openStream("carol-token", second.sessionId());
        awaitTrue(Duration.ofSeconds(10), () -> server.openStreams() == 2, "both streams open");

        KeptAliveClient.Response refused = client("carol-token").post(INIT);
        assertThat(refused.status()).isEqualTo(429);
        assertThat(Json.parse(refused.body()).path("error").path("data").path("limit").asString()).isEqualTo("maxSessionsPerPrincipal");

        KeptAliveClient bob = client("bob-token").initialize();
        openStream("bob-token", bob.sessionId());
        awaitTrue(Duration.ofSeconds(10), () -> server.openStreams() == 3, "three streams open");
        KeptAliveClient.Response serverFull = client("alice-token").post(INIT);
        assertThat(serverFull.status()).isEqualTo(503);
        assertThat(Json.parse(serverFull.body()).path("error").path("data").path("limit").asString()).isEqualTo("maxSessions");

        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(("DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer carol-token\r\nMcp-Session-Id: "
                    + first.sessionId() + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(answer).startsWith("HTTP/1.1 200");
        }
        assertThat(client("carol-token").post(INIT).status()).as("the deleted session made room").isEqualTo(200);
    }

    /** Opens the session's event stream on a raw socket (closed after the test) and waits for its headers. */
    private void openStream(String token, String session) throws Exception {
        Socket socket = new Socket("127.0.0.1", server.port());
        closing.add(socket);
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write(("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                + "\r\nAccept: text/event-stream\r\nMcp-Session-Id: " + session + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        byte[] status = socket.getInputStream().readNBytes(12);
        assertThat(new String(status, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
    }

    @Test
    @Timeout(180)
    void twoHundredCallsOnOneKeptAliveConnectionTakeUnderFourSeconds() throws Exception {
        start(b -> b);
        try (KeptAliveClient client = new KeptAliveClient(server.port(), "carol-token").initialize()) {
            for (int batch = 0; batch < 20; batch++) {
                if (calls(client, 50).compareTo(Duration.ofSeconds(1)) < 0) {
                    break;
                }
            }
            List<Duration> runs = new ArrayList<>();
            for (int run = 0; run < 5 && runs.stream().allMatch(took -> took.toMillis() >= 4_000); run++) {
                runs.add(calls(client, 200));
            }
            assertThat(runs).as("runs of 200 sequential calls on one kept-alive connection")
                    .anyMatch(took -> took.toMillis() < 4_000);
        }
    }

    private static Duration calls(KeptAliveClient client, int count) throws Exception {
        long started = System.nanoTime();
        for (int i = 0; i < count; i++) {
            KeptAliveClient.Response response = client.call(100 + i, "ticket.list", "{}");
            assertThat(response.status()).isEqualTo(200);
            assertThat(McpServletLimitsTest.message(response).path("result").path("isError").asBoolean()).isFalse();
        }
        return Duration.ofNanos(System.nanoTime() - started);
    }

    private KeptAliveClient client(String token) throws Exception {
        KeptAliveClient client = new KeptAliveClient(server.port(), token);
        closing.add(client);
        return client;
    }

    private static int toolCount(KeptAliveClient.Response response) {
        return message(response).path("result").path("tools").size();
    }

    /** The JSON-RPC message of a JSON or SSE response body. */
    static tools.jackson.databind.JsonNode message(KeptAliveClient.Response response) {
        String body = response.body();
        if (response.headers().getOrDefault("content-type", "").startsWith("text/event-stream")) {
            String data = null;
            for (String line : body.split("\n")) {
                if (line.startsWith("data:")) {
                    data = line.substring(5).strip();
                }
            }
            body = data;
        }
        return Json.parse(body);
    }

    private static void awaitTrue(Duration limit, BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + limit + ": " + what);
            }
            Thread.sleep(50);
        }
    }
}
