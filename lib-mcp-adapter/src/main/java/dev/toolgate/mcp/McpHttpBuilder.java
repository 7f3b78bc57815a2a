package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds a Streamable HTTP MCP server; see {@link ToolgateMcpServer#http(Toolgate, McpAuthenticator)}. */
public final class McpHttpBuilder extends McpServerBuilder<McpHttpBuilder> {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    private final McpAuthenticator authenticator;
    private String host = "127.0.0.1";
    private int port;
    private String endpoint = ToolgateMcpServer.DEFAULT_ENDPOINT;
    private Set<String> allowedOrigins = Set.of();
    private int maxBodyBytes = 1024 * 1024;
    private Duration sessionIdleTimeout = Duration.ofHours(1);
    private Duration keepAliveInterval = Duration.ofSeconds(25);
    private Duration readTimeout = Duration.ofSeconds(10);
    private int maxWorkerThreads = 64;
    private int maxQueuedRequests = 256;
    private int maxSessionsPerPrincipal = 16;
    private int maxSessions = 1024;
    private Duration idleThreadKeepAlive = Duration.ofSeconds(30);
    private Set<String> allowedHosts = Set.of();
    private ProtectedResourceMetadata resourceMetadata;
    private int replayEvents = 256;
    private long replayBytes = 512 * 1024;
    private Duration pollAfter;
    private Duration retry = Duration.ofSeconds(1);

    McpHttpBuilder(Toolgate toolgate, McpAuthenticator authenticator) {
        super(toolgate);
        this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
    }

    /** The port (default 0: any free port; see {@link ToolgateMcpServer#port()}). */
    public McpHttpBuilder port(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0-65535");
        }
        this.port = port;
        return this;
    }

    /**
     * The address to listen on (default {@code 127.0.0.1}, so only this machine can connect). Use
     * {@code 0.0.0.0} only behind TLS and with a real authenticator.
     */
    public McpHttpBuilder bind(String host) {
        this.host = Objects.requireNonNull(host, "host");
        return this;
    }

    /** The endpoint path (default {@value ToolgateMcpServer#DEFAULT_ENDPOINT}). */
    public McpHttpBuilder endpoint(String path) {
        if (path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException("the endpoint path must start with '/'");
        }
        this.endpoint = path;
        return this;
    }

    /**
     * Browser origins allowed to call, such as {@code https://assistant.example.com} ({@code *} for
     * any). Requests without an {@code Origin} header (desktop clients, servers) are always allowed;
     * a request with any other origin gets 403. Default: loopback origins only
     * ({@code http(s)://localhost|127.0.0.1|[::1]} on any port).
     */
    public McpHttpBuilder allowedOrigins(String... origins) {
        this.allowedOrigins = Arrays.stream(origins).map(o -> o.strip().toLowerCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet());
        return this;
    }

    /** The largest POST body accepted (default 1 MiB); larger bodies get 413. */
    public McpHttpBuilder maxBodyBytes(int bytes) {
        if (bytes < 1024) {
            throw new IllegalArgumentException("maxBodyBytes must be at least 1024");
        }
        this.maxBodyBytes = bytes;
        return this;
    }

    /** How long a session without requests and without an open SSE stream lives (default 1 hour). */
    public McpHttpBuilder sessionIdleTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("sessionIdleTimeout must be positive");
        }
        this.sessionIdleTimeout = timeout;
        return this;
    }

    /** How often open SSE streams get a keep-alive comment (default 25 seconds). */
    public McpHttpBuilder keepAliveInterval(Duration interval) {
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("keepAliveInterval must be positive");
        }
        this.keepAliveInterval = interval;
        return this;
    }

    /**
     * How long a request's line, headers and body may take to arrive, counted from its first byte
     * (default 10 seconds; time in the authenticator does not count). A request that has not
     * arrived by then loses its connection, and its worker is free. The same time bounds each
     * event a client's GET stream must take; a stream that stalls longer is closed.
     */
    public McpHttpBuilder readTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("readTimeout must be positive");
        }
        this.readTimeout = timeout;
        return this;
    }

    /**
     * The most requests served at once (default 64): one worker thread each, for as long as the
     * request runs, a tool call included. Open GET streams hold no worker.
     */
    public McpHttpBuilder maxWorkerThreads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("maxWorkerThreads must be at least 1");
        }
        this.maxWorkerThreads = threads;
        return this;
    }

    /**
     * The most requests waiting for a worker (default 256). Beyond that a request is answered 503
     * with {@code Retry-After: 1}, or, when even that cannot keep up, its connection is closed.
     */
    public McpHttpBuilder maxQueuedRequests(int requests) {
        if (requests < 1) {
            throw new IllegalArgumentException("maxQueuedRequests must be at least 1");
        }
        this.maxQueuedRequests = requests;
        return this;
    }

    /**
     * The most open sessions of one principal (default 16). Past it, {@code initialize} ends that
     * principal's least recently used idle session (no request in flight, no open stream); if none
     * is idle it is refused with 429.
     */
    public McpHttpBuilder maxSessionsPerPrincipal(int sessions) {
        if (sessions < 1) {
            throw new IllegalArgumentException("maxSessionsPerPrincipal must be at least 1");
        }
        this.maxSessionsPerPrincipal = sessions;
        return this;
    }

    /**
     * The most open sessions in all (default 1,024). Past it, {@code initialize} ends the server's
     * least recently used idle session, whoever's; if none is idle it is refused with 503.
     */
    public McpHttpBuilder maxSessions(int sessions) {
        if (sessions < 1) {
            throw new IllegalArgumentException("maxSessions must be at least 1");
        }
        this.maxSessions = sessions;
        return this;
    }

    /**
     * {@code Host} header values allowed besides the loopback defaults: {@code name} (any port) or
     * {@code name:port}, such as {@code mcp.example.com}; {@code *} turns the check off. A request
     * with no or several {@code Host} headers, or a malformed one, gets 400; with a name not allowed,
     * 403; both before authentication (a defence against DNS rebinding). Default: bound to loopback,
     * {@code localhost}, {@code 127.0.0.1}, {@code [::1]} with the bound port; bound elsewhere, no check.
     */
    public McpHttpBuilder allowedHosts(String... hosts) {
        this.allowedHosts = HttpHosts.entries(hosts);
        return this;
    }

    /**
     * Serves this OAuth 2.0 Protected Resource Metadata (RFC 9728) at
     * {@code /.well-known/oauth-protected-resource} (and its path-suffixed forms) and names it in
     * {@code WWW-Authenticate} of every 401. Default: none (404 there; 401s carry {@code Bearer realm="toolgate"}).
     */
    public McpHttpBuilder protectedResourceMetadata(ProtectedResourceMetadata metadata) {
        this.resourceMetadata = Objects.requireNonNull(metadata, "metadata");
        return this;
    }

    /**
     * How many events, and how many bytes of them (counted as two per character), each session keeps
     * so that a client that lost a stream can resume it with {@code Last-Event-ID} (default 256
     * events, 512 KiB); the oldest go first. Worst case memory: {@code maxSessions} times {@code bytes}.
     */
    public McpHttpBuilder replayBuffer(int events, long bytes) {
        if (events < 1 || bytes < 1024) {
            throw new IllegalArgumentException("replayBuffer needs at least 1 event and 1024 bytes, got " + events
                    + " events and " + bytes + " bytes");
        }
        this.replayEvents = events;
        this.replayBytes = bytes;
        return this;
    }

    /**
     * SSE polling (MCP 2025-11-25): a POST whose response has not come within {@code after} is
     * answered with an event stream that carries a priming event ({@code retry: <retry>}) and then
     * closes; the client resumes with GET and {@code Last-Event-ID} and gets the response there. It
     * frees the connection (and its worker) during long tool calls. Default: off. {@code retry} is also
     * sent on every stream's priming event (default 1 s).
     */
    public McpHttpBuilder ssePolling(Duration after, Duration retry) {
        if (after == null || after.isNegative() || retry == null || retry.isNegative() || retry.isZero()) {
            throw new IllegalArgumentException("ssePolling needs a non-negative time and a positive retry");
        }
        this.pollAfter = after;
        this.retry = retry;
        return this;
    }

    /** How long an idle worker or stream writer thread lives (default 30 s); for tests. */
    McpHttpBuilder idleThreadKeepAlive(Duration keepAlive) {
        if (keepAlive == null || keepAlive.isNegative() || keepAlive.isZero()) {
            throw new IllegalArgumentException("idleThreadKeepAlive must be positive");
        }
        this.idleThreadKeepAlive = keepAlive;
        return this;
    }

    /**
     * Binds and starts serving.
     *
     * @throws UncheckedIOException if the address cannot be bound
     */
    public ToolgateMcpServer start() {
        if (maxSessionsPerPrincipal > maxSessions) {
            throw new IllegalArgumentException("maxSessionsPerPrincipal (" + maxSessionsPerPrincipal
                    + ") must not exceed maxSessions (" + maxSessions + ")");
        }
        ToolBridge bridge = new ToolBridge(toolgate, applyName(), permissionMode, null, requestTimeout, toolNames, clientConsent());
        McpJsonMapper mapper = mapper(bridge);
        HttpTransport transport = new HttpTransport(mapper, authenticator, new HttpSettings(endpoint,
                allowedOrigins, maxBodyBytes, sessionIdleTimeout, keepAliveInterval,
                requestTimeout.plus(Duration.ofMinutes(30)), readTimeout, maxWorkerThreads, maxQueuedRequests,
                maxSessionsPerPrincipal, maxSessions, idleThreadKeepAlive, allowedHosts, resourceMetadata, replayEvents,
                replayBytes, pollAfter, retry));
        CatalogDispatch catalogDispatch = catalogDispatch();
        transport.serveCatalog(catalogDispatch);
        transport.serveTasks(taskDispatch(bridge, mapper, transport));
        McpAsyncServer server = server(McpServer.async(transport), bridge, mapper, catalogDispatch);
        try {
            transport.start(new InetSocketAddress(InetAddress.getByName(host), port));
        } catch (IOException e) {
            server.close();
            throw new UncheckedIOException("Cannot serve MCP on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        bridge.attach(server);
        if (catalogDispatch != null) {
            catalogDispatch.attach(server, transport);
        }
        ToolgateMcpServer started = new ToolgateMcpServer(server, bridge, transport, endpoint, null, null, catalogDispatch);
        LOG.info("MCP server on {} (Streamable HTTP, permission mode {})", started.endpoint().orElseThrow(), permissionMode);
        return started;
    }
}
