package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a {@link McpServletEndpoint} ({@link ToolgateMcpServer#servlet}): the settings shared with
 * the other transports (permission mode, apply tool name, instructions, request timeout) plus the
 * endpoint's own. Threads, timeouts and connections are the servlet container's.
 */
public final class McpServletBuilder extends McpServerBuilder<McpServletBuilder> {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    private final McpRequestAuthenticator authenticator;
    private String endpoint = ToolgateMcpServer.DEFAULT_ENDPOINT;
    private Set<String> allowedOrigins = Set.of();
    private Set<String> allowedHosts = Set.of();
    private int maxBodyBytes = 1024 * 1024;
    private int maxSessionsPerPrincipal = 16;
    private int maxSessions = 1024;
    private Duration sessionIdleTimeout = Duration.ofHours(1);

    McpServletBuilder(Toolgate toolgate, McpRequestAuthenticator authenticator) {
        super(toolgate);
        this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
    }

    /** The path the servlet is mounted at (default {@value ToolgateMcpServer#DEFAULT_ENDPOINT}). */
    public McpServletBuilder endpoint(String path) {
        if (path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException("the endpoint path must start with '/'");
        }
        this.endpoint = path;
        return this;
    }

    /**
     * Browser origins allowed to call ({@code *} for any); requests without {@code Origin} are always
     * allowed, others get 403. Default: loopback origins only. The same rule as
     * {@link McpHttpBuilder#allowedOrigins}.
     */
    public McpServletBuilder allowedOrigins(String... origins) {
        this.allowedOrigins = Arrays.stream(origins).map(o -> o.strip().toLowerCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet());
        return this;
    }

    /**
     * Checks the {@code Host} header (a defence against DNS rebinding beside the {@code Origin} check):
     * these values are allowed, {@code name} (any port) or {@code name:port}, such as
     * {@code mcp.example.com}; and on a connection the container accepted on a loopback address,
     * {@code localhost}, {@code 127.0.0.1} and {@code [::1]} with that connection's port. A request with
     * no or several {@code Host} headers, or a malformed one, gets 400; with a name not allowed, 403;
     * both before authentication. Default: no check, since behind a reverse proxy on the same machine
     * the container sees loopback connections that carry the public name; {@code *} is the default
     * too. The standalone server's rule ({@link McpHttpBuilder#allowedHosts}) checks loopback by default.
     */
    public McpServletBuilder allowedHosts(String... hosts) {
        this.allowedHosts = HttpHosts.entries(hosts);
        return this;
    }

    /** The largest POST body accepted (default 1 MiB); larger bodies get 413. */
    public McpServletBuilder maxBodyBytes(int bytes) {
        if (bytes < 1024) {
            throw new IllegalArgumentException("maxBodyBytes must be at least 1024");
        }
        this.maxBodyBytes = bytes;
        return this;
    }

    /**
     * The most open sessions of one principal (default 16). Past it, {@code initialize} ends that
     * principal's least recently used idle session (no request in flight, no open stream); if none is
     * idle it is refused with 429.
     */
    public McpServletBuilder maxSessionsPerPrincipal(int sessions) {
        if (sessions < 1) {
            throw new IllegalArgumentException("maxSessionsPerPrincipal must be at least 1");
        }
        this.maxSessionsPerPrincipal = sessions;
        return this;
    }

    /**
     * The most open sessions in all (default 1,024). Past it, {@code initialize} ends the least
     * recently used idle session, whoever's; if none is idle it is refused with 503.
     */
    public McpServletBuilder maxSessions(int sessions) {
        if (sessions < 1) {
            throw new IllegalArgumentException("maxSessions must be at least 1");
        }
        this.maxSessions = sessions;
        return this;
    }

    /**
     * How long a session without requests stays usable and counts against the caps (default 1
     * hour); after it, its id gets 404 and the client starts a new session.
     */
    public McpServletBuilder sessionIdleTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("sessionIdleTimeout must be positive");
        }
        this.sessionIdleTimeout = timeout;
        return this;
    }

    /** Builds the endpoint; mount {@link McpServletEndpoint#servlet()} with async support at {@link McpServletEndpoint#path()}. */
    public McpServletEndpoint build() {
        if (maxSessionsPerPrincipal > maxSessions) {
            throw new IllegalArgumentException("maxSessionsPerPrincipal (" + maxSessionsPerPrincipal
                    + ") must not exceed maxSessions (" + maxSessions + ")");
        }
        ToolBridge bridge = new ToolBridge(toolgate, applyName(), permissionMode, null, requestTimeout, toolNames, clientConsent());
        McpJsonMapper mapper = mapper(bridge);
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider.builder()
                .jsonMapper(mapper)
                .mcpEndpoint(endpoint)
                .maxRequestSize(maxBodyBytes + 1) // the guard reads and checks the body first
                .contextExtractor(ServletGuard::context)
                .sessionSweepInterval(sessionIdleTimeout) // the SDK forgets sessions the guard ended
                .build();
        ServletSessions sessions = new ServletSessions(maxSessionsPerPrincipal, maxSessions, sessionIdleTimeout);
        CatalogDispatch catalogDispatch = catalogDispatch();
        // the SDK's server gets the transport through a channel that keeps its sessions, so tasks can ask users
        ServletTaskChannel channel = new ServletTaskChannel(transport, sessions::contains, maxSessions);
        McpAsyncServer server = server(McpServer.async(channel), bridge, mapper, catalogDispatch);
        bridge.attach(server);
        if (catalogDispatch != null) {
            catalogDispatch.attach(server, new CatalogDispatch.Sink() {
                @Override
                public void send(String sessionId, String method, Object params) {
                    try {
                        transport.notifyClient(sessionId, method, params).block(Duration.ofSeconds(10));
                    } catch (RuntimeException e) {
                        LOG.debug("Notification {} not delivered to session {}: {}", method, sessionId, e.toString());
                    }
                }

                @Override
                public boolean alive(String sessionId) {
                    return sessions.contains(sessionId);
                }
            });
        }
        ServletGuard guard = new ServletGuard(transport, authenticator, mapper, sessions, allowedOrigins, allowedHosts,
                maxBodyBytes, catalogDispatch, taskDispatch(bridge, mapper, channel));
        LOG.info("MCP servlet endpoint {} built (SDK servlet transport, permission mode {})", endpoint, permissionMode);
        return new McpServletEndpoint(server, bridge, guard, sessions, endpoint, catalogDispatch);
    }
}
