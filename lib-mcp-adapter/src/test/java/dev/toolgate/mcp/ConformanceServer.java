package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import java.time.Duration;
import java.util.Optional;

/**
 * The conformance-shaped test tools ({@link MediaTools}, plus the tickets of {@link Fixtures}) and
 * catalog ({@link CatalogFixtures}) served over one of the two Streamable HTTP transports, for runs of the official MCP
 * conformance suite against each (see the module README): {@code standalone} (the hand-written
 * transport on the JDK's HTTP server) or {@code servlet} (the SDK's servlet transport on Jetty 12).
 * Bearer tokens as in {@link Fixtures#TOKENS}; the suite sends none, so a proxy in front adds one.
 * Prints {@code PORT <port>} once serving and stops when stdin ends.
 */
public final class ConformanceServer {

    /**
     * Sessions per principal: the suite runs every scenario as one principal (the proxy's token) and
     * keeps each scenario's event stream open, which exhausts the default of 16 before the last scenario.
     */
    private static final int SESSIONS = 64;

    private ConformanceServer() {
    }

    public static void main(String[] args) throws Exception {
        String transport = args.length > 0 ? args[0] : "standalone";
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).budget(ToolBudget.unlimited())
                .sweepInterval(Duration.ZERO).provider(MediaTools.tools()).provider(Fixtures.ticketTools(new Fixtures.Tickets()))
                .build()) {
            McpCatalog catalog = new CatalogFixtures(false).catalog;
            McpAuthenticator tokens = token -> Optional.ofNullable(Fixtures.TOKENS.get(token));
            ServedMcp served = switch (transport) {
                case "standalone" -> ServedMcp.standalone(ToolgateMcpServer.http(gate, tokens).port(port).maxSessionsPerPrincipal(SESSIONS).catalog(catalog).start());
                case "servlet" -> ServedMcp.jetty(ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(tokens))
                        .maxSessionsPerPrincipal(SESSIONS).catalog(catalog).build(),
                        200, 30_000, -1, port);
                default -> throw new IllegalArgumentException("standalone or servlet, not " + transport);
            };
            System.out.println("PORT " + served.port());
            System.out.flush();
            while (System.in.read() != -1) {
                // serve until stdin ends
            }
            served.close();
        }
        System.exit(0);
    }
}
