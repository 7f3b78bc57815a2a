package dev.toolgate.examples.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.examples.PortInUse;
import dev.toolgate.mcp.McpAuthenticator;
import dev.toolgate.mcp.McpCatalog;
import dev.toolgate.mcp.McpToolNames;
import dev.toolgate.mcp.ToolgateMcpServer;
import dev.toolgate.spi.InMemoryStore;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;

/**
 * A test fixture, not an example to copy: the MCP host that the official conformance suite
 * ({@code @modelcontextprotocol/conformance}) is run against. It serves the suite's fixture tools,
 * resources and prompts ({@link ConformanceFixtures}) as ordinary governed Toolgate tools and catalog
 * entries, on Streamable HTTP, loopback only, with one fixed bearer token, {@value #TOKEN}; the suite
 * sends no credentials, so {@code examples/demo-host/src/conformance/run.sh} puts a small proxy in
 * front that adds the token.
 *
 * <pre>
 * java -cp ... dev.toolgate.examples.mcp.ConformanceServer --port 8765
 * </pre>
 *
 * <p>Every fixture tool only reads (or asks the client), so each is a READ tool and runs at once; the
 * gate still authorizes, audits (in memory) and meters each call. Tool names are the suite's: the
 * gate's qualified names ({@code conformance.test_simple_text}) are served without the
 * {@code conformance.} prefix through {@link McpToolNames}.
 */
public final class ConformanceServer {

    /** The only bearer token the fixture accepts. */
    public static final String TOKEN = "conformance-token";

    /** The fixture's principal: a user holding the fixture's rule. */
    public static final Principal PRINCIPAL = Principal.user("conformance", ConformanceFixtures.RULE);

    private static final String PREFIX = ConformanceFixtures.PLUGIN + ".";

    private ConformanceServer() {
    }

    /**
     * Starts the fixture on {@code --port N} (default 0: any free port) and serves until the process is
     * stopped. {@code --transport servlet} serves the same fixtures through the SDK's servlet transport
     * on embedded Jetty instead of the standalone server, to compare the two on the same run.
     */
    public static void main(String[] args) throws Exception {
        int port = 0;
        String transport = "standalone";
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--transport" -> transport = args[i + 1];
                default -> usage();
            }
        }
        if (args.length % 2 != 0 || !(transport.equals("standalone") || transport.equals("servlet"))) {
            usage();
        }
        PrintStream console = System.out;
        try {
            serve(port, transport, console);
        } catch (PortInUse e) {
            System.err.println("error: " + e.getMessage()); // one line, no stack trace
            System.exit(1);
        }
    }

    private static void serve(int port, String transport, PrintStream console) throws Exception {
        try (InMemoryStore store = new InMemoryStore(); Toolgate gate = gate(store)) {
            if (transport.equals("servlet")) {
                try (ServletFixture served = PortInUse.listen("the conformance host", "127.0.0.1", port, "--port",
                        () -> ServletFixture.start(gate, port))) {
                    console.println("Conformance host on " + served.endpoint() + " (servlet on Jetty; bearer token " + TOKEN + ")");
                    console.flush();
                    Thread.currentThread().join(); // until the process is stopped
                }
                return;
            }
            try (ToolgateMcpServer server = PortInUse.listen("the conformance host", "127.0.0.1", port, "--port",
                    () -> start(gate, port))) {
                console.println("Conformance host on " + server.endpoint().orElseThrow() + " (bearer token " + TOKEN + ")");
                console.flush();
                Runtime.getRuntime().addShutdownHook(new Thread(server::close, "conformance-shutdown"));
                server.awaitTermination();
            }
        }
    }

    private static void usage() {
        System.err.println("usage: ConformanceServer [--port N] [--transport standalone|servlet]"
                + "   (a test fixture; loopback only, token " + TOKEN + ")");
        System.exit(2);
    }

    /** The served names: the gate's, without the fixture plugin's prefix. */
    static McpToolNames toolNames() {
        return McpToolNames.of(name -> name.startsWith(PREFIX) ? name.substring(PREFIX.length()) : name);
    }

    /** The gate with the fixture tools only (no discovered plugins), no budget, on {@code store}. */
    static Toolgate gate(InMemoryStore store) {
        return Toolgate.builder()
                .discoverTools(false)
                .store(store)
                .budget(ToolBudget.unlimited())
                .tools(ConformanceFixtures.PLUGIN, ConformanceFixtures.tools().toArray(new dev.toolgate.tool.Tool<?, ?>[0]))
                .build();
    }

    /** The fixture server on 127.0.0.1:{@code port}. */
    static ToolgateMcpServer start(Toolgate gate, int port) {
        McpCatalog catalog = ConformanceFixtures.catalog();
        return ToolgateMcpServer.http(gate, McpAuthenticator.fixed(Map.of(TOKEN, PRINCIPAL)))
                .bind("127.0.0.1")
                .port(port)
                .serverInfo("toolgate-conformance", "0.1.0")
                .toolNames(toolNames())
                .catalog(catalog)
                // the suite reaches the host through a proxy on another loopback port
                .allowedHosts("localhost", "127.0.0.1", "[::1]")
                // server-sse-polling: a call not answered within 100 ms is answered on the client's resumed stream
                .ssePolling(Duration.ofMillis(100), Duration.ofMillis(500))
                // the suite opens a session per scenario and leaves most of them open
                .maxSessionsPerPrincipal(1024)
                .requestTimeout(Duration.ofSeconds(30))
                .start();
    }
}
