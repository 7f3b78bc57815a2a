package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.toolgate.Toolgate;
import dev.toolgate.access.Resolver;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import io.modelcontextprotocol.json.McpJsonDefaults;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * Errors while serving a request over Streamable HTTP: an {@link Error} at the request's edge (from
 * the authenticator) is logged once, answered 500 and ends no thread; one thrown by a tool, or by the
 * resolver while the SDK lists tools, is answered -32603 at once instead of leaving the request
 * hanging, logged once; one after the response started closes the connection. After each, the same
 * kept-alive connection and new ones serve ordinary calls.
 */
class McpHttpErrorsTest {

    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
    private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private Toolgate gate;
    private ToolgateMcpServer server;
    private URI endpoint;

    private void start(UnaryOperator<McpHttpBuilder> settings) {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        startServer(settings, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)));
    }

    private void startServer(UnaryOperator<McpHttpBuilder> settings, McpAuthenticator authenticator) {
        server = settings.apply(ToolgateMcpServer.http(gate, authenticator)).start();
        endpoint = server.endpoint().orElseThrow();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    @Test
    @Timeout(60)
    void anErrorWhileServingOneRequestIsLoggedOnceAnswered500AndKillsNoThread() throws Exception {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        AtomicReference<Thread> served = new AtomicReference<>();
        startServer(b -> b, token -> {
            if (token.equals("broken-token")) {
                served.set(Thread.currentThread());
                throw new AssertionError("simulated failure 7f3a");
            }
            return Optional.ofNullable(Fixtures.TOKENS.get(token));
        });

        String log = capturingStandardError(() -> {
            HttpResponse<String> broken = send(post(INIT, "broken-token"));
            assertThat(broken.statusCode()).isEqualTo(500);
            assertThat(error(broken).path("code").asInt()).isEqualTo(-32603);
            assertThat(error(broken).path("message").asString()).isEqualTo("Internal error");
        });

        assertThat(log.split("simulated failure 7f3a", -1)).as("logged once: %s", log).hasSize(2);
        assertThat(served.get().isAlive()).isTrue();
        String session = initialize("carol-token");
        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", session)).statusCode()).isEqualTo(200);
        assertThat(served.get().isAlive()).as("the thread that met the error serves on").isTrue();
    }

    @Test
    @Timeout(60)
    void aToolThatThrowsStackOverflowErrorIsAnsweredAtOnce() throws Exception {
        start(b -> b);
        gate.registry().register(ToolProvider.of("deep", Tool.builder("recurse", NoInput.class).description("Overflows.")
                .effect(Effect.READ).requires("ticket.read").execute((in, ctx) -> {
                    throw new StackOverflowError("simulated overflow");
                }).build()));
        String session = initialize("carol-token");

        HttpResponse<String> call = send(post("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"deep.recurse\",\"arguments\":{}}}", "carol-token").header("Mcp-Session-Id", session));

        assertThat(call.statusCode()).isEqualTo(200);
        assertThat(error(call).path("code").asInt()).isEqualTo(-32603);
        assertThat(error(call).path("message").asString()).isEqualTo("Internal error");
        assertThat(send(post(LIST, "carol-token").header("Mcp-Session-Id", session)).statusCode()).isEqualTo(200);
    }

    @Test
    @Timeout(60)
    void errorsThrownByToolsAreAnsweredMinus32603LoggedOnceAndKeptAliveAndNewConnectionsServeOn() throws Exception {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        gate.registry().register(ToolProvider.of("boom",
                throwing("oom", () -> new OutOfMemoryError("tool oom 51c2")),
                throwing("overflow", () -> new StackOverflowError("tool overflow 9d07"))));
        startServer(b -> b, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)));

        try (KeptAliveClient client = new KeptAliveClient(server.port(), "carol-token").initialize()) {
            Map<String, String> tools = Map.of("boom.oom", "java.lang.OutOfMemoryError: tool oom 51c2",
                    "boom.overflow", "java.lang.StackOverflowError: tool overflow 9d07");
            for (Map.Entry<String, String> tool : new TreeMap<>(tools).entrySet()) {
                String log = capturingStandardError(() -> {
                    KeptAliveClient.Response failed = client.call(10, tool.getKey(), "{}");
                    assertThat(failed.status()).as(failed.toString()).isEqualTo(200); // a JSON-RPC error answers the call
                    assertThat(error(failed.body()).path("code").asInt()).isEqualTo(-32603);
                    assertThat(error(failed.body()).path("message").asString()).isEqualTo("Internal error");
                });
                assertThat(occurrences(log, tool.getValue())).as("the stack trace logged once: %s", log).isEqualTo(1);
                assertExecuted(client.call(11, "ticket.list", "{}")); // the same connection serves on
            }
        }
        try (KeptAliveClient fresh = new KeptAliveClient(server.port(), "bob-token").initialize()) {
            assertExecuted(fresh.call(2, "ticket.list", "{}"));
            assertExecuted(fresh.call(3, "ticket.get", "{\"id\":\"T-1\"}"));
        }
    }

    @Test
    @Timeout(60)
    void errorsAtTheRequestsEdgeAreAnswered500LoggedOnceAndKeptAliveAndNewConnectionsServeOn() throws Exception {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        Set<Thread> served = ConcurrentHashMap.newKeySet();
        startServer(b -> b, token -> {
            served.add(Thread.currentThread());
            switch (token) {
                case "oom-token" -> throw new OutOfMemoryError("edge oom 3e8a");
                case "overflow-token" -> throw new StackOverflowError("edge overflow 77f1");
                default -> {
                    return Optional.ofNullable(Fixtures.TOKENS.get(token));
                }
            }
        });

        try (KeptAliveClient client = new KeptAliveClient(server.port(), "carol-token").initialize()) {
            Map<String, String> tokens = Map.of("oom-token", "java.lang.OutOfMemoryError: edge oom 3e8a",
                    "overflow-token", "java.lang.StackOverflowError: edge overflow 77f1");
            for (Map.Entry<String, String> token : new TreeMap<>(tokens).entrySet()) {
                String log = capturingStandardError(() -> {
                    KeptAliveClient.Response failed = client.post(LIST, token.getKey());
                    assertThat(failed.status()).as(failed.toString()).isEqualTo(500);
                    assertThat(error(failed.body()).path("code").asInt()).isEqualTo(-32603);
                    assertThat(error(failed.body()).path("message").asString()).isEqualTo("Internal error");
                });
                assertThat(occurrences(log, token.getValue())).as("logged once: %s", log).isEqualTo(1);
                assertExecuted(client.call(11, "ticket.list", "{}")); // the same connection serves on
            }
        }
        try (KeptAliveClient fresh = new KeptAliveClient(server.port(), "bob-token").initialize()) {
            assertExecuted(fresh.call(2, "ticket.list", "{}"));
        }
        assertThat(served).as("the threads that met the errors serve on").isNotEmpty().allMatch(Thread::isAlive);
    }

    @Test
    @Timeout(60)
    void anErrorWhileTheSdkHandlesARequestIsAnsweredLoggedOnceAndTheConnectionServesOn() throws Exception {
        AtomicBoolean armed = new AtomicBoolean();
        gate = Toolgate.builder().discoverTools(false).discoverComponents(false).budget(ToolBudget.unlimited())
                .sweepInterval(Duration.ZERO).policyCacheTtl(Duration.ZERO)
                .provider(Fixtures.ticketTools(new Fixtures.Tickets()))
                .resolver((principal, tool) -> {
                    if (armed.get()) {
                        throw new OutOfMemoryError("resolver oom 2b4c");
                    }
                    return Resolver.standard().decide(principal, tool);
                })
                .build();
        startServer(b -> b, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)));

        try (KeptAliveClient client = new KeptAliveClient(server.port(), "carol-token").initialize()) {
            String log = capturingStandardError(() -> {
                armed.set(true);
                try {
                    KeptAliveClient.Response failed = client.post(LIST);
                    assertThat(failed.status()).as(failed.toString()).isIn(200, 500);
                    assertThat(error(failed.body()).path("code").asInt()).as(failed.toString()).isEqualTo(-32603);
                } finally {
                    armed.set(false);
                }
            });
            assertThat(occurrences(log, "java.lang.OutOfMemoryError: resolver oom 2b4c")).as("logged once: %s", log).isEqualTo(1);
            KeptAliveClient.Response list = client.post(LIST);
            assertThat(list.status()).as(list.toString()).isEqualTo(200);
            assertExecuted(client.call(3, "ticket.list", "{}"));
        }
    }

    @Test
    @Timeout(60)
    void anErrorAfterTheResponseStartedClosesTheConnectionAndTheServerServesOn() throws Exception {
        HttpNoDelay.ensure(); // before this test's plain JDK server, as ToolgateMcpServer would
        AtomicBoolean fail = new AtomicBoolean(true);
        HttpEdge edge = new HttpEdge(new HttpResponses(McpJsonDefaults.getMapper()), exchange -> {
            exchange.sendResponseHeaders(200, 10);
            exchange.getResponseBody().write("half".getBytes(StandardCharsets.US_ASCII));
            exchange.getResponseBody().flush();
            if (fail.get()) {
                throw new OutOfMemoryError("after start 6a1f");
            }
            exchange.getResponseBody().write("-of-it".getBytes(StandardCharsets.US_ASCII));
            exchange.close();
        });
        HttpServer plain = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        plain.createContext("/", edge);
        plain.start();
        try {
            String log = capturingStandardError(() -> {
                try (Socket socket = new Socket("127.0.0.1", plain.getAddress().getPort())) {
                    socket.setSoTimeout(20_000); // a connection left open would time out the read
                    socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                    assertThat(answer).startsWith("HTTP/1.1 200").endsWith("half"); // then the server closed it
                }
            });
            assertThat(occurrences(log, "java.lang.OutOfMemoryError: after start 6a1f")).as("logged once: %s", log).isEqualTo(1);
            fail.set(false);
            HttpResponse<String> next = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + plain.getAddress().getPort() + "/")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(next.body()).isEqualTo("half-of-it");
        } finally {
            plain.stop(0);
        }
    }

    private static Tool<NoInput, String> throwing(String name, Supplier<Error> error) {
        return Tool.builder(name, NoInput.class).description("Throws an Error.").effect(Effect.READ).requires("ticket.read")
                .<String>execute((in, ctx) -> {
                    throw error.get();
                }).build();
    }

    private static void assertExecuted(KeptAliveClient.Response response) {
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(Json.parse(response.body()).path("result").path("structuredContent").path("status").asString())
                .as(response.body()).isEqualTo("executed");
    }

    private static JsonNode error(String body) {
        JsonNode json = Json.parse(body);
        assertThat(json.path("jsonrpc").asString()).isEqualTo("2.0");
        return json.path("error");
    }

    private static int occurrences(String text, String part) {
        return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

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

    private static JsonNode error(HttpResponse<String> response) {
        JsonNode body = Json.parse(response.body());
        assertThat(body.path("jsonrpc").asString()).isEqualTo("2.0");
        return body.path("error");
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    /** Runs {@code action} with standard error captured (the test logger writes there) and returns it. */
    private static String capturingStandardError(Action action) throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } catch (Exception | AssertionError e) {
            // what the server logged meanwhile, which the capture would otherwise swallow (a flake's only trace)
            e.addSuppressed(new Exception("standard error while it ran:\n" + captured.toString(StandardCharsets.UTF_8)));
            throw e;
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
