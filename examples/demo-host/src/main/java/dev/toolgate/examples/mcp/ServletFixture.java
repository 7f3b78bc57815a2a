package dev.toolgate.examples.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.mcp.McpAuthenticator;
import dev.toolgate.mcp.McpRequestAuthenticator;
import dev.toolgate.mcp.McpServletEndpoint;
import dev.toolgate.mcp.ToolgateMcpServer;
import java.net.URI;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** The conformance fixtures behind the SDK's servlet transport on embedded Jetty 12, loopback only (a test fixture). */
final class ServletFixture implements AutoCloseable {

    private final McpServletEndpoint endpoint;
    private final Server jetty;
    private final URI uri;

    private ServletFixture(McpServletEndpoint endpoint, Server jetty, URI uri) {
        this.endpoint = endpoint;
        this.jetty = jetty;
        this.uri = uri;
    }

    static ServletFixture start(Toolgate gate, int port) throws Exception {
        McpServletEndpoint endpoint = ToolgateMcpServer.servlet(gate,
                        McpRequestAuthenticator.bearer(McpAuthenticator.fixed(Map.of(ConformanceServer.TOKEN, ConformanceServer.PRINCIPAL))))
                .serverInfo("toolgate-conformance", "0.1.0")
                .toolNames(ConformanceServer.toolNames())
                .catalog(ConformanceFixtures.catalog())
                .maxSessionsPerPrincipal(1024)
                .build();
        Server jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        ServletHolder holder = new ServletHolder(endpoint.servlet());
        holder.setAsyncSupported(true);
        context.addServlet(holder, endpoint.path());
        jetty.setHandler(context);
        jetty.start();
        return new ServletFixture(endpoint, jetty, URI.create("http://127.0.0.1:" + connector.getLocalPort() + endpoint.path()));
    }

    URI endpoint() {
        return uri;
    }

    /** Closes the endpoint, then stops Jetty; a failure to stop is rethrown unchecked. */
    @Override
    public void close() {
        endpoint.close();
        try {
            jetty.stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException("Jetty did not stop", e);
        }
    }
}
