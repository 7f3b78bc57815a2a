package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.mcp.McpAuthenticator;
import dev.toolgate.mcp.ToolgateMcpServer;
import dev.toolgate.spi.InMemoryStore;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The server {@link ClientLatencyBenchmark} measures clients against, in a process of its own: a gate
 * with the trivial tools of {@link BenchTools} on an in-memory store, without a budget, served over
 * stdio ({@code --transport stdio}, as principal {@code bench-stdio}) or Streamable HTTP on a free
 * loopback port ({@code --transport http}: the standalone server on the JDK's HTTP server;
 * {@code --transport servlet}: the servlet endpoint on an embedded Jetty 12, see {@link JettyMcpServer}).
 * Over HTTP it prints {@code LISTENING <endpoint>} on stdout, and tokens {@code client-0-token} to
 * {@code client-63-token} are principals of their own. Runs until stdin ends (stdio) or the process is
 * killed (HTTP).
 */
public final class ClientBenchServer {

    /** How many HTTP principals (and tokens) there are. */
    static final int HTTP_PRINCIPALS = 64;

    private ClientBenchServer() {
    }

    public static void main(String[] args) throws Exception {
        String transport = args.length >= 2 && args[0].equals("--transport") ? args[1] : "stdio";
        Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .provider(new BenchTools().provider()).budget(ToolBudget.unlimited()).build();
        if (transport.equals("stdio")) {
            ToolgateMcpServer.stdio(gate, Principal.user("bench-stdio", BenchTools.RULE)).start().awaitTermination();
            gate.close();
            return;
        }
        Map<String, Principal> tokens = new LinkedHashMap<>();
        for (int i = 0; i < HTTP_PRINCIPALS; i++) {
            tokens.put(token(i), Principal.user("bench-client-" + i, BenchTools.RULE));
        }
        if (transport.equals("servlet")) {
            JettyMcpServer.Served served = JettyMcpServer.start("servlet", gate, McpAuthenticator.fixed(tokens), 64);
            System.out.println("LISTENING " + served.endpoint());
            System.out.flush();
            Thread.currentThread().join(); // until the process is killed
            return;
        }
        ToolgateMcpServer server = ToolgateMcpServer.http(gate, McpAuthenticator.fixed(tokens)).port(0)
                .maxSessionsPerPrincipal(64).start();
        System.out.println("LISTENING " + server.endpoint().orElseThrow());
        System.out.flush();
        server.awaitTermination();
    }

    static String token(int client) {
        return "client-" + (client % HTTP_PRINCIPALS) + "-token";
    }
}
