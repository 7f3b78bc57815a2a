package dev.toolgate.mcp;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The servlet endpoint's record of which principal started which MCP session, and its session caps.
 * The SDK's servlet transport keeps sessions by id alone, so any caller that knows an id could use
 * another principal's session (its event stream, its elicitations); here a session id is usable only
 * by the principal whose {@code initialize} created it, and an id this class does not know is refused
 * (fails closed) before the SDK sees it.
 *
 * <p>Caps: a principal may hold {@code maxPerPrincipal} sessions and the server {@code maxTotal};
 * a session unused for {@code idleTimeout} no longer counts (and its id is no longer accepted). Unlike
 * the standalone server's, an {@code initialize} over a cap is refused, never answered by evicting an
 * idle session: the servlet endpoint cannot end a session inside the SDK.
 */
final class ServletSessions {

    /** Why an admission was refused, or null if admitted. */
    enum Refusal { PER_PRINCIPAL, TOTAL }

    private record Binding(String principalKey, long[] lastUsed) {
    }

    private final int maxPerPrincipal;
    private final int maxTotal;
    private final long idleNanos;
    private final Map<String, Binding> byId = new HashMap<>();
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

    /** True if {@code sessionId} is a live session of {@code principalKey}; marks it used. */
    synchronized boolean owns(String principalKey, String sessionId) {
        Binding binding = byId.get(sessionId);
        long now = System.nanoTime();
        if (binding == null || now - binding.lastUsed()[0] > idleNanos) {
            if (binding != null) {
                byId.remove(sessionId);
            }
            return false;
        }
        if (!binding.principalKey().equals(principalKey)) {
            return false;
        }
        binding.lastUsed()[0] = now;
        return true;
    }

    /** Reserves room for one more session of the principal; null if admitted, else the cap that refuses. */
    synchronized Refusal reserve(String principalKey) {
        prune();
        long mine = byId.values().stream().filter(b -> b.principalKey().equals(principalKey)).count()
                + reserved.getOrDefault(principalKey, 0);
        if (mine >= maxPerPrincipal) {
            return Refusal.PER_PRINCIPAL;
        }
        if (byId.size() + reservedTotal >= maxTotal) {
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
            byId.put(sessionId, new Binding(principalKey, new long[] {System.nanoTime()}));
        }
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

    private void prune() {
        long now = System.nanoTime();
        for (Iterator<Binding> it = byId.values().iterator(); it.hasNext(); ) {
            if (now - it.next().lastUsed()[0] > idleNanos) {
                it.remove();
            }
        }
    }
}
