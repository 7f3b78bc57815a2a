package dev.toolgate.mcp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edge of every request: whatever is thrown while serving one stays here. An
 * {@link IOException} means the client is gone (or was cut off by the read timeout); anything else,
 * an {@link Error} included ({@link OutOfMemoryError}, {@link StackOverflowError}), is logged once and
 * answered 500 with -32603 if the response has not started. The thread serves on.
 *
 * <p>Nothing but an {@link IOException} leaves. For one, the JDK server closes the connection and
 * forgets it; closing the exchange here instead would close the socket but leave the connection in
 * the server's own bookkeeping, about 100 bytes plus an 8 KiB read buffer per aborted request, for
 * as long as the server runs. For any other {@link Throwable}, the JDK server (17 and later) logs it
 * at TRACE and rethrows it without closing the connection, which then stays open and unanswered until
 * the client gives up. When not even the 500 can be written, the way out is therefore a preallocated
 * {@link IOException}, which takes no memory to throw.
 */
final class HttpEdge implements HttpHandler {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();

    /** Thrown to the JDK server for a failed request that cannot be answered. */
    private static final IOException ABANDONED = new Abandoned();

    private final HttpResponses responses;
    private final HttpHandler dispatch;

    HttpEdge(HttpResponses responses, HttpHandler dispatch) {
        this.responses = responses;
        this.dispatch = dispatch;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try {
            dispatch.handle(exchange);
        } catch (IOException e) {
            if (LOG.isDebugEnabled()) {
                LOG.debug("MCP HTTP client went away: {}", e.toString());
            }
            throw e;
        } catch (Throwable e) {
            try {
                LOG.error("MCP HTTP request failed", LOGGED.redactThrowable(e));
                responses.sendError(exchange, 500, null, JsonRpc.INTERNAL_ERROR, "Internal error");
            } catch (Throwable again) {
                // the response had started, the connection is gone, or even this failed (out of memory)
                throw ABANDONED;
            }
        }
    }

    /** Shared and without a stack trace: it carries no detail (the failure was logged) and needs no allocation. */
    private static final class Abandoned extends IOException {

        private static final long serialVersionUID = 1L;

        Abandoned() {
            super("the request failed and could not be answered");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
