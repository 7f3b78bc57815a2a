package dev.toolgate.mcp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The open sessions by id, capped per principal and in total. A new session that would pass a cap
 * first evicts the oldest idle session (no request in flight, no open stream) of that principal,
 * or of the server; when none is idle, it is refused and the caller answers with an error naming
 * the cap. An evicted session's id is unknown from then on (404), like any other.
 */
final class HttpSessions {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    /** The cap that refused a new session. */
    enum Cap {
        PER_PRINCIPAL, TOTAL
    }

    /** The right to add one session for a principal, or the cap that refused it. */
    record Admission(String principalKey, Cap refusedBy, int limit) {

        boolean admitted() {
            return refusedBy == null;
        }
    }

    private final int maxPerPrincipal;
    private final int maxTotal;
    private final ConcurrentHashMap<String, HttpSession> byId = new ConcurrentHashMap<>();
    private final Object admissions = new Object();
    private final Map<String, Integer> reserved = new HashMap<>();
    private int reservedTotal;

    HttpSessions(int maxPerPrincipal, int maxTotal) {
        this.maxPerPrincipal = maxPerPrincipal;
        this.maxTotal = maxTotal;
    }

    /**
     * Reserves room for one more session of {@code principalKey}, evicting the oldest idle session
     * of that principal (per-principal cap) or of anyone (total cap) when needed. A reservation
     * must end with {@link #add} or {@link #cancel}.
     */
    Admission admit(String principalKey) {
        List<HttpSession> evicted = new ArrayList<>(1);
        Admission admission;
        synchronized (admissions) {
            admission = reserve(principalKey, evicted);
        }
        for (HttpSession session : evicted) {
            end(session);
        }
        return admission;
    }

    private Admission reserve(String principalKey, List<HttpSession> evicted) {
        int mine = reserved.getOrDefault(principalKey, 0);
        for (HttpSession session : byId.values()) {
            if (session.principalKey.equals(principalKey)) {
                mine++;
            }
        }
        if (mine >= maxPerPrincipal) {
            HttpSession victim = evictOldestIdle(session -> session.principalKey.equals(principalKey));
            if (victim == null) {
                LOG.warn("MCP session refused for {}: it has {} sessions (the per-principal limit), all in use",
                        principalKey, maxPerPrincipal);
                return new Admission(principalKey, Cap.PER_PRINCIPAL, maxPerPrincipal);
            }
            LOG.info("MCP session {} of {} evicted, the oldest idle one: {} reached the limit of {} sessions per principal",
                    victim.id(), victim.principalKey, principalKey, maxPerPrincipal);
            evicted.add(victim);
        } else if (byId.size() + reservedTotal >= maxTotal) {
            HttpSession victim = evictOldestIdle(session -> true);
            if (victim == null) {
                LOG.warn("MCP session refused for {}: the server has {} sessions (its limit), all in use",
                        principalKey, maxTotal);
                return new Admission(principalKey, Cap.TOTAL, maxTotal);
            }
            LOG.info("MCP session {} of {} evicted, the server's oldest idle one: the server reached its limit of {} sessions",
                    victim.id(), victim.principalKey, maxTotal);
            evicted.add(victim);
        }
        reserved.merge(principalKey, 1, Integer::sum);
        reservedTotal++;
        return new Admission(principalKey, null, 0);
    }

    /** Retires and removes the least recently used idle session among {@code candidates}, or returns null. */
    private HttpSession evictOldestIdle(Predicate<HttpSession> candidates) {
        record Seen(HttpSession session, long at) {
        }
        List<Seen> idle = new ArrayList<>();
        for (HttpSession session : byId.values()) {
            if (candidates.test(session) && session.idle()) {
                idle.add(new Seen(session, session.lastSeen));
            }
        }
        idle.sort((a, b) -> Long.compare(a.at() - b.at(), 0));
        for (Seen seen : idle) {
            if (seen.session().retireIfIdle()) {
                byId.remove(seen.session().id(), seen.session());
                return seen.session();
            }
        }
        return null;
    }

    /** Adds the session a reservation was made for. */
    void add(Admission admission, HttpSession session) {
        synchronized (admissions) {
            unreserve(admission);
            byId.put(session.id(), session);
        }
    }

    /** Gives up a reservation (initialize failed). */
    void cancel(Admission admission) {
        synchronized (admissions) {
            unreserve(admission);
        }
    }

    private void unreserve(Admission admission) {
        reserved.computeIfPresent(admission.principalKey(), (key, n) -> n > 1 ? n - 1 : null);
        reservedTotal--;
    }

    HttpSession get(String id) {
        return byId.get(id);
    }

    /** Removes a session the client ended. */
    boolean remove(HttpSession session) {
        session.retire();
        return byId.remove(session.id(), session);
    }

    Collection<HttpSession> all() {
        return byId.values();
    }

    int size() {
        return byId.size();
    }

    int openStreams() {
        return (int) byId.values().stream().filter(HttpSession::streaming).count();
    }

    /** Pings open streams (finding dead ones) and ends sessions idle for longer than {@code idle}. */
    void housekeeping(Duration idle) {
        long now = System.nanoTime();
        for (HttpSession session : byId.values()) {
            session.ping();
            if (now - session.lastSeen > idle.toNanos() && session.retireIfIdle() && byId.remove(session.id(), session)) {
                LOG.info("MCP session {} ended after {} idle", session.id(), idle);
                end(session);
            }
        }
    }

    private static void end(HttpSession session) {
        session.mcp.closeGracefully().onErrorResume(e -> Mono.empty()).subscribe();
        session.closeStream();
    }

    /** Ends every session (closing the SDK's sessions when {@code graceful}). */
    void closeAll(boolean graceful) {
        for (HttpSession session : byId.values()) {
            session.retire();
            if (graceful) {
                try {
                    session.mcp.closeGracefully().block(Duration.ofSeconds(5));
                } catch (RuntimeException e) {
                    LOG.debug("Closing session {} failed: {}", session.id(), e.toString());
                }
            }
            session.closeStream();
        }
        byId.clear();
    }
}
