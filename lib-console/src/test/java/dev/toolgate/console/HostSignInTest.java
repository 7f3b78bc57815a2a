package dev.toolgate.console;

import static dev.toolgate.console.ConsoleFixture.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.CallContext;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A console behind the application's own sign-in ({@code hostSignIn()}): the application says who it
 * authenticated each request as, the console opens its session from that and drops it the moment a
 * request of it is someone else's or nobody's. Its own sign-in is off; Origin, CSRF, the approver rule
 * and the session cap stay as they are.
 */
class HostSignInTest {

    private final ConsoleFixture fx = new ConsoleFixture();
    private final ToolgateConsole console = hostConsole(c -> { });

    @AfterEach
    void close() {
        fx.close();
    }

    private ToolgateConsole hostConsole(Consumer<ToolgateConsole.Builder> settings) {
        ToolgateConsole.Builder b = ToolgateConsole.builder(fx.gate).hostSignIn().secureCookie(false).clock(fx.clock);
        settings.accept(b);
        return b.build();
    }

    /** A browser in the application: every request carries whom the application authenticated it as. */
    final class Browser extends ConsoleFixture.Client {
        private final ToolgateConsole target;
        /** Who the application's security layer says this request is (null: not signed in to the application). */
        CallContext as;

        Browser(ToolgateConsole target, Principal who) {
            super(fx);
            this.target = target;
            this.as = who == null ? null : CallContext.of(who);
        }

        /** What the page does on load: GET api/session, keeping the cookie and CSRF token it is given. */
        ConsoleResponse open() {
            ConsoleResponse r = get("/api/session");
            if (r.status() == 200) {
                r.header("Set-Cookie").ifPresent(c -> cookie = c.substring(0, c.indexOf(';')));
                csrf = json(r).get("csrf").asString();
            }
            return r;
        }

        Browser opened() {
            ConsoleResponse r = open();
            assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
            return this;
        }

        @Override
        ConsoleRequest.Builder request(String method, String pathAndQuery, String body) {
            return super.request(method, pathAndQuery, body).authenticatedAs(as);
        }

        @Override
        ConsoleResponse send(ConsoleRequest request) {
            return target.handle(request);
        }
    }

    private Browser browser(Principal who) {
        return new Browser(console, who);
    }

    private void assertStillPending(String callId) {
        assertThat(fx.gate.findCall(callId).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
    }

    @Test
    void aHostAuthenticatedRequestOpensASessionWithItsCookieAndCsrfToken() {
        Browser alice = browser(ConsoleFixture.ALICE);
        alice.as = alice.as.withTenant("acme");
        ConsoleResponse r = alice.open();

        assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
        assertThat(r.header("Set-Cookie").orElseThrow()).startsWith("toolgate_console=").contains("HttpOnly")
                .contains("SameSite=Strict").contains("Path=/console/");
        JsonNode view = json(r);
        assertThat(view.get("principal").asString()).isEqualTo("alice");
        assertThat(view.get("tenant").asString()).isEqualTo("acme");
        assertThat(view.get("operator").asBoolean()).isTrue();
        assertThat(view.get("signIn").asString()).isEqualTo("host");
        assertThat(alice.csrf).hasSizeGreaterThan(20);
        assertThat(console.activeSessions()).isEqualTo(1);

        ConsoleResponse again = alice.open();
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.header("Set-Cookie")).as("the live session is kept, not replaced").isEmpty();
        assertThat(json(again).get("csrf").asString()).isEqualTo(view.get("csrf").asString());
        assertThat(alice.get("/api/inbox").status()).isEqualTo(200);
        assertThat(console.activeSessions()).isEqualTo(1);

        Browser cookieless = browser(ConsoleFixture.ALICE);
        assertThat(cookieless.get("/api/inbox").status()).as("only api/session opens a session").isEqualTo(401);
        assertThat(console.activeSessions()).isEqualTo(1);
    }

