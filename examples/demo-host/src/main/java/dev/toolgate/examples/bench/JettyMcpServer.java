package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.mcp.McpAuthenticator;
import dev.toolgate.mcp.McpRequestAuthenticator;
import dev.toolgate.mcp.McpServletEndpoint;
import dev.toolgate.mcp.ToolgateMcpServer;
import java.net.URI;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The MCP endpoint the load benchmark measures, on either transport: {@code jdk}, the standalone
 * server ({@code ToolgateMcpServer.http}: the hand-written transport on the JDK's HTTP server), or
 * {@code servlet}, {@code ToolgateMcpServer.servlet} (the MCP SDK's servlet transport behind
 * Toolgate's checks) mounted on an embedded Jetty 12 with as many request threads as the standalone
 * server has workers (plus Jetty's acceptor and selectors), on a free loopback port.
 */
final class JettyMcpServer {

    /** A running endpoint. */
    interface Served extends AutoCloseable {
        URI endpoint();

        @Override
        void close();
    }

    private JettyMcpServer() {
    }

    static String transport(String name) {
        if (!name.equals("jdk") && !name.equals("servlet")) {
            throw new IllegalArgumentException("--transport takes jdk or servlet, not " + name);
        }
        return name;
    }

    static String describe(String transport) {
        return transport.equals("jdk") ? "jdk, the hand-written Streamable HTTP transport on the JDK's HTTP server"
                : "servlet, the MCP SDK's servlet transport on Jetty " + Server.getVersion();
    }

    static Served start(String transport, Toolgate gate, McpAuthenticator authenticator, int workers) throws Exception {
        if (transport.equals("jdk")) {
            ToolgateMcpServer server = ToolgateMcpServer.http(gate, authenticator).maxWorkerThreads(workers)
                    .serverInfo("toolgate-bench", "0.1.0").start();
            return new Served() {
                @Override
                public URI endpoint() {
                    return server.endpoint().orElseThrow();
                }

                @Override
                public void close() {
                    server.close();
                }
            };
        }
        McpServletEndpoint endpoint = ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(authenticator))
                .maxSessionsPerPrincipal(64).serverInfo("toolgate-bench", "0.1.0").build();
        QueuedThreadPool threads = new QueuedThreadPool(workers + 8, 8);
        threads.setName("bench-jetty");
        Server jetty = new Server(threads);
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        ServletHolder holder = new ServletHolder(endpoint.servlet());
        holder.setAsyncSupported(true);
        context.addServlet(holder, endpoint.path());
        jetty.setHandler(context);
        jetty.start();
        URI uri = URI.create("http://127.0.0.1:" + connector.getLocalPort() + endpoint.path());
        return new Served() {
            @Override
            public URI endpoint() {
                return uri;
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
}
