package dev.toolgate.mcp;

import dev.toolgate.Toolgate;

/** A stdio MCP server over {@link MediaTools} for alice, launched as a subprocess by the tests. */
public final class MediaStdioServer {

    private MediaStdioServer() {
    }

    public static void main(String[] args) throws Exception {
        try (Toolgate gate = MediaTools.gate()) {
            ToolgateMcpServer server = ToolgateMcpServer.stdio(gate, Fixtures.ALICE).start();
            server.awaitTermination();
            server.close();
        }
        System.exit(0);
    }
}
