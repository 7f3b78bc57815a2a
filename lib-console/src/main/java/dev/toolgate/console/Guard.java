package dev.toolgate.console;

import dev.toolgate.call.CallContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The console's request checks, each failing closed: the session cookie (one, valid, live, and still
 * vouched for: by the host's authenticator, or with host sign-in by the application's authentication of
 * this very request), the Origin of every change (or {@code Sec-Fetch-Site: same-origin} from a browser
 * that sends no Origin), and the session's CSRF token on every change.
 */
final class Guard {

    /** Whether a session still stands on a request, and as what context now; empty ends it. */
    @FunctionalInterface
    interface Recheck {
        Optional<CallContext> current(CallContext signedIn, ConsoleRequest request);
    }

    static final String CSRF_HEADER = "X-Toolgate-Csrf";
    /** An origin is visible ASCII only: a control character is never part of one. */
    private static final java.util.regex.Pattern PRINTABLE = java.util.regex.Pattern.compile("[\\x21-\\x7e]+");

    private final Sessions sessions;
    private final Recheck recheck;
    private final String signIn;
    private final Set<String> allowedOrigins;
    private final String cookieName;

    /**
     * @param recheck the sign-in mode's rule for a session on each request
     * @param signIn  {@link HostSignIn#HOST} or {@link HostSignIn#CONSOLE}, told in every 401
     */
    Guard(Sessions sessions, Recheck recheck, String signIn, Set<String> allowedOrigins, boolean secureCookie) {
        this.sessions = sessions;
        this.recheck = recheck;
        this.signIn = signIn;
        this.allowedOrigins = allowedOrigins;
        this.cookieName = cookieName(secureCookie);
    }

    /** {@code __Host-} when secure: a sibling subdomain cannot plant a cookie of that name. */
    static String cookieName(boolean secure) {
        return secure ? "__Host-toolgate_console" : "toolgate_console";
    }

    String cookieName() {
        return cookieName;
    }

    /** Refuses a change whose Origin is not this console's own (or an allowed one). */
    void requireSameOrigin(ConsoleRequest request) {
        Optional<String> origin = request.header("Origin");
        String site = request.header("Sec-Fetch-Site").orElse("");
        if (origin.isEmpty()) {
            if (site.equals("same-origin")) {
                return;
            }
            throw new ConsoleException(403, "origin", "A change must come from the console's own page (no Origin header).");
        }
        String value = origin.get().strip().toLowerCase(Locale.ROOT);
        if (PRINTABLE.matcher(value).matches() && !value.equals("null")
                && (value.equals(ownOrigin(request)) || allowedOrigins.contains(value))) {
            return;
        }
        throw new ConsoleException(403, "origin", "A change must come from the console's own page (Origin "
                + abbreviate(origin.get()) + " is not allowed).");
    }

    private static String ownOrigin(ConsoleRequest request) {
        Optional<String> host = request.header("Host");
        if (host.isEmpty() || host.get().isBlank()) {
            return "\u0000";
        }
        return (request.secure() ? "https://" : "http://") + host.get().trim().toLowerCase(Locale.ROOT);
    }

    /** The signed-in session; 401 if none. Ends a session that is no longer vouched for. */
    Sessions.Session requireSession(ConsoleRequest request) {
        return session(request).orElseThrow(() -> unauthenticated(signIn.equals(HostSignIn.HOST)
                ? "No console session: open the console while signed in to the application."
                : "Sign in to use the console."));
    }

    /** 401 {@code unauthenticated}, saying how this console signs people in. */
    SignInError unauthenticated(String message) {
        return new SignInError(401, "unauthenticated", message, signIn);
    }

    /** {@link HostSignIn#HOST} or {@link HostSignIn#CONSOLE}. */
    String signIn() {
        return signIn;
    }

    Optional<Sessions.Session> session(ConsoleRequest request) {
        List<String> values = cookieValues(request);
        if (values.size() != 1) {
            return Optional.empty();
        }
        Optional<Sessions.Session> found = sessions.find(values.get(0));
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Sessions.Session session = found.get();
        Optional<CallContext> now;
        try {
            now = recheck.current(session.context, request);
        } catch (RuntimeException e) {
            now = Optional.empty();
        }
        if (now == null || now.isEmpty()) {
            sessions.end(session);
            return Optional.empty();
        }
        session.context = now.get();
        return found;
    }

    /** Refuses a change without the session's CSRF token. */
    void requireCsrf(ConsoleRequest request, Sessions.Session session) {
        List<String> tokens = request.headers(CSRF_HEADER);
        if (tokens.size() != 1 || !session.csrfMatches(tokens.get(0))) {
            throw new ConsoleException(403, "csrf", "The request lacks this session's CSRF token; reload the page.");
        }
    }

    /** Every value of the session cookie across all Cookie headers. */
    List<String> cookieValues(ConsoleRequest request) {
        List<String> values = new ArrayList<>();
        for (String header : request.headers("Cookie")) {
            for (String part : header.split(";")) {
                int eq = part.indexOf('=');
                if (eq > 0 && part.substring(0, eq).trim().equals(cookieName)) {
                    values.add(part.substring(eq + 1).trim());
                }
            }
        }
        return values;
    }

    private static String abbreviate(String s) {
        String clean = s.replaceAll("[^\\x20-\\x7e]", "?");
        return clean.length() > 80 ? clean.substring(0, 80) + "..." : clean;
    }
}
