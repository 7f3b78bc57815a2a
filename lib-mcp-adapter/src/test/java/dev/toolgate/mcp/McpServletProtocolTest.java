package dev.toolgate.mcp;

import dev.toolgate.Toolgate;

/**
 * {@link McpHttpProtocolTest}'s wire-level checks (authentication, origins, malformed input, headers,
 * body limit, sessions, event stream, 429) against the servlet endpoint on an embedded Jetty 12.
 */
class McpServletProtocolTest extends McpHttpProtocolTest {

    @Override
    ServedMcp serve(Toolgate gate, McpAuthenticator authenticator, Options options) {
        McpServletBuilder builder = ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(authenticator))
                .maxBodyBytes(options.maxBodyBytes());
        if (options.origins().length > 0) {
            builder.allowedOrigins(options.origins());
        }
        if (options.sessionIdle() != null) {
            builder.sessionIdleTimeout(options.sessionIdle());
        }
        return ServedMcp.jetty(builder.build());
    }

    /** Outside the servlet's mapping Jetty answers, not Toolgate: 405 for a POST nothing is mapped to. */
    @Override
    int statusOutsideTheEndpoint() {
        return 405;
    }
}