    @Test
    void withoutTheApplicationsSignInThereIsNoSession() {
        fx.carolProposes("Disk full");
        Browser anonymous = browser(null);
        ConsoleResponse r = anonymous.open();
        assertThat(r.status()).isEqualTo(401);
        assertThat(json(r).get("error").asString()).isEqualTo("unauthenticated");
        assertThat(json(r).get("message").asString()).isEqualTo("Not signed in to the application.");
        assertThat(json(r).get("signIn").asString()).as("the page learns the mode from the 401").isEqualTo("host");
        assertThat(r.header("Set-Cookie")).isEmpty();
        for (String path : List.of("/api/inbox", "/api/audit", "/api/sources")) {
            ConsoleResponse denied = anonymous.get(path);
            assertThat(denied.status()).as(path).isEqualTo(401);
            assertThat(json(denied).get("signIn").asString()).isEqualTo("host");
        }
        assertThat(console.activeSessions()).isZero();

        // The console's own sign-in still says so, for its page.
        ConsoleResponse own = fx.client().get("/api/session");
        assertThat(json(own).get("signIn").asString()).isEqualTo("console");
        assertThat(json(fx.client().signedIn("alice").get("/api/session")).get("signIn").asString()).isEqualTo("console");
    }

    @Test
    void anotherPrincipalOnTheCookieEndsTheSessionForGood() {
        String callId = fx.carolProposes("Disk full");
        Browser browser = browser(ConsoleFixture.ALICE).opened();
        String aliceCookie = browser.cookie;
        String aliceCsrf = browser.csrf;

        browser.as = CallContext.of(ConsoleFixture.DAVE);
        ConsoleResponse r = browser.get("/api/inbox");
        assertThat(r.status()).isEqualTo(401);
        assertThat(json(r).get("error").asString()).isEqualTo("unauthenticated");
        assertThat(browser.post("/api/inbox/" + callId + "/approve", "{}").status()).isEqualTo(401);
        assertThat(console.activeSessions()).isZero();

        browser.as = CallContext.of(ConsoleFixture.ALICE);
        assertThat(browser.get("/api/inbox").status()).as("alice is back, her old cookie is not").isEqualTo(401);
        assertThat(browser.post("/api/inbox/" + callId + "/approve", "{}").status()).isEqualTo(401);
        assertStillPending(callId);

        // Opening again gives alice a new session; the old cookie and token stay dead.
        ConsoleResponse reopened = browser.open();
        assertThat(reopened.status()).isEqualTo(200);
        assertThat(browser.cookie).isNotEqualTo(aliceCookie);
        assertThat(browser.csrf).isNotEqualTo(aliceCsrf);
        String fresh = browser.cookie;
        browser.cookie = aliceCookie;
        assertThat(browser.get("/api/inbox").status()).isEqualTo(401);
        browser.cookie = fresh;
        browser.csrf = aliceCsrf;
        assertThat(browser.post("/api/inbox/" + callId + "/deny", "{\"reason\":\"x\"}").status()).isEqualTo(403);
        assertStillPending(callId);
    }

    @Test
    void noHostAuthenticationAnotherTenantOrAnotherKindEndsTheSession() {
        List<CallContext> notAlice = List.of(
                CallContext.of(Principal.application("alice", Principal.ALL)),
                CallContext.of(ConsoleFixture.ALICE).withTenant("globex"));
        for (CallContext other : notAlice) {
            Browser browser = browser(ConsoleFixture.ALICE);
            browser.as = browser.as.withTenant(null);
            browser.opened();
            browser.as = other;
            assertThat(browser.get("/api/inbox").status()).as(other.principal().key() + " / " + other.tenantId()).isEqualTo(401);
            browser.as = CallContext.of(ConsoleFixture.ALICE);
            assertThat(browser.get("/api/inbox").status()).isEqualTo(401);
        }
        Browser browser = browser(ConsoleFixture.ALICE).opened();
        browser.as = null;
        assertThat(browser.get("/api/session").status()).as("the application's sign-in ended").isEqualTo(401);
        browser.as = CallContext.of(ConsoleFixture.ALICE);
        assertThat(browser.get("/api/inbox").status()).isEqualTo(401);
        assertThat(console.activeSessions()).isZero();
    }

    @Test
    void aNewPersonOnTheSameBrowserGetsTheirOwnSessionNotTheOldOne() {
        Browser browser = browser(ConsoleFixture.ALICE).opened();
        String aliceCookie = browser.cookie;
        browser.as = CallContext.of(ConsoleFixture.CAROL);
        ConsoleResponse r = browser.open();
        assertThat(r.status()).isEqualTo(200);
        assertThat(json(r).get("principal").asString()).isEqualTo("carol");
        assertThat(browser.cookie).isNotEqualTo(aliceCookie);
        assertThat(console.activeSessions()).isEqualTo(1);
        browser.cookie = aliceCookie;
        browser.as = CallContext.of(ConsoleFixture.ALICE);
        assertThat(browser.get("/api/inbox").status()).isEqualTo(401);
    }

