package dev.toolgate.mcp;

import com.sun.net.httpserver.HttpExchange;
import dev.toolgate.access.Principal;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GET: opens the session's SSE stream for server-initiated notifications and requests. Needs
 * {@code Accept: text/event-stream} (406), a supported protocol version (400) and a session of the
 * caller (400/404). A second GET replaces the first stream. An event the client does not take within
 * the read timeout closes the stream.
 */
final class HttpGet {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    private final HttpChecks checks;
    private final HttpResponses responses;
    private final Executor writers;
    private final HttpWatchdog watchdog;
    private final Duration writeTimeout;

    HttpGet(HttpChecks checks, HttpResponses responses, Executor writers, HttpWatchdog watchdog, Duration writeTimeout) {
        this.checks = checks;
        this.responses = responses;
        this.writers = writers;
        this.watchdog = watchdog;
        this.writeTimeout = writeTimeout;
    }

    void handle(HttpExchange exchange, Principal principal) throws IOException {
        if (!HttpResponses.accepts(exchange.getRequestHeaders().getFirst("Accept"), HttpResponses.TEXT_EVENT_STREAM)) {
            responses.sendError(exchange, 406, null, JsonRpc.INVALID_REQUEST, "Not Acceptable: the Accept header must list text/event-stream");
            return;
        }
        if (!checks.versionSupported(exchange, null) || !checks.bodyless(exchange)) {
            return;
        }
        HttpSession session = checks.session(exchange, principal, null);
        if (session == null) {
            return;
        }
        // the GET's use of the session passes to the stream, which keeps the session busy (never idle,
        // so never evicted or expired) until it closes; registered before the response starts, so
        // nothing sent from now on is missed; the stream writes its headers first, in order with
        // everything else
        HttpEventStream stream = new HttpEventStream(exchange, responses.mapper(), session.id(), writers, watchdog,
                writeTimeout, session::release);
        try {
            HttpEventStream previous = session.listening;
            session.listening = stream;
            if (previous != null) {
                previous.close();
            }
            session.mcp.listeningStream(stream);
            stream.open();
        } catch (RuntimeException | Error e) {
            stream.close();
            throw e;
        }
        LOG.debug("MCP session {} opened its SSE stream", session.id());
    }
}
