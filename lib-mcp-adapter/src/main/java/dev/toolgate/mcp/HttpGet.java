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
 * the read timeout closes the stream. With {@code Last-Event-ID}, resumes that stream instead
 * ({@link HttpEventLog}).
 */
final class HttpGet {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    private final HttpChecks checks;
    private final HttpResponses responses;
    private final Executor writers;
    private final HttpWatchdog watchdog;
    private final Duration writeTimeout;
    private final long retryMillis;

    HttpGet(HttpChecks checks, HttpResponses responses, Executor writers, HttpWatchdog watchdog, Duration writeTimeout,
            Duration retry) {
        this.retryMillis = retry.toMillis();
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
        String lastEventId = exchange.getRequestHeaders().getFirst("Last-Event-ID");
        if (lastEventId != null) {
            resume(exchange, session, lastEventId);
            return;
        }
        // the GET's use of the session passes to the stream, which keeps the session busy (never idle,
        // so never evicted or expired) until it closes; attached before the response starts, so
        // nothing sent from now on is missed; the stream writes its headers first, then the priming
        // event, in order with everything else, both under the event log's lock, so an event the
        // client's reaction to the headers causes is recorded after the stream is attached
        HttpEventStream stream = stream(exchange, session, 0);
        try {
            listen(session, stream);
            session.log.attachPrimed(0, stream, retryMillis, stream::open);
        } catch (RuntimeException | Error e) {
            stream.close();
            throw e;
        }
        LOG.debug("MCP session {} opened its SSE stream", session.id());
    }

    /**
     * Resumes the stream of {@code lastEventId}: its kept events after the id, then live; for a POST's
     * stream, until its response. An id that is not one of this session's answers 400, an id after which
     * events were evicted 410; neither changes anything (an open listening stream stays).
     */
    private void resume(HttpExchange exchange, HttpSession session, String lastEventId) throws IOException {
        HttpEventStream[] self = new HttpEventStream[1];
        HttpEventStream stream = new HttpEventStream(exchange, responses.mapper(), session.id(), writers, watchdog, writeTimeout,
                () -> {
                    session.resumed.remove(self[0]);
                    session.release();
                }, session.log, -1);
        self[0] = stream;
        HttpEventLog.Resumed resumed;
        try {
            resumed = session.log.resume(lastEventId, stream, stream::open);
        } catch (RuntimeException | Error e) {
            session.release();
            throw e;
        }
        if (resumed.problem() != null) {
            session.release(); // the stream never opened: its use of the session ends here
            if (resumed.problem() == HttpEventLog.Problem.INVALID) {
                responses.sendError(exchange, 400, null, JsonRpc.INVALID_REQUEST,
                        "Bad Request: Last-Event-ID is not an event id of this session");
            } else {
                responses.sendError(exchange, 410, null, HttpResponses.EVENTS_GONE,
                        "Gone: the events after this Last-Event-ID are no longer kept; open a GET stream without "
                                + "Last-Event-ID (messages sent meanwhile are lost)");
            }
            return;
        }
        stream.resumed(resumed.stream());
        if (resumed.stream() == 0) {
            listen(session, stream);
        } else {
            session.resumed.add(stream);
            if (stream.closed()) {
                session.resumed.remove(stream); // it ended before it was added (a finished stream)
            }
            if (resumed.replaced() instanceof HttpEventStream previous) {
                previous.close();
            }
        }
        LOG.debug("MCP session {} resumed stream {}", session.id(), resumed.stream());
    }

    private HttpEventStream stream(HttpExchange exchange, HttpSession session, int number) {
        return new HttpEventStream(exchange, responses.mapper(), session.id(), writers, watchdog, writeTimeout,
                session::release, session.log, number);
    }

    /** Makes {@code stream} the session's listening stream, closing the one it replaces. */
    private static void listen(HttpSession session, HttpEventStream stream) {
        HttpEventStream previous = session.listening;
        session.listening = stream;
        if (previous != null && previous != stream) {
            previous.close();
        }
        session.mcp.listeningStream(stream);
    }
}
