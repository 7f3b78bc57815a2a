package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import java.time.Duration;

/**
 * A stdio MCP server over the test tools, for tests that launch it as a subprocess the way an MCP
 * client does. Arguments: the principal (alice, bob, carol) and the budget in calls per minute.
 * It prints to System.out on purpose: the server must keep that off the protocol stream.
 */
public final class StdioTestServer {

    private StdioTestServer() {
    }

    public static void main(String[] args) throws Exception {
        Principal principal = Fixtures.TOKENS.get(args[0] + "-token");
        int budget = Integer.parseInt(args[1]);
        try (Toolgate gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.perPrincipal(budget, Duration.ofMinutes(1)))) {
            ToolgateMcpServer server = ToolgateMcpServer.stdio(gate, principal).start();
            System.out.println("this stray line must not reach the protocol stream");
            server.awaitTermination();
            server.close();
        }
        System.exit(0);
    }
}
