package dev.toolgate.mcp;

import dev.toolgate.access.Principal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The {@code resources/subscribe} subscriptions of one server: by session, at most a fixed number
 * each, with the principal of the session's latest catalog request. Sessions that ended are dropped
 * whenever a subscription is added or an update is sent ({@link #prune}), and all at once when the
 * server closes, so the table holds at most the live sessions' subscriptions plus those of sessions
 * that ended since the last subscribe or update.
 */
final class CatalogSubscriptions {

    /** A subscriber of one URI. */
    record Subscriber(String sessionId, Principal principal) {
    }

    private static final class Session {
        volatile Principal principal;
        final Set<String> uris = new LinkedHashSet<>();

        Session(Principal principal) {
            this.principal = principal;
        }
    }

    private final int maxPerSession;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();

    CatalogSubscriptions(int maxPerSession) {
        this.maxPerSession = maxPerSession;
    }

    /** Adds a subscription; false if the session already holds the maximum (a repeat is not counted twice). */
    boolean add(String sessionId, Principal principal, String uri) {
        while (true) {
            Session session = sessions.computeIfAbsent(sessionId, id -> new Session(principal));
            synchronized (session) {
                if (sessions.get(sessionId) != session) {
                    continue; // emptied and dropped by a concurrent unsubscribe: start a fresh entry
                }
                session.principal = principal;
                if (session.uris.contains(uri)) {
                    return true;
                }
                if (session.uris.size() >= maxPerSession) {
                    return false;
                }
                session.uris.add(uri);
                return true;
            }
        }
    }

    void remove(String sessionId, String uri) {
        Session session = sessions.get(sessionId);
        if (session != null) {
            synchronized (session) {
                session.uris.remove(uri);
                if (session.uris.isEmpty()) {
                    sessions.remove(sessionId, session);
                }
            }
        }
    }

    /** Records the principal of a session's latest request, for the checks when updates are sent. */
    void refresh(String sessionId, Principal principal) {
        Session session = sessions.get(sessionId);
        if (session != null) {
            session.principal = principal;
        }
    }

    /** Drops the subscriptions of sessions that ended. */
    void prune(Predicate<String> alive) {
        sessions.keySet().removeIf(id -> !alive.test(id));
    }

    /** The subscribers of {@code uri} now. */
    List<Subscriber> subscribers(String uri) {
        List<Subscriber> found = new ArrayList<>();
        sessions.forEach((id, session) -> {
            synchronized (session) {
                if (session.uris.contains(uri)) {
                    found.add(new Subscriber(id, session.principal));
                }
            }
        });
        return found;
    }

    /** All subscriptions, for tests and diagnostics. */
    int size() {
        return sessions.values().stream().mapToInt(s -> {
            synchronized (s) {
                return s.uris.size();
            }
        }).sum();
    }

    void clear() {
        sessions.clear();
    }
}
