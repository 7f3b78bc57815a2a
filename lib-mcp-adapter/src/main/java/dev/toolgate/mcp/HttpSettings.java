package dev.toolgate.mcp;

import java.time.Duration;
import java.util.Set;

/**
 * The Streamable HTTP transport's settings, checked by {@link McpHttpBuilder}.
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
 * @param allowedHosts            {@code Host} names allowed besides the loopback defaults ({@link HttpHosts})
 * @param resourceMetadata        the RFC 9728 metadata to serve and name in 401s, or null
 * @param replayEvents            the most events a session keeps for replay
 * @param replayBytes             the most bytes of events a session keeps for replay
 * @param pollAfter               how long a POST waits for its answer before it ends its SSE stream and the
 *                                client resumes with GET and {@code Last-Event-ID}, or null for never
 * @param retry                   the {@code retry:} sent with the priming event of such a stream
 */
record HttpSettings(String endpoint, Set<String> allowedOrigins, int maxBodyBytes, Duration sessionIdleTimeout,
                    Duration keepAliveInterval, Duration requestTimeout, Duration readTimeout, int maxWorkerThreads,
                    int maxQueuedRequests, int maxSessionsPerPrincipal, int maxSessions, Duration idleThreadKeepAlive,
                    Set<String> allowedHosts, ProtectedResourceMetadata resourceMetadata, int replayEvents, long replayBytes,
                    Duration pollAfter, Duration retry) {
}
