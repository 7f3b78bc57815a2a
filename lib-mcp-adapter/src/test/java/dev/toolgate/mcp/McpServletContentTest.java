package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import java.time.Duration;

/**
 * {@link McpContentTest} (text, image, audio, embedded resources and mixed content in tool results)
 * and, nested, {@link McpClientChannelTest} (progress, log messages, sampling and elicitation from a
 * tool, over HTTP and stdio) against the servlet endpoint on an embedded Jetty 12.
 */
class McpServletContentTest extends McpContentTest {

    @Override
    ServedMcp serve(Toolgate gate, McpAuthenticator authenticator) {
        return ServedMcp.jetty(ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(authenticator)).build());
    }

    /** The client channel over the servlet endpoint (its stdio cases run as in the parent suite). */
    @org.junit.jupiter.api.Nested
    class ClientChannel extends McpClientChannelTest {

        @Override
        ServedMcp serve(Toolgate gate, McpAuthenticator authenticator, Duration requestTimeout) {
            return ServedMcp.jetty(ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(authenticator))
                    .requestTimeout(requestTimeout).build());
        }
    }
}
