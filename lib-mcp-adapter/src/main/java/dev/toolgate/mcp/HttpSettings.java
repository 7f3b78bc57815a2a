package dev.toolgate.mcp;

import java.time.Duration;
import java.util.Set;

/**
 * The Streamable HTTP transport's settings, checked by {@link ToolgateMcpServer.HttpBuilder}.
 *
 * @param endpoint           the endpoint path
 * @param allowedOrigins     browser origins allowed besides loopback ones (lower case; {@code *} for any)
 * @param maxBodyBytes       the largest POST body accepted
 * @param sessionIdleTimeout how long a session without requests and without an open stream lives
 * @param keepAliveInterval  how often open event streams get a keep-alive comment
 * @param requestTimeout     how long a POST waits for the SDK's answer
 */
record HttpSettings(String endpoint, Set<String> allowedOrigins, int maxBodyBytes, Duration sessionIdleTimeout,
                    Duration keepAliveInterval, Duration requestTimeout) {
}
