package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * Errors while serving a request over Streamable HTTP: an {@link Error} at the request's edge is
 * logged once and answered 500 and ends no thread; an {@link Error} thrown by a tool is answered
 * -32603 at once instead of leaving the request hanging.
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

    private void start(UnaryOperator<ToolgateMcpServer.HttpBuilder> settings) {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        startServer(settings, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)));
    }

    private void startServer(UnaryOperator<ToolgateMcpServer.HttpBuilder> settings, McpAuthenticator authenticator) {
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
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
