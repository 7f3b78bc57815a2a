package dev.toolgate.console;

import dev.toolgate.gate.CallContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The console's request checks, each failing closed: the session cookie (one, valid, live, and still
 * known to the host's authenticator), the Origin of every change (or {@code Sec-Fetch-Site:
 * same-origin} from a browser that sends no Origin), and the session's CSRF token on every change.
 */
final class Guard {

    static final String CSRF_HEADER = "X-Toolgate-Csrf";
    /** An origin is visible ASCII only: a control character is never part of one. */
    private static final java.util.regex.Pattern PRINTABLE = java.util.regex.Pattern.compile("[\\x21-\\x7e]+");

    private final Sessions sessions;
    private final ConsoleAuthenticator authenticator;
    private final Set<String> allowedOrigins;
    private final String cookieName;

    Guard(Sessions sessions, ConsoleAuthenticator authenticator, Set<String> allowedOrigins, boolean secureCookie) {
        this.sessions = sessions;
        this.authenticator = authenticator;
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

    /** The signed-in session; 401 if none. Ends a session the authenticator no longer vouches for. */
    Sessions.Session requireSession(ConsoleRequest request) {
        return session(request).orElseThrow(() ->
                new ConsoleException(401, "unauthenticated", "Sign in to use the console."));
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
            now = authenticator.current(session.context);
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
