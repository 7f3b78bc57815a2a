package dev.toolgate.console;

import dev.toolgate.Toolgate;
import dev.toolgate.access.PrincipalKind;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Sign-in, sign-out and "who am I". With host sign-in there is no sign-in here: {@code GET api/session}
 * opens the console session for the person the application authenticated the request as.
 */
final class SessionApi {

    private static final Logger LOG = LoggerFactory.getLogger(SessionApi.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();
    private static final String FAILED = "Sign-in failed: unknown user or wrong secret.";

    private final Toolgate toolgate;
    private final ConsoleAuthenticator authenticator;
    private final Sessions sessions;
    private final Sessions.LoginThrottle throttle;
    private final Guard guard;
    private final boolean secureCookie;
    private final Duration timeout;
    private final boolean hostSignIn;

    /** {@code authenticator} is null with host sign-in ({@code guard.signIn()} is {@link HostSignIn#HOST}). */
    SessionApi(Toolgate toolgate, ConsoleAuthenticator authenticator, Sessions sessions, Sessions.LoginThrottle throttle,
               Guard guard, boolean secureCookie, Duration timeout) {
        this.hostSignIn = guard.signIn().equals(HostSignIn.HOST);
        this.toolgate = toolgate;
        this.authenticator = authenticator;
        this.sessions = sessions;
        this.throttle = throttle;
        this.guard = guard;
        this.secureCookie = secureCookie;
        this.timeout = timeout;
    }

    ConsoleResponse current(Exchange exchange) {
        if (hostSignIn) {
            return openFromHost(exchange);
        }
        exchange.session = guard.requireSession(exchange.request);
        return Responses.json(200, view(exchange.session));
    }

    /**
     * Host sign-in: the live session the cookie names (still the same person, as {@link Guard} checks),
     * or else a new one for the person the application authenticated this request as.
     */
    private ConsoleResponse openFromHost(Exchange exchange) {
        ConsoleRequest request = exchange.request;
        Optional<Sessions.Session> live = guard.session(request);
        if (live.isPresent()) {
            exchange.session = live.get();
            return Responses.json(200, view(exchange.session));
        }
        CallContext host = request.authenticatedAs().orElseThrow(() -> guard.unauthenticated(HostSignIn.NOT_SIGNED_IN));
        if (!HostSignIn.mayOpen(host)) {
            LOG.info("Console session refused for {} from {}: a service principal cannot use the console",
                    host.principal().key(), request.remoteAddress());
            throw new SignInError(401, "service_principal", "A service principal cannot use the console.", HostSignIn.HOST);
        }
        Sessions.Created created = sessions.create(host);
        exchange.session = created.session();
        LOG.info("Console session opened from the application's sign-in: {} from {}", host.principal().key(),
                request.remoteAddress());
        ConsoleResponse.Headers headers = Responses.secured()
                .add("Set-Cookie", cookie(request, created.cookie(), timeout.toSeconds()));
        return Responses.json(200, view(created.session()), headers);
    }

    ConsoleResponse login(Exchange exchange) {
        if (hostSignIn) {
            throw new SignInError(403, "host_sign_in", HostSignIn.SIGN_IN_HERE, HostSignIn.HOST);
        }
        ConsoleRequest request = exchange.request;
        guard.requireSameOrigin(request);
        ObjectNode input = exchange.jsonBody();
        String user = Exchange.text(input, "user", false, 200).orElse("").trim();
        String secret = Exchange.text(input, "secret", false, 1_000).orElse("");
        String address = request.remoteAddress();
        Duration wait = throttle.retryAfter(address);
        if (!wait.isZero()) {
            LOG.warn("Console sign-in refused: too many failures from {}", address);
            throw new LoginThrottled(Math.max(1, (wait.toMillis() + 999) / 1000));
        }
        Optional<CallContext> context;
        try {
            context = secret.isEmpty() ? Optional.empty() : authenticator.authenticate(new ConsoleLogin(user, secret, address));
        } catch (RuntimeException e) {
            LOG.error("The console's authenticator failed; sign-in refused", LOGGED.redactThrowable(e));
            throw new ConsoleException(500, "internal", "Sign-in is not available right now.");
        }
        if (context == null || context.isEmpty() || context.get().principal() == null
                || context.get().principal().kind() == PrincipalKind.SERVICE) {
            throttle.failed(address);
            LOG.info("Console sign-in failed for user '{}' from {}", printable(user), address);
            throw new ConsoleException(401, "login_failed", FAILED);
        }
        throttle.succeeded(address);
        // A new session on every sign-in: a cookie planted before sign-in never becomes a signed-in one.
        guard.session(request).ifPresent(sessions::end);
        Sessions.Created created = sessions.create(context.get());
        LOG.info("Console sign-in: {} from {}", created.session().context.principal().id(), address);
        ConsoleResponse.Headers headers = Responses.secured()
                .add("Set-Cookie", cookie(request, created.cookie(), timeout.toSeconds()));
        return Responses.json(200, view(created.session()), headers);
    }

    ConsoleResponse logout(Exchange exchange) {
        guard.requireSameOrigin(exchange.request);
        Sessions.Session session = guard.requireSession(exchange.request);
        guard.requireCsrf(exchange.request, session);
        sessions.end(session);
        if (hostSignIn) {
            // Only the console's session ends; the application's sign-in is the application's to end.
            LOG.info("Console sign-out (the application's sign-in is unchanged): {}", session.context.principal().key());
            return Responses.json(200, Json.object().put("signedOut", "console").put("signIn", HostSignIn.HOST)
                    .put("message", HostSignIn.SIGNED_OUT), Responses.secured().add("Set-Cookie", cookie(exchange.request, "", 0)));
        }
        return Responses.empty(204, Responses.secured().set("Cache-Control", "no-store")
                .add("Set-Cookie", cookie(exchange.request, "", 0)));
    }

    private ObjectNode view(Sessions.Session session) {
        CallContext context = session.context;
        return Json.object()
                .put("principal", context.principal().id())
                .put("kind", context.principal().kind().name().toLowerCase(Locale.ROOT))
                .put("tenant", context.tenantId())
                .put("operator", toolgate.isOperator(context.principal()))
                .put("approverRule", toolgate.settings().approverRule())
                .put("csrf", session.csrf)
                .put("expiresAt", session.expiresAt.toString())
                .put("signIn", guard.signIn());
    }

    private String cookie(ConsoleRequest request, String value, long maxAgeSeconds) {
        String path = secureCookie ? "/" : request.mountPath() + "/";
        return guard.cookieName() + "=" + value + "; Path=" + path + "; Max-Age=" + maxAgeSeconds
                + "; HttpOnly; SameSite=Strict" + (secureCookie ? "; Secure" : "");
    }

    private static String printable(String s) {
        String clean = s.replaceAll("[^\\x20-\\x7e]", "?");
        return clean.length() > 60 ? clean.substring(0, 60) + "..." : clean;
    }
}
