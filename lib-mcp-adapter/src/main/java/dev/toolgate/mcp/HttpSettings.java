package dev.toolgate.mcp;

import java.time.Duration;
import java.util.Set;

/**
 * The Streamable HTTP transport's settings, checked by {@link ToolgateMcpServer.HttpBuilder}.
 *
 * @param endpoint                the endpoint path
 * @param allowedOrigins          browser origins allowed besides loopback ones (lower case; {@code *} for any)
 * @param maxBodyBytes            the largest POST body accepted
 * @param sessionIdleTimeout      how long a session without requests and without an open stream lives
 * @param keepAliveInterval       how often open event streams get a keep-alive comment
 * @param requestTimeout          how long a POST waits for the SDK's answer
 * @param readTimeout             how long a request's line, headers and body may take to arrive (and a
 *                                client may take to accept one event of its GET stream)
 * @param maxWorkerThreads        the most requests served at once
 * @param maxQueuedRequests       the most requests waiting for a worker
 * @param maxSessionsPerPrincipal the most open sessions of one principal
 * @param maxSessions             the most open sessions in all
 * @param idleThreadKeepAlive     how long an idle worker or stream writer thread waits for work before it ends
 */
record HttpSettings(String endpoint, Set<String> allowedOrigins, int maxBodyBytes, Duration sessionIdleTimeout,
                    Duration keepAliveInterval, Duration requestTimeout, Duration readTimeout, int maxWorkerThreads,
                    int maxQueuedRequests, int maxSessionsPerPrincipal, int maxSessions, Duration idleThreadKeepAlive) {
}