    @Test
    void changesStillNeedTheOriginAndTheCsrfToken() {
        String callId = fx.carolProposes("Disk full");
        Browser alice = browser(ConsoleFixture.ALICE).opened();
        String own = alice.csrf;
        String approve = "/api/inbox/" + callId + "/approve";

        for (String forged : new String[] {null, "", own + "x", own.substring(1)}) {
            alice.csrf = forged;
            ConsoleResponse r = alice.post(approve, "{}");
            assertThat(r.status()).as("token " + forged).isEqualTo(403);
            assertThat(json(r).get("error").asString()).isEqualTo("csrf");
        }
        alice.csrf = own;
        for (String origin : new String[] {"http://evil.example", "null", null}) {
            alice.origin = origin;
            ConsoleResponse r = alice.post(approve, "{}");
            assertThat(r.status()).as("origin " + origin).isEqualTo(403);
            assertThat(json(r).get("error").asString()).isEqualTo("origin");
        }
        alice.origin = ConsoleFixture.ORIGIN;
        alice.csrf = null;
        assertThat(alice.post("/api/logout", "{}").status()).as("sign-out needs the token too").isEqualTo(403);
        assertStillPending(callId);

        alice.csrf = own;
        assertThat(alice.post(approve, "{}").status()).isEqualTo(200);
        assertThat(fx.gate.findCall(callId).orElseThrow().decidedBy().id()).isEqualTo("alice");
    }

    @Test
    void theConsolesOwnSignInIsOff() {
        for (Principal who : new Principal[] {null, ConsoleFixture.ALICE}) {
            Browser browser = browser(who);
            ConsoleResponse r = browser.post("/api/login", "{\"user\":\"alice\",\"secret\":\"alice-secret\"}");
            assertThat(r.status()).isEqualTo(403);
            assertThat(json(r).get("error").asString()).isEqualTo("host_sign_in");
            assertThat(json(r).get("message").asString()).isEqualTo("Sign in through the application.");
            assertThat(json(r).get("signIn").asString()).isEqualTo("host");
            assertThat(r.header("Set-Cookie")).isEmpty();
        }
        assertThat(console.activeSessions()).isZero();

        Browser alice = browser(ConsoleFixture.ALICE).opened();
        assertThat(alice.post("/api/login", "{\"user\":\"dave\",\"secret\":\"dave-secret\"}").status()).isEqualTo(403);
        ConsoleResponse still = alice.get("/api/session");
        assertThat(still.status()).as("a refused sign-in ends nothing").isEqualTo(200);
        assertThat(json(still).get("principal").asString()).isEqualTo("alice");
        assertThat(console.activeSessions()).isEqualTo(1);
    }

    @Test
    void aServicePrincipalGetsNoSession() {
        Browser reporter = browser(ConsoleFixture.REPORTER);
        ConsoleResponse r = reporter.open();
        assertThat(r.status()).isEqualTo(401);
        assertThat(json(r).get("error").asString()).isEqualTo("service_principal");
        assertThat(r.header("Set-Cookie")).isEmpty();
        assertThat(reporter.get("/api/inbox").status()).isEqualTo(401);
        assertThat(console.activeSessions()).isZero();
    }

    @Test
    void theApproverRuleStillDecides() {
        String callId = fx.carolProposes("Disk full");
        Browser carol = browser(ConsoleFixture.CAROL);
        ConsoleResponse opened = carol.open();
        assertThat(opened.status()).isEqualTo(200);
        assertThat(json(opened).get("operator").asBoolean()).isFalse();
        assertThat(json(opened).get("approverRule").asString()).isEqualTo(ConsoleFixture.APPROVER);

        for (String path : List.of("/api/inbox", "/api/audit", "/api/sources")) {
            ConsoleResponse r = carol.get(path);
            assertThat(r.status()).as(path).isEqualTo(403);
            assertThat(json(r).get("error").asString()).isEqualTo("forbidden");
            assertThat(r.bodyText()).doesNotContain(callId);
        }
        for (String action : List.of("approve", "deny", "edit")) {
            ConsoleResponse r = carol.post("/api/inbox/" + callId + "/" + action, "{\"reason\":\"x\",\"arguments\":{}}");
            assertThat(r.status()).as(action).isEqualTo(403);
            assertThat(json(r).get("error").asString()).isEqualTo("forbidden");
        }
        assertStillPending(callId);
    }

