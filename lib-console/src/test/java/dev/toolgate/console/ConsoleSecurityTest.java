package dev.toolgate.console;

import static dev.toolgate.console.ConsoleFixture.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.CallContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile requests, written as an attacker would try them: forged or missing CSRF tokens, foreign
 * origins, planted and forged cookies, simple-form posts, oversized and malformed bodies, path tricks,
 * guessing secrets, revoked people. Each one is refused and none changes state.
 */
class ConsoleSecurityTest {

    private final ConsoleFixture fx = new ConsoleFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    private void assertStillPending(String callId) {
        assertThat(fx.gate.findCall(callId).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(fx.incidents).hasSize(1);
    }

    @Test
    void everyApiNeedsASignedInSession() {
        String callId = fx.carolProposes("Disk full");
        ConsoleFixture.Client anonymous = fx.client();
        for (String path : List.of("/api/session", "/api/inbox", "/api/audit", "/api/sources")) {
            ConsoleResponse r = anonymous.get(path);
            assertThat(r.status()).as(path).isEqualTo(401);
            assertThat(json(r).get("error").asString()).isEqualTo("unauthenticated");
        }
        for (String path : List.of("/api/inbox/" + callId + "/approve", "/api/inbox/" + callId + "/deny",
                "/api/inbox/" + callId + "/edit", "/api/doubt/" + callId + "/resolve", "/api/logout",
                "/api/sources/refresh", "/api/drift/confirm")) {
            assertThat(anonymous.post(path, "{\"reason\":\"x\"}").status()).as(path).isIn(401, 403);
        }
        assertStillPending(callId);
    }

    @Test
    void aForgedCsrfTokenIsRefused() {
        String callId = fx.carolProposes("Disk full");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        ConsoleFixture.Client dave = fx.client().signedIn("dave");
        String own = alice.csrf;
        String approve = "/api/inbox/" + callId + "/approve";

        for (String forged : new String[] {null, "", "x", own.substring(1), own + "x", own.toUpperCase(), dave.csrf}) {
            alice.csrf = forged;
            ConsoleResponse r = alice.post(approve, "{}");
            assertThat(r.status()).as("token " + forged).isEqualTo(403);
            assertThat(json(r).get("error").asString()).isEqualTo("csrf");
        }
        alice.csrf = null;
        ConsoleResponse twice = alice.send(alice.request("POST", approve, "{}")
                .header(Guard.CSRF_HEADER, own).header(Guard.CSRF_HEADER, "other").build());
        assertThat(twice.status()).isEqualTo(403);
        assertStillPending(callId);

        alice.csrf = own;
        assertThat(alice.post(approve, "{}").status()).isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://evil.example", "null", "http://console.test:8766.evil.example", "http://console.test",
            "https://console.test:8766", "http://console.test:8767", "http://evil.example/http://console.test:8766",
            "http://console.test:8766@evil.example", " ", "file://", "http://CONSOLE.TEST:8766\u0000"})
    void aChangeFromAForeignOriginIsRefused(String origin) {
        String callId = fx.carolProposes("Disk full");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        alice.origin = origin;
        ConsoleResponse r = alice.post("/api/inbox/" + callId + "/approve", "{}");
        assertThat(r.status()).isEqualTo(403);
        assertThat(json(r).get("error").asString()).isEqualTo("origin");
        assertStillPending(callId);
    }

    @Test
    void aChangeWithoutOriginIsRefusedUnlessTheBrowserSaysSameOrigin() {
        String callId = fx.carolProposes("Disk full");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        alice.origin = null;
        String path = "/api/inbox/" + callId + "/approve";
        assertThat(alice.post(path, "{}").status()).isEqualTo(403);
        ConsoleResponse crossSite = alice.send(alice.request("POST", path, "{}").header("Sec-Fetch-Site", "cross-site").build());
        assertThat(crossSite.status()).isEqualTo(403);
        assertStillPending(callId);
        ConsoleResponse sameOrigin = alice.send(alice.request("POST", path, "{}").header("Sec-Fetch-Site", "same-origin").build());
        assertThat(sameOrigin.status()).isEqualTo(200);
        alice.origin = "HTTP://Console.Test:8766";
        assertThat(alice.post("/api/logout", "{}").status()).as("origins compare case-insensitively").isEqualTo(204);
    }

