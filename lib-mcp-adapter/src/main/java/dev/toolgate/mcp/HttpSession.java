package dev.toolgate.mcp;

import io.modelcontextprotocol.spec.McpStreamableServerSession;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Streamable HTTP session: the SDK's session, the principal that started it, its GET stream, and
 * how busy it is. {@code uses} counts requests in flight plus an open stream; a session is idle at
 * zero, and ending it (eviction, idle timeout) swaps zero for {@link #RETIRED} in one step, so a
 * request can never start on a session that is being ended, nor a busy session be ended.
 */
final class HttpSession {

    private static final int RETIRED = -1;

    final McpStreamableServerSession mcp;
    final String principalKey;
    /** Whether the client declared the elicitation capability (a task may ask its user). */
    final boolean elicits;
    volatile long lastSeen = System.nanoTime();
    volatile HttpEventStream listening;
    /** GET connections resuming a POST's stream (not the listening stream): pinged and closed with the session. */
    final java.util.Set<HttpEventStream> resumed = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The session's events kept for replay, and the live connection of each stream. */
    final HttpEventLog log;
    private final AtomicInteger uses = new AtomicInteger();

    HttpSession(McpStreamableServerSession mcp, String principalKey, HttpEventLog log) {
        this(mcp, principalKey, log, false);
    }

    HttpSession(McpStreamableServerSession mcp, String principalKey, HttpEventLog log, boolean elicits) {
        this.elicits = elicits;
        this.mcp = mcp;
        this.principalKey = principalKey;
        this.log = log;
    }

    String id() {
        return mcp.getId();
    }

    /** Starts one use (a request, or an open stream); false if the session has ended. */
    boolean acquire() {
        while (true) {
            int n = uses.get();
            if (n == RETIRED) {
                return false;
            }
            if (uses.compareAndSet(n, n + 1)) {
                lastSeen = System.nanoTime();
                return true;
            }
        }
    }

    /** Ends one use. */
    void release() {
        lastSeen = System.nanoTime();
        uses.updateAndGet(n -> n > 0 ? n - 1 : n);
    }

    /** Ends the session if nothing uses it: true if this call retired it. */
    boolean retireIfIdle() {
        return uses.compareAndSet(0, RETIRED);
    }

    /** Ends the session whatever uses it (DELETE, server shutdown). */
    void retire() {
        uses.set(RETIRED);
    }

    boolean idle() {
        return uses.get() == 0;
    }

    boolean streaming() {
        HttpEventStream stream = listening;
        return stream != null && !stream.closed();
    }

    /** Closes the listening stream and every resumed stream. */
    void closeStream() {
        HttpEventStream stream = listening;
        if (stream != null) {
            stream.close();
        }
        resumed.forEach(HttpEventStream::close);
    }

    /** Keep-alive comments on the open streams. */
    void ping() {
        HttpEventStream stream = listening;
        if (stream != null && !stream.closed()) {
            stream.ping();
        }
        resumed.forEach(HttpEventStream::ping);
    }
}
