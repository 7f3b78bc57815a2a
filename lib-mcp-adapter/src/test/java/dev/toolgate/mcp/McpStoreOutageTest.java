package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.json.Json;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.StoreFault;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.testkit.FlakyStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * A store outage as each MCP transport answers it: never "Internal error". Over Streamable HTTP (the
 * standalone server and the servlet endpoint) a JSON-RPC error {@link ToolgateMcpServer#STORE_UNAVAILABLE}
 * with HTTP 503 and, when retrying helps, {@code Retry-After}; over stdio a tool result with
 * {@code isError} the model can relay. After the store heals the same session is served again.
 */
class McpStoreOutageTest {

    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
    private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"ticket.list\",\"arguments\":{}}}";
    private static final StoreUnavailableException DOWN = new StoreUnavailableException(
            "Toolgate store unavailable: the database connection failed (Connection refused)", null,
            StoreFault.UNREACHABLE, Duration.ofSeconds(2));
    private static final StoreUnavailableException FULL = new StoreUnavailableException(
            "Toolgate store unavailable: the database has no space left (No space left on device)", null,
            StoreFault.DISK_FULL, null);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final FlakyStore store = new FlakyStore(new InMemoryStore());
    private final Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(store)
            .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO)
            .provider(Fixtures.ticketTools(new Fixtures.Tickets())).build();

    @AfterEach
    void close() {
        gate.close();
        store.close();
    }

    private ServedMcp serve(String transport) {
        Function<String, Optional<dev.toolgate.access.Principal>> tokens = token -> Optional.ofNullable(Fixtures.TOKENS.get(token));
        return transport.equals("servlet")
                ? ServedMcp.jetty(ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(tokens::apply)).build())
                : ServedMcp.standalone(ToolgateMcpServer.http(gate, tokens::apply).start());
    }

    private HttpResponse<String> post(URI endpoint, String session, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer carol-token").POST(HttpRequest.BodyPublishers.ofString(body));
        if (session != null) {
            request.header("Mcp-Session-Id", session);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"standalone", "servlet"})
    void overHttpAnOutageIs503WithRetryAfterAndItsOwnErrorCode(String transport) throws Exception {
        ServedMcp server = serve(transport);
        try {
            URI endpoint = server.endpoint();
            HttpResponse<String> init = post(endpoint, null, INIT);
            String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
            assertThat(post(endpoint, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode())
                    .isEqualTo(202);

            store.fail(DOWN);
            HttpResponse<String> refused = post(endpoint, session, String.format(CALL, 10));
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("2");
            JsonNode error = McpHttpProtocolTest.message(refused).path("error");
            assertThat(McpHttpProtocolTest.message(refused).path("id").asInt()).isEqualTo(10);
            assertThat(error.path("code").asInt()).isEqualTo(ToolgateMcpServer.STORE_UNAVAILABLE);
            assertThat(error.path("message").asString()).startsWith("Store unavailable: ").contains("Try again in 2 s")
                    .doesNotContain("Internal error").doesNotContain("Connection refused");
            assertThat(error.path("data").path("fault").asString()).isEqualTo("UNREACHABLE");
            assertThat(error.path("data").path("retryable").asBoolean()).isTrue();
            assertThat(error.path("data").path("retryAfterSeconds").asLong()).isEqualTo(2);

            store.fail(FULL);
            HttpResponse<String> full = post(endpoint, session, String.format(CALL, 11));
            assertThat(full.statusCode()).isEqualTo(503);
            assertThat(full.headers().firstValue("Retry-After")).as("retrying does not help").isEmpty();
            JsonNode fullError = McpHttpProtocolTest.message(full).path("error");
            assertThat(fullError.path("code").asInt()).isEqualTo(ToolgateMcpServer.STORE_UNAVAILABLE);
            assertThat(fullError.path("message").asString()).contains("an operator must act");
            assertThat(fullError.path("data").path("retryable").asBoolean()).isFalse();
            assertThat(fullError.path("data").has("retryAfterSeconds")).isFalse();

            store.heal();
            HttpResponse<String> served = post(endpoint, session, String.format(CALL, 12));
            assertThat(served.statusCode()).isEqualTo(200);
            assertThat(McpHttpProtocolTest.message(served).path("result").path("isError").asBoolean()).isFalse();
            assertThat(store.refused()).isEqualTo(2);
        } finally {
            server.close();
        }
    }

    @Test
    void overStdioAnOutageIsAToolResultTheModelCanRelay() throws Exception {
        PipedOutputStream toServer = new PipedOutputStream();
        PipedInputStream serverIn = new PipedInputStream(toServer, 1 << 16);
        PipedInputStream fromServer = new PipedInputStream(1 << 16);
        PipedOutputStream serverOut = new PipedOutputStream(fromServer);
        ToolgateMcpServer server = ToolgateMcpServer.stdio(gate, Fixtures.CAROL).streams(serverIn, serverOut).start();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(fromServer, StandardCharsets.UTF_8))) {
            send(toServer, INIT);
            lines.readLine();
            send(toServer, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

            store.fail(DOWN);
            send(toServer, String.format(CALL, 10));
            JsonNode refused = Json.parse(lines.readLine());
            assertThat(refused.path("id").asInt()).isEqualTo(10);
            assertThat(refused.has("error")).as("a result, not a JSON-RPC error: %s", refused).isFalse();
            assertThat(refused.at("/result/isError").asBoolean()).isTrue();
            JsonNode content = refused.at("/result/structuredContent");
            assertThat(content.path("status").asString()).isEqualTo("unavailable");
            assertThat(content.path("kind").asString()).isEqualTo("store");
            assertThat(content.path("fault").asString()).isEqualTo("UNREACHABLE");
            assertThat(content.path("retryAfterSeconds").asLong()).isEqualTo(2);
            assertThat(content.path("message").asString()).contains("Try again in 2 s").doesNotContain("Connection refused");

            store.heal();
            send(toServer, String.format(CALL, 11));
            JsonNode served = Json.parse(lines.readLine());
            assertThat(served.at("/result/isError").asBoolean()).isFalse();
        } finally {
            toServer.close();
            server.close();
        }
    }

    private static void send(OutputStream out, String line) throws Exception {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
