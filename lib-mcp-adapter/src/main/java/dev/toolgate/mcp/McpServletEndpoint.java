package dev.toolgate.mcp;

import io.modelcontextprotocol.server.McpAsyncServer;
import jakarta.servlet.http.HttpServlet;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link dev.toolgate.Toolgate}'s MCP endpoint (Streamable HTTP, protocol 2025-11-25) as a servlet,
 * for hosts that already run a servlet container (Spring Boot, Jetty, Tomcat). Built by
 * {@link ToolgateMcpServer#servlet}; serves through the MCP Java SDK's own servlet transport, behind
 * Toolgate's checks: every request is authenticated by the host's {@link McpRequestAuthenticator}
 * before the SDK sees it (401 with {@code WWW-Authenticate: Bearer} otherwise), its principal is
 * bound to that request, a session is usable only by the principal that started it, sessions are
 * capped per principal and in all, and an over-budget call is answered HTTP 429 with
 * {@code Retry-After}. Tools, errors and the apply flow are those of {@link ToolgateMcpServer}.
 *
 * <pre>{@code
 * McpServletEndpoint mcp = ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(tokens::principalFor))
 *         .endpoint("/mcp")
 *         .build();
 * // Jetty 12 (ee10):
 * ServletHolder holder = new ServletHolder(mcp.servlet());
 * holder.setAsyncSupported(true);                 // required: responses and event streams are asynchronous
 * context.addServlet(holder, "/mcp");             // the same path as endpoint(...)
 * // Spring Boot: new ServletRegistrationBean<>(mcp.servlet(), "/mcp") with setAsyncSupported(true)
 * }</pre>
 *
 * <p>What the container owns here, unlike the standalone server: threads, connections, read and
 * idle timeouts, slow-client defences and TCP settings; configure them there. Mount the servlet
 * behind TLS when it is reachable from other machines.
 *
 * <p>{@link #close()} ends the MCP sessions and stops answering (503); it does not close the gate,
 * and the host unmounts the servlet.
 */
public final class McpServletEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    private final McpAsyncServer server;
    private final ToolBridge bridge;
    private final ServletGuard guard;
    private final ServletSessions sessions;
    private final String path;
    private final CatalogDispatch catalog;
    private final AtomicBoolean closed = new AtomicBoolean();

    McpServletEndpoint(McpAsyncServer server, ToolBridge bridge, ServletGuard guard, ServletSessions sessions, String path,
                       CatalogDispatch catalog) {
        this.server = server;
        this.bridge = bridge;
        this.guard = guard;
        this.sessions = sessions;
        this.path = path;
        this.catalog = catalog;
    }

    /** The servlet to mount, with async support, at {@link #path()}. */
    public HttpServlet servlet() {
        return guard;
    }

    /** The endpoint path the servlet answers on (the builder's {@code endpoint}, default {@code /mcp}). */
    public String path() {
        return path;
    }

    /** Sessions open now (for tests and diagnostics). */
    int openSessions() {
        return sessions.size();
    }

    /** Resource subscriptions held now; 0 without a catalog (for tests and diagnostics). */
    int catalogSubscriptions() {
        return catalog == null ? 0 : catalog.subscriptionCount();
    }

    /** Event streams (GET) open now (for tests and diagnostics). */
    int openStreams() {
        return guard.openStreams();
    }

    /** Ends the MCP sessions and answers further requests 503. Does not close the gate. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        guard.closing();
        bridge.detach();
        try {
            server.closeGracefully().block(Duration.ofSeconds(30));
        } catch (RuntimeException e) {
            LOG.debug("Closing the MCP servlet endpoint: {}", e.toString());
        }
        if (catalog != null) {
            catalog.close();
        }
        sessions.clear();
        LOG.info("MCP servlet endpoint {} stopped", path);
    }
}
