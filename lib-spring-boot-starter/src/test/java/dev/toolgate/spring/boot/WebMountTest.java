package dev.toolgate.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import tools.jackson.databind.JsonNode;

/**
 * The starter in a whole Spring Boot web application behind Spring Boot's default security chain (every
 * request authenticated, HTTP Basic, CSRF on): the console signs operators in through the application,
 * refuses people without the role, and decides over its HTTP API; the MCP endpoint serves the governed
 * tools to an authenticated client; Actuator reports health and info; Micrometer counts calls.
 */
@SpringBootTest(classes = WebMountTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "toolgate.discover-plugins=false",
        "toolgate.store=memory",
        "toolgate.console.enabled=true",
        "toolgate.console.secure-cookie=false",
        "toolgate.mcp.enabled=true",
        "management.endpoints.web.exposure.include=health,info",
        "management.endpoint.health.show-details=always",
})
class WebMountTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Incidents incidents() {
            return new Incidents();
        }

        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("ana").password("{noop}ana-secret").authorities("incident.read", "incident.write").build(),
                    User.withUsername("olga").password("{noop}olga-secret")
                            .authorities("ROLE_TOOLGATE_OPERATOR", "incident.read", "incident.write").build(),
                    User.withUsername("oscar").password("{noop}oscar-secret")
                            .authorities("ROLE_TOOLGATE_OPERATOR", "incident.read", "incident.write").build(),
                    User.withUsername("bob").password("{noop}bob-secret").roles("USER").build());
        }
    }

    @LocalServerPort
    int port;
    @Autowired
    Toolgate gate;
    @Autowired
    Incidents incidents;
    @Autowired
    MeterRegistry meters;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void anOperatorApprovesThroughTheConsoleSignedInByTheApplication() throws Exception {
        Proposal proposal = (Proposal) gate.call(CallContext.of(Principal.user("ana", "incident.write")).withSession("chat-9"),
                "incident.create", "{\"title\":\"VPN down\"}");
        assertThat(incidents.open).isEmpty();

        assertThat(get("/toolgate/api/session", null).statusCode()).isEqualTo(401);         // the application's chain
        HttpResponse<String> bob = get("/toolgate/api/session", basic("bob", "bob-secret"));
        assertThat(bob.statusCode()).isEqualTo(403);
        assertThat(bob.body()).contains("TOOLGATE_OPERATOR");

        HttpResponse<String> session = get("/toolgate/api/session", basic("olga", "olga-secret"));
        assertThat(session.statusCode()).isEqualTo(200);
        JsonNode view = Json.parse(session.body());
        assertThat(view.path("principal").asString()).isEqualTo("olga");
        assertThat(view.path("operator").asBoolean()).isTrue();
        String cookie = session.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
        String csrf = view.path("csrf").asString();

        HttpResponse<String> inbox = send(HttpRequest.newBuilder(uri("/toolgate/api/inbox")).GET()
                .header("Authorization", basic("olga", "olga-secret")).header("Cookie", cookie).build());
        assertThat(inbox.statusCode()).isEqualTo(200);
        assertThat(inbox.body()).contains(proposal.callId());

        // a change without the console's CSRF token is refused by the console (Spring's CSRF does not apply here)
        HttpResponse<String> noToken = send(post("/toolgate/api/inbox/" + proposal.callId() + "/approve", "{}")
                .header("Authorization", basic("olga", "olga-secret")).header("Cookie", cookie).build());
        assertThat(noToken.statusCode()).isEqualTo(403);
        assertThat(noToken.body()).contains("csrf");
        assertThat(incidents.open).isEmpty();

        HttpResponse<String> approved = send(post("/toolgate/api/inbox/" + proposal.callId() + "/approve", "{}")
                .header("Authorization", basic("olga", "olga-secret")).header("Cookie", cookie)
                .header("X-Toolgate-Csrf", csrf).build());
        assertThat(approved.statusCode()).as(approved.body()).isEqualTo(200);
        assertThat(Json.parse(approved.body()).path("outcome").asString()).isEqualTo("approved");
        assertThat(incidents.open).containsValue("VPN down");
        assertThat(gate.findCall(proposal.callId()).orElseThrow().decidedBy().id()).isEqualTo("olga");
    }

    @Test
    void aSessionCookieIsNothingWithoutTheApplicationsSignIn() throws Exception {
        HttpResponse<String> session = get("/toolgate/api/session", basic("olga", "olga-secret"));
        String cookie = session.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
        HttpResponse<String> asBob = send(HttpRequest.newBuilder(uri("/toolgate/api/inbox")).GET()
                .header("Authorization", basic("bob", "bob-secret")).header("Cookie", cookie).build());
        assertThat(asBob.statusCode()).isEqualTo(403);
        HttpResponse<String> cookieOnly = send(HttpRequest.newBuilder(uri("/toolgate/api/inbox")).GET()
                .header("Cookie", cookie).build());
        assertThat(cookieOnly.statusCode()).isEqualTo(401);
        // a header claiming to be someone is nobody: only the application's security chain says who
        HttpResponse<String> forged = send(HttpRequest.newBuilder(uri("/toolgate/api/session")).GET()
                .header("Authorization", basic("bob", "bob-secret")).header("X-Forwarded-User", "olga")
                .header("X-Remote-User", "olga").header("Remote-User", "olga").build());
        assertThat(forged.statusCode()).isEqualTo(403);
        // another operator with olga's cookie does not get olga's session: it ends, and the cookie is dead for olga too
        HttpResponse<String> asOscar = send(HttpRequest.newBuilder(uri("/toolgate/api/inbox")).GET()
                .header("Authorization", basic("oscar", "oscar-secret")).header("Cookie", cookie).build());
        assertThat(asOscar.statusCode()).isEqualTo(401);
        HttpResponse<String> olgaAgain = send(HttpRequest.newBuilder(uri("/toolgate/api/inbox")).GET()
                .header("Authorization", basic("olga", "olga-secret")).header("Cookie", cookie).build());
        assertThat(olgaAgain.statusCode()).isEqualTo(401);
    }

    @Test
    void theMcpEndpointServesTheSignedInPrincipalsTools() throws Exception {
        String init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
        HttpResponse<String> anonymous = send(mcp(init, null, null));
        assertThat(anonymous.statusCode()).isEqualTo(401);
        HttpResponse<String> initialized = send(mcp(init, basic("ana", "ana-secret"), null));
        assertThat(initialized.statusCode()).as(initialized.body()).isEqualTo(200);
        String sessionId = initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
        send(mcp("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", basic("ana", "ana-secret"), sessionId));
        HttpResponse<String> tools = send(mcp("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", basic("ana", "ana-secret"), sessionId));
        assertThat(tools.body()).contains("incident.list").contains("incident.create");
        // the session belongs to ana: bob cannot use it
        HttpResponse<String> stolen = send(mcp("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}", basic("bob", "bob-secret"), sessionId));
        assertThat(stolen.statusCode()).isIn(403, 404);
    }

    @Test
    void actuatorReportsTheGateAndMicrometerCountsItsCalls() throws Exception {
        gate.call(CallContext.of(Principal.user("ana", "incident.read")), "incident.list", "{}");
        HttpResponse<String> health = get("/actuator/health", basic("olga", "olga-secret"));
        JsonNode toolgate = Json.parse(health.body()).path("components").path("toolgate");
        assertThat(toolgate.path("status").asString()).as(health.body()).isEqualTo("UP");
        assertThat(toolgate.path("details").path("store").asString()).isEqualTo("reachable");
        HttpResponse<String> info = get("/actuator/info", basic("olga", "olga-secret"));
        JsonNode entry = Json.parse(info.body()).path("toolgate");
        assertThat(entry.path("tools").asInt()).isEqualTo(2);
        assertThat(entry.path("console").asString()).isEqualTo("/toolgate/");
        assertThat(entry.path("mcp").asString()).isEqualTo("/mcp");
        assertThat(meters.find("toolgate.calls").counters()).isNotEmpty();
    }

    private HttpRequest mcp(String body, String authorization, String sessionId) {
        HttpRequest.Builder b = post("/mcp", body).header("Accept", "application/json, text/event-stream");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (sessionId != null) {
            b.header("Mcp-Session-Id", sessionId).header("MCP-Protocol-Version", "2025-11-25");
        }
        return b.build();
    }

    private HttpRequest.Builder post(String path, String body) {
        return HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").header("Origin", "http://localhost:" + port);
    }

    private HttpResponse<String> get(String path, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).GET();
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return send(b.build());
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }

    static String basic(String user, String secret) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + secret).getBytes(StandardCharsets.UTF_8));
    }
}
