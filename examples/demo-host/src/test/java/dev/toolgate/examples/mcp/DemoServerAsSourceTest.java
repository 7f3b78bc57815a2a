package dev.toolgate.examples.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.mcp.remote.McpSource;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.source.SecretResolver;
import dev.toolgate.source.SourceStatus;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runnable demo MCP server as the remote tool source of another gate (a gate in front of a gate):
 * the front lists the demo's tools with their effects from the MCP annotations, runs reads, and asks
 * its own operator before anything is sent; the back, run in AUTO, applies a MUTATE at once and still
 * holds a DESTRUCTIVE one for its own operator.
 */
class DemoServerAsSourceTest {

    private static final Principal CAROL = Principal.user("carol", "*");
    private static URI endpoint;
    private static URI metrics;
    private static Thread server;
    private Toolgate front;

    @BeforeAll
    static void startTheDemoServer() throws Exception {
        int port;
        int metricsPort;
        try (ServerSocket probe = new ServerSocket(0); ServerSocket other = new ServerSocket(0)) {
            port = probe.getLocalPort();
            metricsPort = other.getLocalPort();
        }
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(console, true, StandardCharsets.UTF_8);
        McpDemoServer.Options options = new McpDemoServer.Options("http", "carol", port, "127.0.0.1", "memory",
                PermissionMode.AUTO, 0, 600, -1, metricsPort, dev.toolgate.call.Consent.USER);
        server = new Thread(() -> {
            try {
                McpDemoServer.run(options, out);
            } catch (Exception e) {
                out.println("failed: " + e);
            }
        }, "demo-mcp-server");
        server.setDaemon(true);
        server.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!console.toString(StandardCharsets.UTF_8).contains("Toolgate metrics (Prometheus text format) on")) {
            assertThat(console.toString(StandardCharsets.UTF_8)).doesNotContain("failed:");
            assertThat(System.nanoTime()).as("the demo server starts").isLessThan(deadline);
            Thread.sleep(50);
        }
        endpoint = URI.create("http://127.0.0.1:" + port + "/mcp");
        metrics = URI.create("http://127.0.0.1:" + metricsPort + "/metrics");
    }

    @AfterAll
    static void stopTheDemoServer() {
        server.interrupt(); // a daemon: the fork ends with the tests
    }

    private Toolgate front() {
        front = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .sweepInterval(Duration.ZERO)
                .secrets(SecretResolver.of(Map.of("demo-token", "carol-token")))
                .source(McpSource.http("demo", endpoint).bearerSecret("demo-token").displayName("Toolgate demo").build())
                .build();
        return front;
    }

    @Test
    void theDemoServerExposesItsMetricsInThePrometheusTextFormat() throws Exception {
        try (Toolgate gate = front()) {
            gate.call(CallContext.of(CAROL).withSession("front"), "mcp:demo.catalog.listSystems", "{}");
        }
        java.net.http.HttpResponse<String> scrape = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(metrics).GET().build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(scrape.statusCode()).isEqualTo(200);
        assertThat(scrape.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
        assertThat(scrape.body())
                .containsPattern("toolgate_calls_total\\{effect=\"read\",mode=\"allow\",mode_source=\"inferred_default\","
                        + "status=\"executed\",tool=\"catalog\\.listSystems\",transport=\"mcp\"} [1-9]")
                .contains("toolgate_call_duration_seconds_bucket{")
                .contains("toolgate_proposals_pending ")
                .doesNotContain("carol");
        java.net.http.HttpResponse<String> post = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(metrics).POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
    }

    @Test
    void theFrontGovernsTheDemoServersToolsAndConsentIsGivenOnceAtTheFront() {
        try (Toolgate gate = front()) {
            assertThat(gate.listSources()).singleElement().satisfies(s -> assertThat(s.state()).isEqualTo(SourceStatus.State.AVAILABLE));
            assertThat(gate.registry().find("mcp:demo.catalog.listSystems").orElseThrow().effect()).isEqualTo(Effect.READ);
            assertThat(gate.registry().find("mcp:demo.incident.create").orElseThrow().effect()).isEqualTo(Effect.MUTATE);
            assertThat(gate.registry().find("mcp:demo.incident.delete").orElseThrow().effect()).isEqualTo(Effect.DESTRUCTIVE);

            CallContext carol = CallContext.of(CAROL).withSession("front");
            Executed systems = (Executed) gate.call(carol, "mcp:demo.catalog.listSystems", "{}");
            assertThat(systems.result().toString()).contains("billing");

            Proposal create = (Proposal) gate.call(carol, "mcp:demo.incident.create",
                    "{\"systemId\":\"web\",\"title\":\"Front door stuck\",\"severity\":\"LOW\"}");
            assertThat(create.summary()).contains("has no dry-run").contains("Toolgate demo");
            Applied created = gate.apply(carol, create.token());
            assertThat(created.result().path("status").asString()).as("the back in AUTO applies at once").isEqualTo("applied");
            String id = created.result().findValue("id").asString();

            Proposal delete = (Proposal) gate.call(carol, "mcp:demo.incident.delete", "{\"id\":\"" + id + "\"}");
            Applied sent = gate.apply(carol, delete.token());
            assertThat(sent.result().path("status").asString()).as("the back never auto-applies a DESTRUCTIVE tool, and "
                    + "the front, which cannot confirm it with a user, leaves it to the back's operator")
                    .isEqualTo("awaiting_operator");

            assertThat(gate.guide(carol)).contains("## mcp:demo (Toolgate demo)")
                    .contains("### `mcp:demo.incident.delete`").contains("effect: DESTRUCTIVE");
        }
    }
}