    @Test
    void rightsTheApplicationTakesAwayApplyAtTheNextRequest() {
        String callId = fx.carolProposes("Disk full");
        Browser alice = browser(ConsoleFixture.ALICE).opened();
        assertThat(alice.get("/api/inbox").bodyText()).contains(callId);

        alice.as = CallContext.of(Principal.user("alice", "incident.read"));
        assertThat(alice.get("/api/inbox").status()).isEqualTo(403);
        assertThat(alice.post("/api/inbox/" + callId + "/approve", "{}").status()).isEqualTo(403);
        ConsoleResponse view = alice.get("/api/session");
        assertThat(view.status()).as("the same person: the session stands").isEqualTo(200);
        assertThat(json(view).get("operator").asBoolean()).isFalse();
        assertStillPending(callId);

        alice.as = CallContext.of(ConsoleFixture.ALICE);
        assertThat(alice.get("/api/inbox").status()).as("and rights given back apply too").isEqualTo(200);
        assertThat(alice.post("/api/inbox/" + callId + "/approve", "{}").status()).isEqualTo(200);
    }

    @Test
    void signingOutEndsTheConsoleSessionOnly() {
        Browser alice = browser(ConsoleFixture.ALICE).opened();
        String old = alice.cookie;
        ConsoleResponse out = alice.post("/api/logout", "{}");
        assertThat(out.status()).isEqualTo(200);
        assertThat(json(out).get("signedOut").asString()).isEqualTo("console");
        assertThat(json(out).get("message").asString())
                .isEqualTo("Signed out of the console; your application sign-in is unchanged.");
        assertThat(out.header("Set-Cookie").orElseThrow()).contains("Max-Age=0");
        assertThat(alice.get("/api/inbox").status()).isEqualTo(401);
        assertThat(console.activeSessions()).isZero();

        ConsoleResponse again = alice.open();
        assertThat(again.status()).as("the application's sign-in still opens the console").isEqualTo(200);
        assertThat(alice.cookie).isNotEqualTo(old);
    }

    @Test
    void theSessionCapAndTimeoutsStillApply() {
        ToolgateConsole small = hostConsole(c -> c.maxSessions(2));
        Browser first = new Browser(small, ConsoleFixture.ALICE).opened();
        fx.clock.advance(Duration.ofSeconds(1));
        Browser second = new Browser(small, ConsoleFixture.DAVE).opened();
        fx.clock.advance(Duration.ofSeconds(1));
        assertThat(first.get("/api/inbox").status()).isEqualTo(200);
        fx.clock.advance(Duration.ofSeconds(1));
        new Browser(small, ConsoleFixture.BOB).opened();
        assertThat(small.activeSessions()).isEqualTo(2);
        assertThat(second.get("/api/inbox").status()).as("the least recently used ended").isEqualTo(401);
        assertThat(first.get("/api/inbox").status()).isEqualTo(200);

        fx.clock.advance(Duration.ofMinutes(31));
        assertThat(first.get("/api/inbox").status()).as("idle for 31 minutes").isEqualTo(401);
    }

    @Test
    void thePageKnowsHowItsConsoleSignsPeopleIn() {
        ConsoleResponse hostPage = browser(null).get("/");
        ConsoleResponse ownPage = fx.client().get("/");
        assertThat(hostPage.status()).isEqualTo(200);
        assertThat(hostPage.bodyText()).contains("<meta name=\"toolgate-sign-in\" content=\"host\">");
        assertThat(ownPage.bodyText()).contains("<meta name=\"toolgate-sign-in\" content=\"console\">");
        assertThat(hostPage.header("ETag")).isNotEqualTo(ownPage.header("ETag"));
    }

    @Test
    void theRequestNamesOnlyThePrincipalId() {
        ConsoleRequest request = ConsoleRequest.builder("GET", "/console", "/api/session")
                .authenticatedAs(CallContext.of(Principal.user("alice", "secret-rule")).withTenant("acme").withSession("s-123"))
                .build();
        assertThat(request.authenticatedAs().orElseThrow().principal().id()).isEqualTo("alice");
        assertThat(request.toString()).isEqualTo("GET /console/api/session as alice");
        assertThat(ConsoleRequest.builder("GET", "/console", "/").authenticatedAs(null).build().authenticatedAs()).isEmpty();
    }

    @Test
    void aConsoleTakesAnAuthenticatorOrHostSignInExactlyOnce() {
        assertThatThrownBy(() -> ToolgateConsole.builder(fx.gate).hostSignIn().authenticator(login -> java.util.Optional.empty())
                .build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("either an authenticator or host sign-in, not both");
        assertThatThrownBy(() -> ToolgateConsole.builder(fx.gate).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs an authenticator").hasMessageContaining("hostSignIn()");
    }
}
