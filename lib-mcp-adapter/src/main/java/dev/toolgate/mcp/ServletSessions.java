package dev.toolgate.mcp;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servlet endpoint's record of which principal started which MCP session, and its session caps.
 * The SDK's servlet transport keeps sessions by id alone, so any caller that knows an id could use
 * another principal's session (its event stream, its elicitations); here a session id is usable only
 * by the principal whose {@code initialize} created it, and an id this class does not know is refused
 * (fails closed) before the SDK sees it.
 *
 * <p>Caps, as on the standalone server ({@link HttpSessions}): a principal may hold
 * {@code maxPerPrincipal} sessions and the server {@code maxTotal}. Past a cap, {@code initialize}
 * ends the least recently used idle session (no request in flight, no open stream) of that principal
 * (or, for the server's cap, of anyone); if none is idle it is refused. An ended session's id gets
 * 404 from here at once; the SDK forgets the session itself at its next sweep. A session unused for
 * {@code idleTimeout} ends the same way.
 */
final class ServletSessions {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    /** Why an admission was refused, or null if admitted. */
    enum Refusal { PER_PRINCIPAL, TOTAL }

    /** One session: its principal, when it was last used, and its requests in flight and open streams. */
    static final class Binding {
        final String principalKey;
        long lastUsed;
        int busy;

        Binding(String principalKey, long now) {
            this.principalKey = principalKey;
            this.lastUsed = now;
        }
    }

    private final int maxPerPrincipal;
    private final int maxTotal;
    private final long idleNanos;
    private final Map<String, Binding> byId = new LinkedHashMap<>();
    private final Map<String, Integer> reserved = new HashMap<>();
    private int reservedTotal;

    ServletSessions(int maxPerPrincipal, int maxTotal, Duration idleTimeout) {
        this.maxPerPrincipal = maxPerPrincipal;
        this.maxTotal = maxTotal;
        this.idleNanos = idleTimeout.toNanos();
    }

    int maxPerPrincipal() {
        return maxPerPrincipal;
    }

    int maxTotal() {
        return maxTotal;
    }

    /**
     * The session {@code sessionId} of {@code principalKey}, marked used and busy until
     * {@link #release}; null if it is not a live session of that principal.
     */
    synchronized Binding acquire(String principalKey, String sessionId) {
        Binding binding = byId.get(sessionId);
        long now = System.nanoTime();
        if (binding == null) {
            return null;
        }
        if (binding.busy == 0 && now - binding.lastUsed > idleNanos) {
            byId.remove(sessionId);
            return null;
        }
        if (!binding.principalKey.equals(principalKey)) {
            return null;
        }
        binding.lastUsed = now;
        binding.busy++;
        return binding;
    }

    /** The request or stream that {@link #acquire} counted has ended. */
    synchronized void release(Binding binding) {
        binding.busy--;
        binding.lastUsed = System.nanoTime();
    }

    /**
     * Reserves room for one more session of the principal, ending an idle session if a cap is
     * reached; null if admitted, else the cap that refuses.
     */
    synchronized Refusal reserve(String principalKey) {
        prune();
        long mine = byId.values().stream().filter(b -> b.principalKey.equals(principalKey)).count()
                + reserved.getOrDefault(principalKey, 0);
        if (mine >= maxPerPrincipal && !evictIdle(principalKey)) {
            return Refusal.PER_PRINCIPAL;
        }
        if (byId.size() + reservedTotal >= maxTotal && !evictIdle(null)) {
            return Refusal.TOTAL;
        }
        reserved.merge(principalKey, 1, Integer::sum);
        reservedTotal++;
        return null;
    }

    /** Ends a reservation: binds {@code sessionId} to the principal, or (null) gives the room back. */
    synchronized void settle(String principalKey, String sessionId) {
        reserved.computeIfPresent(principalKey, (k, n) -> n == 1 ? null : n - 1);
        reservedTotal--;
        if (sessionId != null) {
            byId.put(sessionId, new Binding(principalKey, System.nanoTime()));
        }
    }

    /** Whether {@code sessionId} is a live session (for the catalog's subscriptions). */
    synchronized boolean contains(String sessionId) {
        return byId.containsKey(sessionId);
    }

    synchronized void remove(String sessionId) {
        byId.remove(sessionId);
    }

    synchronized int size() {
        return byId.size();
    }

    synchronized void clear() {
        byId.clear();
    }

    /** Ends the least recently used idle session of {@code principalKey} (null: of anyone); false if none is idle. */
    private boolean evictIdle(String principalKey) {
        Map.Entry<String, Binding> oldest = null;
        for (Map.Entry<String, Binding> entry : byId.entrySet()) {
            Binding binding = entry.getValue();
            if (binding.busy == 0 && (principalKey == null || binding.principalKey.equals(principalKey))
                    && (oldest == null || binding.lastUsed < oldest.getValue().lastUsed)) {
                oldest = entry;
            }
        }
        if (oldest == null) {
            return false;
        }
        byId.remove(oldest.getKey());
        LOG.info("MCP session {} of {} ended to make room for a new one (least recently used, idle)", oldest.getKey(),
                oldest.getValue().principalKey);
        return true;
    }

    private void prune() {
        long now = System.nanoTime();
        for (Iterator<Binding> it = byId.values().iterator(); it.hasNext(); ) {
            Binding binding = it.next();
            if (binding.busy == 0 && now - binding.lastUsed > idleNanos) {
                it.remove();
            }
        }
    }
}
