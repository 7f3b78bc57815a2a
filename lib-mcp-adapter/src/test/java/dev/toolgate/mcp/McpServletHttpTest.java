package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.policy.PermissionMode;

/**
 * The whole client-side behaviour suite of {@link McpHttpTest} (initialize, tools/list per principal,
 * call, propose and apply, errors, 429, elicitation, list_changed) against the servlet endpoint,
 * the SDK's servlet transport, on an embedded Jetty 12.
 */
class McpServletHttpTest extends McpHttpTest {

    @Override
    ServedMcp serve(Toolgate gate, McpAuthenticator authenticator, PermissionMode mode) {
        return ServedMcp.jetty(ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(authenticator))
                .permissionMode(mode).build());
    }
}
