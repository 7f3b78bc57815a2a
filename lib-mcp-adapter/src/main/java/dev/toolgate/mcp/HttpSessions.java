package dev.toolgate.mcp;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/** The open sessions by id. */
final class HttpSessions {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    private final ConcurrentHashMap<String, HttpSession> byId = new ConcurrentHashMap<>();

    HttpSession get(String id) {
        return byId.get(id);
    }

    void add(HttpSession session) {
        byId.put(session.id(), session);
    }

    boolean remove(HttpSession session) {
        return byId.remove(session.id(), session);
    }

    Collection<HttpSession> all() {
        return byId.values();
    }

    int openStreams() {
        return (int) byId.values().stream().filter(HttpSession::streaming).count();
    }

    /** Pings open streams (finding dead ones) and ends sessions idle for longer than {@code idle}. */
    void housekeeping(Duration idle) {
        long now = System.nanoTime();
        for (Map.Entry<String, HttpSession> entry : byId.entrySet()) {
            HttpSession session = entry.getValue();
            HttpEventStream stream = session.listening;
            boolean streaming = stream != null && stream.ping();
            if (!streaming && now - session.lastSeen > idle.toNanos() && byId.remove(entry.getKey(), session)) {
                LOG.info("MCP session {} ended after {} idle", entry.getKey(), idle);
                session.mcp.closeGracefully().onErrorResume(e -> Mono.empty()).subscribe();
                session.closeStream();
            }
        }
    }

    /** Ends every session (closing the SDK's sessions when {@code graceful}). */
    void closeAll(boolean graceful) {
        for (HttpSession session : byId.values()) {
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
