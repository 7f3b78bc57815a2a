package dev.toolgate.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.BasicAuthenticator;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpServer;
import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Host sign-in over real HTTP: the JDK server's own HTTP Basic authenticator stands for the
 * application's security layer, and the adapter takes the console's identity from it alone. The
 * console's public handler, which has no security layer, never takes one from what the client sends.
 */
class HostSignInHttpTest {

    private static final Map<String, String> PASSWORDS = Map.of("alice", "alice-pw", "carol", "carol-pw");
    private static final Map<String, Principal> PEOPLE = Map.of("alice", ConsoleFixture.ALICE, "carol", ConsoleFixture.CAROL);

    private final ConsoleFixture fx = new ConsoleFixture();
    private final ToolgateConsole console = ToolgateConsole.builder(fx.gate).hostSignIn().secureCookie(false).build();
    private HttpServer server;
    private String origin;
    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/app/console", new JdkHttpHandler(console, exchange -> {
            HttpPrincipal user = exchange.getPrincipal(); // set by the Basic authenticator below, never by the client
            return user == null ? null : CallContext.of(PEOPLE.get(user.getUsername()));
        })).setAuthenticator(new BasicAuthenticator("app") {
            @Override
            public boolean checkCredentials(String user, String password) {
                return password.equals(PASSWORDS.get(user));
            }
        });
        server.createContext("/open/console", console.httpHandler());
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
        origin = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        fx.close();
    }

    private static String basic(String user) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + PASSWORDS.get(user)).getBytes(StandardCharsets.UTF_8));
    }

    private HttpResponse<String> get(String path, String user, String cookie) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(origin + "/app/console" + path)).timeout(Duration.ofSeconds(10))
                .header("Authorization", basic(user));
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String json, String user, String cookie, String csrf) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(origin + "/app/console" + path)).timeout(Duration.ofSeconds(10))
                .header("Authorization", basic(user)).header("Origin", origin).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        if (csrf != null) {
            b.header(Guard.CSRF_HEADER, csrf);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String cookieOf(HttpResponse<String> r) {
        String setCookie = r.headers().firstValue("Set-Cookie").orElseThrow();
        return setCookie.substring(0, setCookie.indexOf(';'));
    }

    @Test
    void theApplicationsSignInOpensTheConsoleAndEveryRequestMustStayThatPerson() throws Exception {
        String callId = fx.carolProposes("Disk full");
        HttpResponse<String> page = get("/", "alice", null);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("content=\"host\"");

        HttpResponse<String> login = post("/api/login", "{\"user\":\"alice\",\"secret\":\"alice-secret\"}", "alice", null, null);
        assertThat(login.statusCode()).isEqualTo(403);
        assertThat(Json.parse(login.body()).get("error").asString()).isEqualTo("host_sign_in");

        HttpResponse<String> opened = get("/api/session", "alice", null);
        assertThat(opened.statusCode()).as(opened.body()).isEqualTo(200);
        assertThat(opened.headers().firstValue("Set-Cookie").orElseThrow()).contains("Path=/app/console/").contains("HttpOnly");
        String cookie = cookieOf(opened);
        String csrf = Json.parse(opened.body()).get("csrf").asString();
        assertThat(Json.parse(opened.body()).get("signIn").asString()).isEqualTo("host");

        assertThat(get("/api/inbox", "alice", cookie).body()).contains(callId);
        assertThat(post("/api/inbox/" + callId + "/approve", "{}", "alice", cookie, null).statusCode()).isEqualTo(403);
        HttpResponse<String> approved = post("/api/inbox/" + callId + "/approve", "{}", "alice", cookie, csrf);
        assertThat(approved.statusCode()).as(approved.body()).isEqualTo(200);

        assertThat(get("/api/inbox", "carol", cookie).statusCode()).as("alice's cookie, carol's sign-in").isEqualTo(401);
        assertThat(get("/api/inbox", "alice", cookie).statusCode()).as("that session is over").isEqualTo(401);

        HttpResponse<String> again = get("/api/session", "alice", cookie);
        assertThat(again.statusCode()).isEqualTo(200);
        String second = cookieOf(again);
        assertThat(second).isNotEqualTo(cookie);
        HttpResponse<String> out = post("/api/logout", "{}", "alice", second, Json.parse(again.body()).get("csrf").asString());
        assertThat(out.statusCode()).isEqualTo(200);
        assertThat(Json.parse(out.body()).get("message").asString()).contains("your application sign-in is unchanged");
        assertThat(get("/api/inbox", "alice", second).statusCode()).isEqualTo(401);
    }

    @Test
    void thePublicHandlerNeverTakesAnIdentityFromTheClient() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(origin + "/open/console/api/session"))
                .header("Authorization", basic("alice")).header("X-Forwarded-User", "alice").header("Remote-User", "alice")
                .header("X-Toolgate-Principal", "alice").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("Set-Cookie")).isEmpty();
        assertThat(console.activeSessions()).isZero();
    }
}
