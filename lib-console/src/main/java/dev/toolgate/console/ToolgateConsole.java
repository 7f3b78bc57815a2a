package dev.toolgate.console;

import com.sun.net.httpserver.HttpHandler;
import dev.toolgate.Toolgate;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator console: a web page where people who hold the gate's approver rule decide on what
 * waits for them (proposals and paused steps of runs, with their diffs and payloads; calls in doubt),
 * read the audit trail, and watch tool sources and schema drift.
 *
 * <p>Mount it on any HTTP server. With the JDK's own server:
 *
 * <pre>{@code
 * ToolgateConsole console = ToolgateConsole.builder(toolgate)
 *         .authenticator(login -> users.check(login.user(), login.secret()).map(CallContext::of))
 *         .build();
 * HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 8766), 0);
 * server.createContext("/console", console.httpHandler());
 * server.start();                                // the page is http://127.0.0.1:8766/console/
 * }</pre>
 *
 * A servlet or Spring host adapts {@link #handle(ConsoleRequest)} instead: build a
 * {@link ConsoleRequest}, write the {@link ConsoleResponse} back. A host that already signs people in
 * with its own security layer builds the console with {@link Builder#hostSignIn()} instead of an
 * authenticator, and passes who it authenticated each request as with
 * {@link ConsoleRequest.Builder#authenticatedAs}.
 *
 * <p>What it guarantees: only the host's {@link ConsoleAuthenticator} signs people in (failures are
 * throttled per address), or with host sign-in only the host's own authentication of each request;
 * sessions live on the server, named by an {@code HttpOnly},
 * {@code SameSite=Strict} cookie ({@code Secure} and {@code __Host-} unless turned off for plain-HTTP
 * development); every change needs the page's Origin and the session's CSRF token; every decision
 * goes through the {@link Toolgate} facade as the signed-in operator, so the gate re-checks the
 * approver rule, tenant, separation of duties and tool rules; the page runs no inline script under a
 * strict {@code Content-Security-Policy}, and its assets come from this jar. It reads and decides
 * through the facade only; it has no store access of its own.
 *
 * <p>Instances are immutable and thread-safe; sessions are kept in this instance's memory (several
 * app instances behind a load balancer need sticky sessions for the console).
 */
public final class ToolgateConsole {

    /** The largest request body the console reads, in bytes. */
    public static final int MAX_BODY_BYTES = 64 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateConsole.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();
    private static final Pattern CARD_ACTION = Pattern.compile("/api/inbox/([^/]+)/(approve|deny|edit)");
    private static final Pattern DOUBT_ACTION = Pattern.compile("/api/doubt/([^/]+)/resolve");

    private final Guard guard;
    private final Assets assets;
    private final SessionApi sessionApi;
    private final InboxApi inbox;
    private final AuditApi audit;
    private final SourcesApi sources;
    private final Sessions sessions;

    private ToolgateConsole(Builder b) {
        this.sessions = new Sessions(b.clock, b.sessionTimeout, b.idleTimeout, b.maxSessions);
        Sessions.LoginThrottle throttle = new Sessions.LoginThrottle(b.clock, b.loginFailuresPerMinute, Duration.ofMinutes(1));
        ConsoleAuthenticator authenticator = b.authenticator;
        Guard.Recheck recheck = b.hostSignIn ? HostSignIn::current : (signedIn, request) -> authenticator.current(signedIn);
        String signIn = b.hostSignIn ? HostSignIn.HOST : HostSignIn.CONSOLE;
        this.guard = new Guard(sessions, recheck, signIn, Set.copyOf(b.allowedOrigins), b.secureCookie);
        this.assets = new Assets(signIn);
        this.sessionApi = new SessionApi(b.toolgate, b.authenticator, sessions, throttle, guard, b.secureCookie, b.sessionTimeout);
        this.inbox = new InboxApi(b.toolgate);
        this.audit = new AuditApi(b.toolgate);
        this.sources = new SourcesApi(b.toolgate);
    }

    /**
     * A builder for a console over {@code toolgate}.
     *
     * @param toolgate the gate whose inbox and audit the console shows
     */
    public static Builder builder(Toolgate toolgate) {
        return new Builder(toolgate);
    }

    /**
     * Answers one request. Never throws for a request's content: a bad request gets a typed JSON error
     * ({@code {"error": code, "message": ...}}) and changes nothing.
     */
    public ConsoleResponse handle(ConsoleRequest request) {
        Objects.requireNonNull(request, "request");
        Exchange exchange = new Exchange(request);
        try {
            return route(exchange);
        } catch (ConsoleException e) {
            return Responses.error(e);
        } catch (RuntimeException e) {
            LOG.error("The console failed to answer {}", request, LOGGED.redactThrowable(e));
            return Responses.error(new ConsoleException(500, "internal", "The console failed; the server log has the details."));
        }
    }

    /** The console as a {@code com.sun.net.httpserver} handler; mount it with {@code createContext(path, handler)}. */
    public HttpHandler httpHandler() {
        return new JdkHttpHandler(this);
    }

    /** How many sessions are signed in now (for monitoring). */
    public int activeSessions() {
        return sessions.size();
    }

    private ConsoleResponse route(Exchange exchange) {
        ConsoleRequest request = exchange.request;
        String path = request.path();
        String method = request.method();
        if (path.isEmpty()) {
            return Responses.redirect(request.mountPath() + "/");
        }
        if (path.equals("/") || path.equals("/index.html")) {
            requireMethod(method, "GET");
            return assets.serve(request, "index.html");
        }
        if (path.startsWith("/assets/")) {
            requireMethod(method, "GET");
            return assets.serve(request, path.substring("/assets/".length()));
        }
        switch (path) {
            case "/api/session":
                requireMethod(method, "GET");
                return sessionApi.current(exchange);
            case "/api/login":
                requireMethod(method, "POST");
                return sessionApi.login(exchange);
            case "/api/logout":
                requireMethod(method, "POST");
                return sessionApi.logout(exchange);
            case "/api/inbox":
                requireMethod(method, "GET");
                signedIn(exchange);
                return inbox.list(exchange);
            case "/api/audit":
                requireMethod(method, "GET");
                signedIn(exchange);
                return audit.list(exchange);
            case "/api/sources":
                requireMethod(method, "GET");
                signedIn(exchange);
                return sources.list(exchange);
            case "/api/sources/refresh":
                change(exchange);
                return sources.refresh(exchange);
            case "/api/drift/confirm":
                change(exchange);
                return sources.confirm(exchange);
            default:
                break;
        }
        Matcher card = CARD_ACTION.matcher(path);
        if (card.matches()) {
            change(exchange);
            String callId = card.group(1);
            switch (card.group(2)) {
                case "approve":
                    return inbox.approve(exchange, callId);
                case "deny":
                    return inbox.deny(exchange, callId);
                default:
                    return inbox.edit(exchange, callId);
            }
        }
        Matcher doubt = DOUBT_ACTION.matcher(path);
        if (doubt.matches()) {
            change(exchange);
            return inbox.resolve(exchange, doubt.group(1));
        }
        throw ConsoleException.notFound();
    }

    private void signedIn(Exchange exchange) {
        exchange.session = guard.requireSession(exchange.request);
    }

    /** A state change: POST, from the page's origin, signed in, with the session's CSRF token. */
    private void change(Exchange exchange) {
        requireMethod(exchange.request.method(), "POST");
        guard.requireSameOrigin(exchange.request);
        signedIn(exchange);
        guard.requireCsrf(exchange.request, exchange.session);
    }

    /** HEAD is answered as GET without a body. */
    private static void requireMethod(String actual, String expected) {
        if (!actual.equals(expected) && !(expected.equals("GET") && actual.equals("HEAD"))) {
            throw new ConsoleException(405, "method_not_allowed", "Use " + expected + " here.");
        }
    }

    /** Configures a {@link ToolgateConsole}; every setting has a safe default. */
    public static final class Builder {
        private final Toolgate toolgate;
        private ConsoleAuthenticator authenticator;
        private boolean hostSignIn;
        private boolean secureCookie = true;
        private final Set<String> allowedOrigins = new LinkedHashSet<>();
        private Duration sessionTimeout = Duration.ofHours(8);
        private Duration idleTimeout = Duration.ofMinutes(30);
        private int maxSessions = 10_000;
        private int loginFailuresPerMinute = 10;
        private Clock clock = Clock.systemUTC();

        private Builder(Toolgate toolgate) {
            this.toolgate = Objects.requireNonNull(toolgate, "toolgate");
        }

        /**
         * Who may sign in on the console's own form, and as whom. A console needs either this or
         * {@link #hostSignIn()}, not both.
         */
        public Builder authenticator(ConsoleAuthenticator v) {
            authenticator = Objects.requireNonNull(v, "authenticator");
            return this;
        }

        /**
         * The application signs people in, not the console: for a console mounted inside the
         * application's own web server behind its security layer (form login, HTTP Basic, single
         * sign-on, any mechanism). The alternative to {@link #authenticator}; a console needs exactly
         * one of the two.
         *
         * <p>The host passes who it authenticated each request as with
         * {@link ConsoleRequest.Builder#authenticatedAs}, set only from its own security layer, never
         * from anything the client sent. Then:
         * <ul>
         *   <li>the console's own sign-in is off: {@code POST api/login} answers 403 {@code host_sign_in}
         *       and the page shows no sign-in form;</li>
         *   <li>{@code GET api/session} on a host-authenticated request without a live console session
         *       opens one for that context (a new cookie and CSRF token; a service principal is refused
         *       with 401), and without host authentication answers 401;</li>
         *   <li>every request of a session must be host-authenticated as the same principal (kind and
         *       id) in the same tenant, or the session ends for good (401); the session acts with the
         *       host's context of that request, so rights the application takes away apply at once;</li>
         *   <li>{@code POST api/logout} ends the console's session only, never the application's;</li>
         *   <li>Origin and CSRF token checks on changes, the approver rule, session timeouts and
         *       {@link #maxSessions} apply as with the console's own sign-in; failed-login throttling
         *       does not (there is no login).</li>
         * </ul>
         * The application must not require its own CSRF token on the console's paths (exempt them):
         * the console's changes carry the console's own token.
         */
        public Builder hostSignIn() {
            hostSignIn = true;
            return this;
        }

        /**
         * Whether the session cookie is {@code Secure} and named with the {@code __Host-} prefix
         * (default true: the console is served over HTTPS). Turn it off only for plain-HTTP development
         * on a loopback address.
         */
        public Builder secureCookie(boolean v) {
            secureCookie = v;
            return this;
        }

        /**
         * Origins besides the console's own ({@code scheme://host[:port]} of the request) that may send
         * changes, for a console behind a proxy that rewrites {@code Host}. Each must be an exact origin
         * such as {@code https://ops.example.com}; no wildcards.
         */
        public Builder allowedOrigins(Collection<String> origins) {
            for (String origin : origins) {
                Objects.requireNonNull(origin, "origin");
                String o = origin.trim().toLowerCase(Locale.ROOT);
                if (!o.matches("https?://[a-z0-9.\\-\\[\\]:]+") || o.endsWith("/")) {
                    throw new IllegalArgumentException("not an origin (scheme://host[:port]): " + origin);
                }
                allowedOrigins.add(o);
            }
            return this;
        }

        /** How long a sign-in lasts at most (default 8 hours). */
        public Builder sessionTimeout(Duration v) {
            sessionTimeout = positive(v, "sessionTimeout");
            return this;
        }

        /** How long a session lasts without a request (default 30 minutes; the page polls while open). */
        public Builder idleTimeout(Duration v) {
            idleTimeout = positive(v, "idleTimeout");
            return this;
        }

        /** How many sessions at most; beyond it the least recently used ends (default 10,000). */
        public Builder maxSessions(int v) {
            if (v < 1) {
                throw new IllegalArgumentException("maxSessions must be at least 1: " + v);
            }
            maxSessions = v;
            return this;
        }

        /** Failed sign-ins per client address per minute before further tries are refused (default 10). */
        public Builder loginFailuresPerMinute(int v) {
            if (v < 1) {
                throw new IllegalArgumentException("loginFailuresPerMinute must be at least 1: " + v);
            }
            loginFailuresPerMinute = v;
            return this;
        }

        /** The clock for sessions and throttling (tests). */
        Builder clock(Clock v) {
            clock = Objects.requireNonNull(v, "clock");
            return this;
        }

        /**
         * The console.
         *
         * @throws IllegalStateException if neither an authenticator nor host sign-in was set, or both were
         */
        public ToolgateConsole build() {
            if (authenticator != null && hostSignIn) {
                throw new IllegalStateException(
                        "A console takes either an authenticator or host sign-in, not both: drop authenticator(...) or hostSignIn()");
            }
            if (authenticator == null && !hostSignIn) {
                throw new IllegalStateException(
                        "A console needs an authenticator: set authenticator(...), or hostSignIn() when the application signs people in");
            }
            return new ToolgateConsole(this);
        }

        private static Duration positive(Duration v, String name) {
            Objects.requireNonNull(v, name);
            if (v.isNegative() || v.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + v);
            }
            return v;
        }
    }
}