    @Test
    void anAllowedOriginBehindAProxyIsAccepted() {
        try (ConsoleFixture proxied = new ConsoleFixture(b -> { },
                c -> c.allowedOrigins(List.of("https://ops.example.com")))) {
            String callId = proxied.carolProposes("Disk full");
            ConsoleFixture.Client alice = proxied.client();
            alice.origin = "https://ops.example.com";
            alice.signedIn("alice");
            assertThat(alice.post("/api/inbox/" + callId + "/approve", "{}").status()).isEqualTo(200);
        }
        assertThatThrownBy(() -> ToolgateConsole.builder(fx.gate).allowedOrigins(List.of("*")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ToolgateConsole.builder(fx.gate).allowedOrigins(List.of("https://ops.example.com/")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void loginFromAForeignOriginIsRefused() {
        ConsoleFixture.Client attacker = fx.client();
        attacker.origin = "http://evil.example";
        ConsoleResponse r = attacker.login("alice", "alice-secret");
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.header("Set-Cookie")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
            "application/jsonp", "text/json", ""})
    void aSimpleFormPostIsRefused(String contentType) {
        String callId = fx.carolProposes("Disk full");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        ConsoleRequest request = ConsoleRequest.builder("POST", "/console", "/api/inbox/" + callId + "/approve")
                .header("Host", ConsoleFixture.HOST).header("Origin", ConsoleFixture.ORIGIN).header("Cookie", alice.cookie)
                .header(Guard.CSRF_HEADER, alice.csrf).header("Content-Type", contentType)
                .body("{}".getBytes(StandardCharsets.UTF_8)).build();
        ConsoleResponse r = fx.console.handle(request);
        assertThat(r.status()).isEqualTo(415);
        assertStillPending(callId);
    }

    @Test
    void oversizedMalformedAndHostileBodiesAreRefusedWithTheirReason() {
        String callId = fx.carolProposes("Disk full");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        String deny = "/api/inbox/" + callId + "/deny";

        String huge = "{\"reason\":\"" + "a".repeat(ToolgateConsole.MAX_BODY_BYTES) + "\"}";
        assertThat(alice.post(deny, huge).status()).isEqualTo(413);
        assertThat(alice.post(deny, "{\"reason\":").status()).isEqualTo(400);
        assertThat(alice.post(deny, "[\"reason\"]").status()).isEqualTo(400);
        assertThat(alice.post(deny, "\"reason\"").status()).isEqualTo(400);
        assertThat(alice.post(deny, "{\"reason\":" + "[".repeat(5000) + "]".repeat(5000) + "}").status()).isEqualTo(400);
        assertThat(alice.post(deny, "{\"reason\":42}").status()).isEqualTo(400);
        assertThat(alice.post(deny, "{\"reason\":\"" + "r".repeat(501) + "\"}").status()).isEqualTo(400);
        ConsoleResponse notUtf8 = alice.send(alice.request("POST", deny, null).header("Content-Type", "application/json")
                .header("Origin", ConsoleFixture.ORIGIN).header(Guard.CSRF_HEADER, alice.csrf)
                .body(new byte[] {'{', '"', 'r', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'}).build());
        assertThat(notUtf8.status()).isEqualTo(400);
        ConsoleResponse always = alice.post("/api/inbox/" + callId + "/approve", "{\"always\":\"yes\"}");
        assertThat(always.status()).isEqualTo(400);
        assertThat(json(always).get("field").asString()).isEqualTo("always");
        assertStillPending(callId);
    }

    @Test
    void plantedForgedAndDuplicatedCookiesAreNotASession() {
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        String good = alice.cookie;
        String name = Guard.cookieName(false);
        for (String forged : new String[] {name + "=", name + "=x", name + "=" + "A".repeat(43), name + "=" + "A".repeat(5000),
                name + "=" + good.substring(name.length() + 1).toLowerCase(), "other=" + good.substring(name.length() + 1),
                good + "; " + name + "=planted", name + "=planted; " + good}) {
            alice.cookie = forged;
            assertThat(alice.get("/api/session").status()).as(forged.length() > 100 ? "long" : forged).isEqualTo(401);
        }
        alice.cookie = good;
        assertThat(alice.get("/api/session").status()).isEqualTo(200);
    }

    @Test
    void aNewSignInNeverUpgradesAPlantedCookie() {
        ConsoleFixture.Client victim = fx.client().signedIn("bob");
        String planted = victim.cookie;
        ConsoleResponse r = victim.login("alice", "alice-secret");
        assertThat(r.status()).isEqualTo(200);
        assertThat(victim.cookie).isNotEqualTo(planted);
        victim.cookie = planted;
        assertThat(victim.get("/api/session").status()).as("the old session ended").isEqualTo(401);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/assets/../../../../etc/passwd", "/assets/%2e%2e/%2e%2e/etc/passwd", "/assets/..%2fconsole.js",
            "/assets/", "/assets/console.js/", "/assets/CONSOLE.JS", "/api/inbox/../audit", "/api", "/api/", "/api/inbox/",
            "/index.html/x", "//api/inbox", "/api/inbox/x/approve/extra", "/WEB-INF/web.xml", "/api/session%00"})
    void pathTricksFindNothing(String path) {
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        ConsoleResponse r = alice.get(path);
        assertThat(r.status()).isIn(404, 405);
        assertThat(r.bodyText()).doesNotContain("root:");
    }

    @Test
    void wrongMethodsAreRefused() {
        String callId = fx.carolProposes("Disk full");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        assertThat(alice.get("/api/inbox/" + callId + "/approve").status()).isEqualTo(405);
        assertThat(alice.get("/api/login").status()).isEqualTo(405);
        for (String method : List.of("PUT", "DELETE", "PATCH", "TRACE", "OPTIONS")) {
            ConsoleResponse r = alice.send(alice.request(method, "/api/inbox/" + callId + "/approve", "{}").build());
            assertThat(r.status()).as(method).isEqualTo(405);
        }
        assertThat(alice.post("/api/inbox", "{}").status()).isEqualTo(405);
        assertStillPending(callId);
    }

    @Test
    void guessingSecretsIsThrottledPerAddressAndFailuresLookAlike() {
        ConsoleFixture.Client attacker = fx.client();
        attacker.remote = "203.0.113.9";
        String unknownUser = attacker.login("mallory", "alice-secret").bodyText();
        String wrongSecret = attacker.login("alice", "guess").bodyText();
        assertThat(unknownUser).as("no hint which part was wrong").isEqualTo(wrongSecret);
        for (int i = 2; i < 10; i++) {
            assertThat(attacker.login("alice", "guess-" + i).status()).isEqualTo(401);
        }
        ConsoleResponse throttled = attacker.login("alice", "alice-secret");
        assertThat(throttled.status()).as("even the right secret waits").isEqualTo(429);
        assertThat(throttled.header("Retry-After")).isPresent();
        assertThat(throttled.header("Set-Cookie")).isEmpty();

        ConsoleFixture.Client elsewhere = fx.client();
        elsewhere.remote = "198.51.100.7";
        assertThat(elsewhere.login("alice", "alice-secret").status()).as("another address is not throttled").isEqualTo(200);

        fx.clock.advance(Duration.ofSeconds(61));
        assertThat(attacker.login("alice", "alice-secret").status()).isEqualTo(200);
    }

    @Test
    void aServicePrincipalAndAnEmptySecretCannotSignIn() {
        assertThat(fx.client().login("reporter", "reporter-secret").status()).isEqualTo(401);
        assertThat(fx.client().login("alice", "").status()).isEqualTo(401);
        assertThat(fx.client().post("/api/login", "{\"user\":\"alice\"}").status()).isEqualTo(401);
    }

    @Test
    void aPersonTheHostRevokesIsSignedOutAtTheirNextRequest() {
        String callId = fx.carolProposes("Disk full");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        assertThat(alice.get("/api/inbox").status()).isEqualTo(200);

        fx.people.put("alice-secret", Principal.user("alice", "incident.read"));
        assertThat(alice.get("/api/inbox").status()).as("rights checked on every request").isEqualTo(403);
        assertThat(alice.post("/api/inbox/" + callId + "/approve", "{}").status()).isEqualTo(403);

        fx.people.remove("alice-secret");
        assertThat(alice.get("/api/session").status()).isEqualTo(401);
        fx.people.put("alice-secret", ConsoleFixture.ALICE);
        assertThat(alice.get("/api/session").status()).as("the session ended for good").isEqualTo(401);
        assertStillPending(callId);
    }

    @Test
    void sessionsEndWhenIdleAtTheirTimeoutAndOnSignOut() {
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        fx.clock.advance(Duration.ofMinutes(29));
        assertThat(alice.get("/api/session").status()).isEqualTo(200);
        fx.clock.advance(Duration.ofMinutes(31));
        assertThat(alice.get("/api/session").status()).as("idle for 31 minutes").isEqualTo(401);

        ConsoleFixture.Client busy = fx.client().signedIn("alice");
        for (int i = 0; i < 16; i++) {
            fx.clock.advance(Duration.ofMinutes(29));
            assertThat(busy.get("/api/session").status()).isEqualTo(200);
        }
        fx.clock.advance(Duration.ofMinutes(29));
        assertThat(busy.get("/api/session").status()).as("8 hours after sign-in").isEqualTo(401);

        ConsoleFixture.Client leaving = fx.client().signedIn("alice");
        String csrf = leaving.csrf;
        leaving.csrf = "wrong";
        assertThat(leaving.post("/api/logout", "{}").status()).as("sign-out needs the token too").isEqualTo(403);
        leaving.csrf = csrf;
        ConsoleResponse out = leaving.post("/api/logout", "{}");
        assertThat(out.status()).isEqualTo(204);
        assertThat(out.header("Set-Cookie").orElseThrow()).contains("Max-Age=0");
        assertThat(leaving.get("/api/session").status()).isEqualTo(401);
    }

    @Test
    void beyondTheSessionCapTheLeastRecentlyUsedSessionEnds() {
        try (ConsoleFixture small = new ConsoleFixture(b -> { }, c -> c.maxSessions(3))) {
            ConsoleFixture.Client first = small.client().signedIn("alice");
            small.clock.advance(Duration.ofSeconds(1));
            ConsoleFixture.Client second = small.client().signedIn("dave");
            small.clock.advance(Duration.ofSeconds(1));
            ConsoleFixture.Client third = small.client().signedIn("bob");
            small.clock.advance(Duration.ofSeconds(1));
            assertThat(first.get("/api/session").status()).isEqualTo(200);
            small.clock.advance(Duration.ofSeconds(1));
            small.client().signedIn("carol");
            assertThat(second.get("/api/session").status()).isEqualTo(401);
            assertThat(first.get("/api/session").status()).isEqualTo(200);
            assertThat(third.get("/api/session").status()).isEqualTo(200);
            assertThat(small.console.activeSessions()).isEqualTo(3);
        }
    }

    @Test
    void everyAnswerCarriesTheSecurityHeadersAndTheCookieIsLockedDown() {
        ConsoleFixture.Client alice = fx.client();
        ConsoleResponse login = alice.login("alice", "alice-secret");
        String cookie = login.header("Set-Cookie").orElseThrow();
        assertThat(cookie).startsWith("toolgate_console=").contains("HttpOnly").contains("SameSite=Strict")
                .contains("Path=/console/").doesNotContain("Secure");
        for (ConsoleResponse r : List.of(login, alice.get("/"), alice.get("/assets/console.js"), alice.get("/api/inbox"),
                alice.get("/nope"), fx.client().get("/api/inbox"), alice.post("/api/inbox/x/approve", "{}"))) {
            String csp = r.header("Content-Security-Policy").orElseThrow();
            assertThat(csp).contains("script-src 'self'").contains("frame-ancestors 'none'").doesNotContain("unsafe");
            assertThat(r.header("X-Content-Type-Options")).contains("nosniff");
            assertThat(r.header("X-Frame-Options")).contains("DENY");
            assertThat(r.header("Referrer-Policy")).contains("no-referrer");
        }
        assertThat(alice.get("/api/inbox").header("Cache-Control")).contains("no-store");

        try (ConsoleFixture secure = new ConsoleFixture(b -> { }, c -> c.secureCookie(true))) {
            ConsoleResponse r = secure.client().login("alice", "alice-secret");
            assertThat(r.header("Set-Cookie").orElseThrow()).startsWith("__Host-toolgate_console=")
                    .contains("; Secure").contains("Path=/;");
        }
    }

    @Test
    void theMountWithoutItsSlashRedirectsToThePage() {
        ConsoleResponse r = fx.client().get("");
        assertThat(r.status()).isEqualTo(308);
        assertThat(r.header("Location")).contains("/console/");
        ConsoleResponse page = fx.client().get("/");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Type").orElseThrow()).startsWith("text/html");
    }

    @Test
    void anOperatorOfOneTenantCannotSeeOrDecideAnothersProposals() {
        String acme = fx.gate.call(CallContext.of(ConsoleFixture.CAROL).withTenant("acme").withSession("s1"),
                "incident.create", "{\"title\":\"Acme down\",\"severity\":\"high\"}").callId();
        {
            // The same gate, a console whose people act in tenant "globex".
            ToolgateConsole globex = ToolgateConsole.builder(fx.gate).secureCookie(false)
                    .authenticator(login -> login.secret().equals("alice-secret")
                            ? java.util.Optional.of(CallContext.of(ConsoleFixture.ALICE).withTenant("globex"))
                            : java.util.Optional.empty())
                    .build();
            ConsoleFixture.Client alice = new ConsoleFixture.Client(fx) {
                @Override
                ConsoleResponse send(ConsoleRequest request) {
                    return globex.handle(request);
                }
            };
            alice.signedIn("alice");
            assertThat(alice.get("/api/inbox").bodyText()).doesNotContain(acme).doesNotContain("Acme down");
            assertThat(alice.get("/api/audit").bodyText()).doesNotContain(acme);
            ConsoleResponse r = alice.post("/api/inbox/" + acme + "/approve", "{}");
            assertThat(r.status()).isEqualTo(404);
            assertThat(alice.post("/api/inbox/" + acme + "/deny", "{\"reason\":\"x\"}").status()).isEqualTo(404);
        }
        assertThat(fx.gate.findCall(acme).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
    }

    /** The host's authenticator fails with the secret it was given in its message: the log keeps neither. */
    @Test
    void anAuthenticatorThatFailsWithTheSecretInItsMessageLeavesNoSecretInTheLog() {
        String secret = "Tr0ub4dor&3-ldap";
        ToolgateConsole failing = ToolgateConsole.builder(fx.gate).secureCookie(false)
                .authenticator(login -> {
                    throw new IllegalStateException("LDAP bind failed for uid=alice password=" + login.secret(),
                            new java.io.IOException("server said: Authorization: Basic " + login.secret()));
                })
                .build();
        ConsoleFixture.Client alice = new ConsoleFixture.Client(fx) {
            @Override
            ConsoleResponse send(ConsoleRequest request) {
                return failing.handle(request);
            }
        };
        java.io.PrintStream stderr = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        ConsoleResponse r;
        try {
            System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
            r = alice.login("alice", secret);
        } finally {
            System.setErr(stderr);
        }
        String log = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(r.status()).isGreaterThanOrEqualTo(400);
        assertThat(r.bodyText()).doesNotContain(secret);
        assertThat(log).as("the failure is logged").contains("authenticator failed", "IllegalStateException",
                "Caused by: java.io.IOException");
        assertThat(log).doesNotContain(secret).doesNotContain("Tr0ub4dor");
    }

    @Test
    void aConsoleNeedsAnAuthenticatorAndSaneSettings() {
        assertThatThrownBy(() -> ToolgateConsole.builder(fx.gate).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("authenticator");
        assertThatThrownBy(() -> ToolgateConsole.builder(fx.gate).sessionTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ToolgateConsole.builder(fx.gate).maxSessions(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
