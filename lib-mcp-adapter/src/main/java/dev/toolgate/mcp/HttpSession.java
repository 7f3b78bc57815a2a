package dev.toolgate.mcp;

import io.modelcontextprotocol.spec.McpStreamableServerSession;

/** A Streamable HTTP session: the SDK's session, the principal that started it, and its GET stream. */
final class HttpSession {

    final McpStreamableServerSession mcp;
    final String principalKey;
    volatile long lastSeen = System.nanoTime();
    volatile HttpEventStream listening;

    HttpSession(McpStreamableServerSession mcp, String principalKey) {
        this.mcp = mcp;
        this.principalKey = principalKey;
    }

    String id() {
        return mcp.getId();
    }

    boolean streaming() {
        HttpEventStream stream = listening;
        return stream != null && !stream.closed();
    }

    void closeStream() {
        HttpEventStream stream = listening;
        if (stream != null) {
            stream.close();
        }
    }
}
