package dev.toolgate.mcp;

import java.net.URI;
import java.util.function.IntSupplier;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * An MCP endpoint under test, whichever transport serves it: the standalone server (hand-written
 * transport on the JDK's HTTP server) or the servlet endpoint (the SDK's servlet transport) on an
 * embedded Jetty 12, so the same client-side suites run against both.
 */
interface ServedMcp extends AutoCloseable {

    URI endpoint();

    int port();

    /** Event streams open now. */
    int openStreams();

    /** Sessions open now. */
    int openSessions();

    /** Resource subscriptions held now. */
    int catalogSubscriptions();

    @Override
    void close();

    static ServedMcp standalone(ToolgateMcpServer server) {
        return new ServedMcp() {
            @Override
            public URI endpoint() {
                return server.endpoint().orElseThrow();
            }

            @Override
            public int port() {
                return server.port();
            }

            @Override
            public int openStreams() {
                return server.openStreams();
            }

            @Override
            public int openSessions() {
                return server.openSessions();
            }

            @Override
            public int catalogSubscriptions() {
                return server.catalogSubscriptions();
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }

    /**
     * Mounts {@code endpoint} on a fresh Jetty 12 on 127.0.0.1 (any free port): at most
     * {@code maxThreads} threads, connections idle for {@code idleTimeoutMillis} closed.
     */
    static ServedMcp jetty(McpServletEndpoint endpoint, int maxThreads, long idleTimeoutMillis) {
        return jetty(endpoint, maxThreads, idleTimeoutMillis, -1);
    }

    /** The same, and request bodies slower than {@code minRequestBytesPerSecond} (if positive) cut off. */
    static ServedMcp jetty(McpServletEndpoint endpoint, int maxThreads, long idleTimeoutMillis, long minRequestBytesPerSecond) {
        return jetty(endpoint, maxThreads, idleTimeoutMillis, minRequestBytesPerSecond, 0);
    }

    /** The same on {@code port} (0: any free port). */
    static ServedMcp jetty(McpServletEndpoint endpoint, int maxThreads, long idleTimeoutMillis, long minRequestBytesPerSecond,
                           int port) {
        QueuedThreadPool threads = new QueuedThreadPool(maxThreads, Math.min(8, maxThreads));
        threads.setName("jetty-mcp");
        Server jetty = new Server(threads);
        HttpConfiguration config = new HttpConfiguration();
        config.setSendServerVersion(false);
        if (minRequestBytesPerSecond > 0) {
            config.setMinRequestDataRate(minRequestBytesPerSecond);
        }
        ServerConnector connector = new ServerConnector(jetty, new HttpConnectionFactory(config));
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        connector.setIdleTimeout(idleTimeoutMillis);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        ServletHolder holder = new ServletHolder(endpoint.servlet());
        holder.setAsyncSupported(true);
        context.addServlet(holder, endpoint.path());
        jetty.setHandler(context);
        try {
            jetty.start();
        } catch (Exception e) {
            endpoint.close();
            throw new IllegalStateException("Jetty did not start", e);
        }
        int bound = connector.getLocalPort();
        IntSupplier streams = endpoint::openStreams;
        return new ServedMcp() {
            @Override
            public URI endpoint() {
                return URI.create("http://127.0.0.1:" + bound + endpoint.path());
            }

            @Override
            public int port() {
                return bound;
            }

            @Override
            public int openStreams() {
                return streams.getAsInt();
            }

            @Override
            public int openSessions() {
                return endpoint.openSessions();
            }

            @Override
            public int catalogSubscriptions() {
                return endpoint.catalogSubscriptions();
            }

            @Override
            public void close() {
                endpoint.close();
                try {
                    jetty.stop();
                } catch (Exception e) {
                    throw new IllegalStateException("Jetty did not stop", e);
                }
            }
        };
    }

    /** Jetty with the settings the servlet suites use: 200 threads (Jetty's default), 30 s idle timeout. */
    static ServedMcp jetty(McpServletEndpoint endpoint) {
        return jetty(endpoint, 200, 30_000);
    }
}
