package dev.toolgate.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.toolgate.json.Json;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The console mounted on the JDK's own HTTP server and used over real, kept-alive connections the way
 * the page uses it: sign in, poll, decide, sign out.
 */
class JdkHttpHandlerTest {

    private final ConsoleFixture fx = new ConsoleFixture();
    private HttpServer server;
    private String base;
    private String origin;
    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/ops/console", fx.console.httpHandler());
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
        origin = "http://127.0.0.1:" + server.getAddress().getPort();
        base = origin + "/ops/console";
    }

    @AfterEach
    void stop() {
        server.stop(0);
        fx.close();
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder post(String path, String json, String cookie, String csrf) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").header("Origin", origin)
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        if (csrf != null) {
            b.header(Guard.CSRF_HEADER, csrf);
        }
        return b;
    }

    @Test
    void aSignedInOperatorPollsDecidesAndSignsOutOverKeptAliveConnections() throws Exception {
        HttpResponse<String> redirect = send(HttpRequest.newBuilder(URI.create(base)).build());
        assertThat(redirect.statusCode()).isEqualTo(308);
        assertThat(redirect.headers().firstValue("Location")).contains("/ops/console/");

        HttpResponse<String> page = send(HttpRequest.newBuilder(URI.create(base + "/")).build());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("assets/console.js");
        assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow()).contains("script-src 'self'");
        String etag = send(HttpRequest.newBuilder(URI.create(base + "/assets/console.js")).build()).headers()
                .firstValue("ETag").orElseThrow();
        assertThat(send(HttpRequest.newBuilder(URI.create(base + "/assets/console.js")).header("If-None-Match", etag).build())
                .statusCode()).isEqualTo(304);

        HttpResponse<String> login = send(post("/api/login", "{\"user\":\"alice\",\"secret\":\"alice-secret\"}", null, null).build());
        assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
        String setCookie = login.headers().firstValue("Set-Cookie").orElseThrow();
        assertThat(setCookie).contains("Path=/ops/console/").contains("HttpOnly");
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));
        String csrf = Json.parse(login.body()).get("csrf").asString();

        String callId = fx.carolProposes("Disk full");
        String version = null;
        int notModified = 0;
        for (int i = 0; i < 300; i++) {
            HttpRequest.Builder poll = HttpRequest.newBuilder(URI.create(base + "/api/inbox")).header("Cookie", cookie);
            if (version != null) {
                poll.header("If-None-Match", version);
            }
            HttpResponse<String> r = send(poll.build());
            assertThat(r.statusCode()).isIn(200, 304);
            if (r.statusCode() == 304) {
                notModified++;
                assertThat(r.body()).isEmpty();
            } else {
                JsonNode inbox = Json.parse(r.body());
                assertThat(inbox.get("cards").get(0).get("callId").asString()).isEqualTo(callId);
            }
            version = r.headers().firstValue("ETag").orElseThrow();
        }
        assertThat(notModified).isEqualTo(299);

        HttpResponse<String> approved = send(post("/api/inbox/" + callId + "/approve", "{}", cookie, csrf).build());
        assertThat(approved.statusCode()).as(approved.body()).isEqualTo(200);
        HttpResponse<String> late = send(post("/api/inbox/" + callId + "/approve", "{}", cookie, csrf).build());
        assertThat(late.statusCode()).isEqualTo(409);
        assertThat(Json.parse(late.body()).get("message").asString()).isEqualTo("already decided: applied by alice");

        HttpResponse<String> tooBig = send(post("/api/inbox/" + callId + "/deny",
                "{\"reason\":\"" + "x".repeat(ToolgateConsole.MAX_BODY_BYTES * 4) + "\"}", cookie, csrf).build());
        assertThat(tooBig.statusCode()).isEqualTo(413);

        assertThat(send(post("/api/logout", "{}", cookie, csrf).build()).statusCode()).isEqualTo(204);
        assertThat(send(HttpRequest.newBuilder(URI.create(base + "/api/inbox")).header("Cookie", cookie).build()).statusCode())
                .isEqualTo(401);
    }

    @Test
    void aForgedCrossSiteFormPostIsRefusedOverHttp() throws Exception {
        String callId = fx.carolProposes("Disk full");
        HttpResponse<String> login = send(post("/api/login", "{\"user\":\"alice\",\"secret\":\"alice-secret\"}", null, null).build());
        String setCookie = login.headers().firstValue("Set-Cookie").orElseThrow();
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));
        HttpResponse<String> forged = send(HttpRequest.newBuilder(URI.create(base + "/api/inbox/" + callId + "/approve"))
                .header("Content-Type", "application/x-www-form-urlencoded").header("Origin", "http://evil.example")
                .header("Cookie", cookie).POST(HttpRequest.BodyPublishers.ofString("always=true")).build());
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(fx.gate.findCall(callId).orElseThrow().status().wireName()).isEqualTo("proposed");
    }
}
