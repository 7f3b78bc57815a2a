package dev.toolgate.mcp;

import com.sun.net.httpserver.HttpExchange;
import dev.toolgate.access.Principal;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** DELETE: ends the caller's session (200), after the protocol version (400) and session (400/404) checks. */
final class HttpDelete {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    private final HttpChecks checks;
    private final HttpSessions sessions;

    HttpDelete(HttpChecks checks, HttpSessions sessions) {
        this.checks = checks;
        this.sessions = sessions;
    }

    void handle(HttpExchange exchange, Principal principal) throws IOException {
        if (!checks.versionSupported(exchange, null) || !checks.bodyless(exchange)) {
            return;
        }
        HttpSession session = checks.session(exchange, principal, null);
        if (session == null) {
            return;
        }
        sessions.remove(session);
        try {
            session.mcp.delete().block(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            LOG.debug("Deleting session {} failed: {}", session.id(), e.toString());
        }
        session.closeStream();
        LOG.info("MCP session {} ended by the client", session.id());
        HttpResponses.sendStatus(exchange, 200);
    }
}
