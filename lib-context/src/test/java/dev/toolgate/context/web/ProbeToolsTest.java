package dev.toolgate.context.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.tool.ToolValidationException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

/** {@code web.probeUrl} through a gate: schema, access, results and the audit of failures. */
@Timeout(60)
class ProbeToolsTest {

    private static final String RULE = "web.probe";
    private static final CallContext CALLER = CallContext.of(Principal.user("u", RULE));

    private LocalServer server;

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    private static Toolgate gate(ProbeSettings settings) {
        Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false)
                .store(new dev.toolgate.spi.InMemoryStore()).budget(dev.toolgate.budget.ToolBudget.unlimited()).build();
        gate.registry().register(ProbeTools.tools(settings, RULE));
        return gate;
    }

    private static String args(String url, String method) {
        return "{\"url\":\"" + url + "\"" + (method == null ? "" : ",\"method\":\"" + method + "\"") + "}";
    }

    @Test
    void theToolIsAnOpenWorldReadUnderTheWebPlugin() {
        ToolProvider provider = ProbeTools.tools(ProbeSettings.defaults(), RULE);
        assertThat(provider.pluginId()).isEqualTo("web");
        Toolgate gate = gate(ProbeSettings.defaults());
        RegisteredTool tool = gate.registry().find("web.probeUrl").orElseThrow();
        assertThat(tool.effect()).isEqualTo(Effect.READ);
        assertThat(tool.tool().openWorld()).isTrue();
        assertThat(tool.requiredAccessRules()).containsExactly(RULE);
        assertThat(tool.timeout()).contains(Duration.ofSeconds(15));
        // a DNS lookup ignores interruption: handed off, the caller is answered at the backstop
        assertThat(tool.onCallerThread()).isFalse();
        assertThat(tool.tool().description()).contains("NOT followed");
        JsonNode output = tool.descriptor().outputSchema().orElseThrow();
        assertThat(output.get("properties").propertyNames()).contains("status", "statusText", "redirected", "location",
                "contentType", "headers", "bodySample", "bodyTruncated");
        assertThat(output.get("required").toString()).doesNotContain("location", "contentType");
        JsonNode input = tool.descriptor().inputSchema();
        assertThat(input.at("/properties/url/maxLength").asInt()).isEqualTo(2048);
        assertThat(input.get("required").toString()).contains("url").doesNotContain("method");
    }

    @Test
    void aProbeThroughTheGateReturnsTheResult() throws IOException {
        server = LocalServer.start(LocalServer.answer("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                + "Set-Cookie: sid=secret\r\nContent-Length: 11\r\n\r\n{\"ok\":true}"));
        Toolgate gate = gate(UrlProbeTest.local().build());

        Executed executed = (Executed) gate.call(CALLER, "web.probeUrl", args(UrlProbeTest.url(server, "/health"), null));

        JsonNode result = executed.result();
        assertThat(result.get("status").asInt()).isEqualTo(200);
        assertThat(result.get("redirected").asBoolean()).isFalse();
        assertThat(result.get("contentType").asString()).isEqualTo("application/json");
        assertThat(result.get("bodySample").asString()).isEqualTo("{\"ok\":true}");
        assertThat(result.get("bodyTruncated").asBoolean()).isFalse();
        assertThat(result.get("location").isNull()).isTrue();
        assertThat(result.get("headers").has("set-cookie")).isFalse();
        assertThat(result.toString()).doesNotContain("secret");
        assertThat(gate.findCall(executed.callId()).orElseThrow().status()).isEqualTo(CallStatus.EXECUTED);
    }

    @Test
    void headThroughTheGate() throws IOException {
        server = LocalServer.start(LocalServer.answer("HTTP/1.1 301 Moved\r\nLocation: https://example.com/new\r\n"
                + "Content-Length: 0\r\n\r\n"));
        Toolgate gate = gate(UrlProbeTest.local().build());

        Executed executed = (Executed) gate.call(CALLER, "web.probeUrl", args(UrlProbeTest.url(server, "/old"), "HEAD"));

        assertThat(server.requests().get(0)).startsWith("HEAD /old HTTP/1.1");
        assertThat(executed.result().get("redirected").asBoolean()).isTrue();
        assertThat(executed.result().get("location").asString()).isEqualTo("https://example.com/new");
    }

    @Test
    void theSchemaRefusesOtherMethodsLongUrlsAndMissingUrls() {
        Toolgate gate = gate(ProbeSettings.defaults());
        for (String bad : List.of(args("https://example.com/", "POST"), args("https://example.com/", "DELETE"),
                args("https://example.com/" + "a".repeat(2048), null), "{\"method\":\"GET\"}", args("", null))) {
            assertThatThrownBy(() -> gate.call(CALLER, "web.probeUrl", bad)).as(bad)
                    .isInstanceOfSatisfying(ToolValidationException.class,
                            e -> assertThat(e.callId()).as("refused before anything was recorded").isNull());
        }
    }

    @Test
    void aRefusedUrlIsRecordedAsAFailedCall() {
        Toolgate gate = gate(ProbeSettings.defaults());

        assertThatThrownBy(() -> gate.call(CALLER, "web.probeUrl", args("http://169.254.169.254/latest/meta-data/", null)))
                .isInstanceOfSatisfying(ToolExecutionException.class, e -> {
                    assertThat(e.getMessage()).contains("URL refused", "link-local address (169.254/16, includes cloud metadata)")
                            .as("no Java class name reaches the model").doesNotContain("UrlRefusedException");
                    assertThat(e.timedOut()).isFalse();
                    CallRecord record = gate.findCall(e.callId()).orElseThrow();
                    assertThat(record.status()).isEqualTo(CallStatus.FAILED);
                    assertThat(record.toolName()).isEqualTo("web.probeUrl");
                    assertThat(record.error()).as("the audit keeps the type").contains("UrlRefusedException: URL refused");
                });
    }

    @Test
    void aTimeoutIsRecordedAsAFailedCallByTheProbeItself() throws IOException {
        server = LocalServer.start((request, out, s) -> s.hold(30));
        Toolgate gate = gate(UrlProbeTest.local().build());
        long start = System.nanoTime();

        assertThatThrownBy(() -> gate.call(CALLER, "web.probeUrl", args(UrlProbeTest.url(server, "/"), null)))
                .isInstanceOfSatisfying(ToolExecutionException.class, e -> {
                    assertThat(e.getMessage()).contains("no complete response within 3 s").doesNotContain("ProbeException");
                    assertThat(e.timedOut()).as("the probe's deadline, not the gate's backstop").isFalse();
                    assertThat(gate.findCall(e.callId()).orElseThrow().status()).isEqualTo(CallStatus.FAILED);
                });
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(UrlProbeTest.GENEROUS);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "http://nowhere.example.com/ | the host 'nowhere.example.com' does not resolve",
        "CLOSED                      | failed: refused",
        "GARBAGE                     | malformed response",
        "TLS                         | TLS failed during the TLS handshake",
        "http://localhost/           | internal name (.localhost)",
    })
    void everyKindOfFailureIsRecordedAsAFailedCallWithItsReason(String target, String reason) throws IOException {
        String url = target;
        if (target.equals("CLOSED")) {
            int port;
            try (java.net.ServerSocket closed = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = closed.getLocalPort();
            }
            url = "http://" + UrlProbeTest.NAME + ":" + port + "/";
        } else if (target.equals("GARBAGE")) {
            server = LocalServer.start(LocalServer.answer("220 smtp.example.com ESMTP\r\n"));
            url = UrlProbeTest.url(server, "/");
        } else if (target.equals("TLS")) {
            server = LocalServer.raw(LocalServer.answer("HTTP/1.1 400 Bad Request\r\n\r\n"));
            url = "https://" + UrlProbeTest.NAME + ":" + server.port() + "/";
        }
        Toolgate gate = gate(UrlProbeTest.local().build());
        String arguments = args(url, null);

        assertThatThrownBy(() -> gate.call(CALLER, "web.probeUrl", arguments))
                .isInstanceOfSatisfying(ToolExecutionException.class, e -> {
                    assertThat(e.getMessage()).contains(reason);
                    CallRecord record = gate.findCall(e.callId()).orElseThrow();
                    assertThat(record.status()).isEqualTo(CallStatus.FAILED);
                    assertThat(record.error()).contains(reason);
                });
    }

    @Test
    void aCallerWithoutTheRuleIsForbidden() {
        Toolgate gate = gate(ProbeSettings.defaults());
        assertThatThrownBy(() -> gate.call(CallContext.of(Principal.user("v", "other.rule")), "web.probeUrl",
                args("https://example.com/", null))).isInstanceOf(ForbiddenException.class);
    }
}
