package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.policy.PermissionMode;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a {@link Toolgate}'s governed tools over the Model Context Protocol (protocol 2025-11-25,
 * official MCP Java SDK), over stdio or Streamable HTTP. The gate stays the only way in: the same
 * authorization, dry-run and consent, budget and audit apply as on any other transport, and the audit
 * records these calls with transport {@code mcp}.
 *
 * <pre>{@code
 * Toolgate gate = Toolgate.builder().build();
 * // a local assistant launches the host as a subprocess, acting as one user:
 * ToolgateMcpServer.stdio(gate, Principal.user("carol", "incident.incident.manage")).start().awaitTermination();
 * // or many clients over HTTP, each request's principal from its bearer token:
 * ToolgateMcpServer server = ToolgateMcpServer.http(gate, token -> sessions.principalFor(token))
 *         .port(8765)                        // bound to 127.0.0.1 unless bind(...) says otherwise
 *         .start();                          // serves http://127.0.0.1:8765/mcp until close()
 * }</pre>
 *
 * <h2>What a client sees</h2>
 * <ul>
 *   <li>{@code tools/list}: exactly the tools the resolver offers the principal, with their input JSON
 *       Schema, title, description and annotations from the effect (READ: {@code readOnlyHint};
 *       MUTATE: {@code destructiveHint: false}; DESTRUCTIVE: {@code destructiveHint: true};
 *       {@code openWorldHint} as declared), plus the apply tool ({@value #APPLY_TOOL}) whenever the
 *       principal can see at least one MUTATE or DESTRUCTIVE tool. Registering or removing tools later
 *       sends {@code notifications/tools/list_changed}.</li>
 *   <li>{@code tools/call} of a READ tool runs it; of a mutating tool returns the proposal (structured
 *       content: {@code status: "awaiting_operator"}, {@code token}, {@code summary}, {@code payload},
 *       {@code diff}, {@code expiresAt}, plus a text block with the same JSON). {@value #APPLY_TOOL}
 *       with {@code {"token": ...}} applies it. When the client declared the elicitation capability, a
 *       DESTRUCTIVE apply first asks the human ({@code elicitation/create}) and applies only on
 *       accept; otherwise the single-use token is the consent gate.</li>
 *   <li>With a {@link McpCatalog} ({@code .catalog(...)}): resources, resource templates, subscriptions,
 *       prompts and completion, each shown only to principals the same resolver allows; a hidden one
 *       answers exactly as an unknown one (see the module README).</li>
 * </ul>
 *
 * <h2>Errors</h2>
 * <table>
 *   <caption>How gate outcomes reach the client</caption>
 *   <tr><th>outcome</th><th>MCP answer</th></tr>
 *   <tr><td>unknown tool, or a tool the resolver hides from the principal</td>
 *       <td>JSON-RPC error -32602 "Unknown tool: invalid_tool_name" (indistinguishable)</td></tr>
 *   <tr><td>invalid arguments, dry-run validation failure</td>
 *       <td>{@code isError: true}, structured {@code {status: "invalid", kind: "validation", toolName,
 *       issues: [{path, message}], message}}</td></tr>
 *   <tr><td>forbidden (the gate refuses after the tool was offered, e.g. applying a token whose tool
 *       needs a rule the applier lacks or lost)</td>
 *       <td>{@code isError: true}, {@code {status: "forbidden", code: "forbidden", missingRules,
 *       message: "Forbidden: <tool> (missing permission: <rule>)"}}</td></tr>
 *   <tr><td>token malformed, forged, unknown, expired, used; proposal closed or stale; pending limit</td>
 *       <td>{@code isError: true}, {@code {status: "error", kind: "gate", code, message}}</td></tr>
 *   <tr><td>policy denial</td><td>{@code isError: true}, the {@code denied} result</td></tr>
 *   <tr><td>the tool failed or timed out</td>
 *       <td>{@code isError: true}, {@code {status: "failed", kind: "execution", callId, message}} (redacted)</td></tr>
 *   <tr><td>destructive apply declined in elicitation</td>
 *       <td>{@code isError: true}, {@code {status: "not_applied", kind: "consent", code: "declined"}}</td></tr>
 *   <tr><td>over budget</td>
 *       <td>JSON-RPC error {@value #RATE_LIMITED} "Rate limited", data {@code {retryAfterSeconds,
 *       retryAfterMillis, limit, windowSeconds}}; on Streamable HTTP also HTTP 429 with
 *       {@code Retry-After}</td></tr>
 * </table>
 *
 * <p>TCP_NODELAY (Streamable HTTP): without it, JDK 17's HTTP server makes every call after the first
 * on a kept-alive connection wait about 40 ms (it writes headers and body separately, and Nagle's
 * algorithm waits for the client's delayed ACK). The JDK turns it on only through the system property
 * {@code sun.net.httpserver.nodelay}, which it reads once per JVM, when its first HTTP server is
 * created; this class sets the property to {@code true} when it is first used, unless the host set it
 * (the host's value stands). Limitation: if a JDK {@code HttpServer} was created in the JVM before this
 * class was first used, the JDK has read the property already, and the first HTTP server start logs
 * one warning; then start the JVM with {@code -Dsun.net.httpserver.nodelay=true}, or use this class
 * before creating any other JDK HTTP server.
 *
 * <p>The server does not own the {@link Toolgate}: {@link #close()} stops serving, the host closes the gate.
 */
public final class ToolgateMcpServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    static {
        HttpNoDelay.ensure(); // as early as Toolgate's code runs: before the JDK reads sun.net.httpserver.nodelay
    }

    /** The default name of the apply tool. */
    public static final String APPLY_TOOL = "toolgate.apply";

    /**
     * The JSON-RPC error code for a call refused because the principal is over its budget. The error's
     * data holds {@code retryAfterSeconds} (whole seconds, at least 1), {@code retryAfterMillis},
     * {@code limit} and {@code windowSeconds}.
     */
    public static final int RATE_LIMITED = -32029;

    /** The default Streamable HTTP endpoint path. */
    public static final String DEFAULT_ENDPOINT = "/mcp";

    private static final Pattern TOOL_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private final McpAsyncServer server;
    private final ToolBridge bridge;
    private final HttpTransport http;
    private final String endpointPath;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch inputEnded;
    private final PrintStream restoreOut;
    private final CatalogDispatch catalog;

    private ToolgateMcpServer(McpAsyncServer server, ToolBridge bridge, HttpTransport http, String endpointPath,
                              CountDownLatch inputEnded, PrintStream restoreOut, CatalogDispatch catalog) {
        this.catalog = catalog;
        this.server = server;
        this.bridge = bridge;
        this.http = http;
        this.endpointPath = endpointPath;
        this.inputEnded = inputEnded;
        this.restoreOut = restoreOut;
    }

    /**
     * A server over standard input and output, every call made as {@code principal} (the user who
     * launched the client). stdout carries only protocol messages: by default {@link System#out} is
     * redirected to {@link System#err} while the server runs, so a stray print cannot corrupt the stream.
     */
    public static StdioBuilder stdio(Toolgate toolgate, Principal principal) {
        return new StdioBuilder(toolgate, principal);
    }

    /**
     * A Streamable HTTP server; each request's principal comes from its {@code Authorization: Bearer}
     * token through {@code authenticator}. Binds to 127.0.0.1 unless told otherwise.
     */
    public static HttpBuilder http(Toolgate toolgate, McpAuthenticator authenticator) {
        return new HttpBuilder(toolgate, authenticator);
    }

    /**
     * The MCP endpoint as a servlet, for a host's own servlet container (Spring Boot, Jetty, Tomcat):
     * the MCP SDK's servlet transport behind Toolgate's checks; each request's principal from
     * {@code authenticator} ({@link McpRequestAuthenticator#bearer} for bearer tokens). Needs
     * {@code jakarta.servlet-api} 6 on the classpath. See {@link McpServletEndpoint}.
     */
    public static McpServletBuilder servlet(Toolgate toolgate, McpRequestAuthenticator authenticator) {
        return new McpServletBuilder(toolgate, authenticator);
    }

    /** The HTTP endpoint, such as {@code http://127.0.0.1:8765/mcp}; empty for stdio. */
    public Optional<URI> endpoint() {
        if (http == null) {
            return Optional.empty();
        }
        InetSocketAddress address = http.address();
        String host = address.getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        return Optional.of(URI.create("http://" + host + ":" + address.getPort() + endpointPath));
    }

    /** The bound HTTP port, or -1 for stdio. */
    public int port() {
        return http == null ? -1 : http.address().getPort();
    }

    /** HTTP sessions with an open event stream; 0 for stdio. */
    int openStreams() {
        return http == null ? 0 : http.openStreams();
    }

    /** The SDK's server (for tests: to send notifications). */
    McpAsyncServer sdkServer() {
        return server;
    }

    /** HTTP sessions open now; 0 for stdio. */
    int openSessions() {
        return http == null ? 0 : http.sessions();
    }

    /** HTTP workers serving a request now; 0 for stdio. */
    int busyWorkers() {
        return http == null ? 0 : http.busyWorkers();
    }

    /** HTTP requests waiting for a worker now; 0 for stdio. */
    int queuedRequests() {
        return http == null ? 0 : http.queuedRequests();
    }

    /** Resource subscriptions held now (ended sessions' dropped first); 0 without a catalog. */
    int catalogSubscriptions() {
        return catalog == null ? 0 : catalog.subscriptionCount();
    }

    /**
     * Blocks until the server stops: for stdio when standard input ends (the client went away) or
     * {@link #close()} is called; for HTTP when {@link #close()} is called.
     */
    public void awaitTermination() throws InterruptedException {
        if (inputEnded == null) {
            stopped.await();
            return;
        }
        while (stopped.getCount() > 0 && !inputEnded.await(200, TimeUnit.MILLISECONDS)) {
            // wait for either
        }
    }

    /** Stops serving: ends sessions and releases the port or the streams. Does not close the gate. */
    @Override
    public void close() {
        if (stopped.getCount() == 0) {
            return;
        }
        stopped.countDown();
        bridge.detach();
        if (catalog != null) {
            catalog.close();
        }
        try {
            server.closeGracefully().block(Duration.ofSeconds(30));
        } catch (RuntimeException e) {
            LOG.debug("Closing the MCP server: {}", e.toString());
        }
        if (http != null) {
            http.stop();
        }
        if (restoreOut != null) {
            System.setOut(restoreOut);
        }
        LOG.info("MCP server stopped");
    }

    /** Settings shared by both transports. */
    public abstract static class Builder<B extends Builder<B>> {

        final Toolgate toolgate;
        PermissionMode permissionMode = PermissionMode.APPROVE;
        String applyToolName = APPLY_TOOL;
        boolean applyToolNamed;
        McpToolNames toolNames = McpToolNames.standard();
        String serverName = "toolgate";
        String serverVersion = "0.1.0";
        String instructions;
        Duration requestTimeout = Duration.ofMinutes(5);
        McpCatalog catalog;

        Builder(Toolgate toolgate) {
            this.toolgate = Objects.requireNonNull(toolgate, "toolgate");
        }

        @SuppressWarnings("unchecked")
        private B self() {
            return (B) this;
        }

        /**
         * The conversation's permission mode for every call (default APPROVE: every mutation waits for
         * apply; AUTO applies MUTATE proposals at once, never DESTRUCTIVE ones).
         */
        public B permissionMode(PermissionMode mode) {
            this.permissionMode = Objects.requireNonNull(mode, "mode");
            return self();
        }

        /** The apply tool's name (default {@value #APPLY_TOOL}); 1-64 characters of {@code A-Za-z0-9_.-}. */
        public B applyToolName(String name) {
            if (name == null || !TOOL_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("applyToolName must be 1-64 characters of A-Za-z0-9_.-, got '" + name + "'");
            }
            this.applyToolName = name;
            this.applyToolNamed = true;
            return self();
        }

        /**
         * How the gate's tool names become MCP tool names (default {@link McpToolNames#standard()}), such
         * as {@code toolNames(McpToolNames.replacing('.', '_'))} for clients that refuse dots. Calls by the
         * MCP name run the gate's tool. Two tools mapped to one name, or a name outside MCP's rule, make
         * {@code start()} throw {@link IllegalStateException} naming both tools; for tools registered
         * later the offending tool is left out with an ERROR log. Unless {@link #applyToolName} is set,
         * the apply tool's name goes through the mapping too ({@code toolgate_apply}).
         */
        public B toolNames(McpToolNames names) {
            this.toolNames = Objects.requireNonNull(names, "names");
            return self();
        }

        /** The apply tool's name: as set, else {@value #APPLY_TOOL} through the name mapping. */
        String applyName() {
            if (applyToolNamed) {
                return applyToolName;
            }
            String mapped = toolNames.mcpName(APPLY_TOOL);
            if (!McpToolNames.isValid(mapped)) {
                throw new IllegalStateException("toolNames maps " + APPLY_TOOL + " to '" + mapped
                        + "', which is not 1-128 characters of A-Za-z0-9_.-; set applyToolName");
            }
            return mapped;
        }

        /** The name and version the server reports in {@code initialize} (default {@code toolgate 0.1.0}). */
        public B serverInfo(String name, String version) {
            this.serverName = Objects.requireNonNull(name, "name");
            this.serverVersion = Objects.requireNonNull(version, "version");
            return self();
        }

        /** Instructions for the model sent in {@code initialize} (default: how proposals and apply work). */
        public B instructions(String instructions) {
            this.instructions = instructions;
            return self();
        }

        /** How long to wait for the client to answer a request of the server, such as an elicitation (default 5 minutes). */
        public B requestTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("requestTimeout must be positive");
            }
            this.requestTimeout = timeout;
            return self();
        }

        /**
         * Resources, resource templates and prompts to serve next to the tools, each shown only to the
         * principals the gate's resolver allows (see {@link McpCatalog}). Default: none, and the server
         * advertises no resources, prompts or completions.
         */
        public B catalog(McpCatalog catalog) {
            this.catalog = Objects.requireNonNull(catalog, "catalog");
            return self();
        }

        /** The catalog's dispatcher for one server, or null without a catalog. */
        CatalogDispatch catalogDispatch() {
            return catalog == null ? null : new CatalogDispatch(catalog, toolgate.resolver());
        }

        /**
         * The SDK server for either transport, configured the same way: the gate's tools behind the
         * bridge. Built from asynchronous specifications so that the list filter runs on the calling
         * thread (see {@link ToolBridge}).
         */
        McpAsyncServer server(McpServer.AsyncSpecification<?> spec, ToolBridge bridge, McpJsonMapper mapper,
                              CatalogDispatch catalogDispatch) {
            McpSchema.ServerCapabilities.Builder capabilities = McpSchema.ServerCapabilities.builder().tools(true).logging();
            return spec.serverInfo(serverName, serverVersion)
                    .instructions(instructionsOrDefault())
                    .capabilities((catalogDispatch == null ? capabilities : catalogDispatch.advertise(capabilities)).build())
                    .validateToolInputs(false)
                    .requestTimeout(requestTimeout)
                    .jsonMapper(mapper)
                    .tools(bridge.specifications())
                    .addToolFilter(bridge.filter())
                    .build();
        }

        String instructionsOrDefault() {
            return instructions != null ? instructions
                    : "Tools that only read run directly. Tools that change something never run directly: they return a "
                    + "proposal with status awaiting_operator, a summary, a diff and a token. Show the user the summary and "
                    + "diff; only after they agree, call " + applyName() + " with the token. Results with isError true "
                    + "explain what to fix.";
        }
    }

    /** Builds a stdio server. */
    public static final class StdioBuilder extends Builder<StdioBuilder> {

        private final Principal principal;
        private InputStream in;
        private OutputStream out;
        private boolean redirectSystemOut = true;
        private int maxMessageBytes = 4 * 1024 * 1024;

        private StdioBuilder(Toolgate toolgate, Principal principal) {
            super(toolgate);
            this.principal = Objects.requireNonNull(principal, "principal");
        }

        /** Streams to serve instead of the process's stdin and stdout (then nothing is redirected). */
        public StdioBuilder streams(InputStream in, OutputStream out) {
            this.in = Objects.requireNonNull(in, "in");
            this.out = Objects.requireNonNull(out, "out");
            return this;
        }

        /** Whether to point {@link System#out} at {@link System#err} while serving the real stdout (default true). */
        public StdioBuilder redirectSystemOut(boolean redirect) {
            this.redirectSystemOut = redirect;
            return this;
        }

        /** The longest message line accepted (default 4 MiB); longer lines get a JSON-RPC error. */
        public StdioBuilder maxMessageBytes(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxMessageBytes must be at least 1024");
            }
            this.maxMessageBytes = bytes;
            return this;
        }

        /** Starts serving on a background thread; see {@link ToolgateMcpServer#awaitTermination()}. */
        public ToolgateMcpServer start() {
            InputStream input = in != null ? in : System.in;
            OutputStream output = out;
            PrintStream restore = null;
            if (output == null) {
                output = new FileOutputStream(FileDescriptor.out);
                if (redirectSystemOut) {
                    restore = System.out;
                    System.out.flush();
                    System.setOut(System.err);
                }
            }
            McpJsonMapper mapper = McpJsonDefaults.getMapper();
            StdioOutput counted = new StdioOutput(output);
            StdioInput guarded = new StdioInput(input, counted, mapper, maxMessageBytes);
            StdioSerialSends transport = new StdioSerialSends(
                    new StdioServerTransportProvider(mapper, guarded, counted, maxMessageBytes));
            ToolBridge bridge = new ToolBridge(toolgate, applyName(), permissionMode, principal, requestTimeout, toolNames);
            CatalogDispatch catalogDispatch = catalogDispatch();
            if (catalogDispatch != null) { // before the SDK's transport starts reading
                guarded.route(catalogDispatch.stdioRoute(principal, transport, mapper));
            }
            McpAsyncServer server;
            try {
                server = server(McpServer.async(transport), bridge, mapper, catalogDispatch);
            } catch (RuntimeException e) {
                if (restore != null) {
                    System.setOut(restore); // a name collision, say: nothing serves, so stdout is the host's again
                }
                throw e;
            }
            bridge.attach(server);
            if (catalogDispatch != null) {
                catalogDispatch.attach(server, transport);
            }
            LOG.info("MCP server on stdio for {} ({} tool(s) visible, permission mode {})", principal.key(),
                    toolgate.resolveTools(principal).size(), permissionMode);
            return new ToolgateMcpServer(server, bridge, null, null, guarded.eof(), restore, catalogDispatch);
        }
    }

    /** Builds a Streamable HTTP server. */
    public static final class HttpBuilder extends Builder<HttpBuilder> {

        private final McpAuthenticator authenticator;
        private String host = "127.0.0.1";
        private int port;
        private String endpoint = DEFAULT_ENDPOINT;
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

        private HttpBuilder(Toolgate toolgate, McpAuthenticator authenticator) {
            super(toolgate);
            this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
        }

        /** The port (default 0: any free port; see {@link ToolgateMcpServer#port()}). */
        public HttpBuilder port(int port) {
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
        public HttpBuilder bind(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /** The endpoint path (default {@value ToolgateMcpServer#DEFAULT_ENDPOINT}). */
        public HttpBuilder endpoint(String path) {
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
        public HttpBuilder allowedOrigins(String... origins) {
            this.allowedOrigins = Arrays.stream(origins).map(o -> o.strip().toLowerCase(Locale.ROOT))
                    .collect(Collectors.toUnmodifiableSet());
            return this;
        }

        /** The largest POST body accepted (default 1 MiB); larger bodies get 413. */
        public HttpBuilder maxBodyBytes(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxBodyBytes must be at least 1024");
            }
            this.maxBodyBytes = bytes;
            return this;
        }

        /** How long a session without requests and without an open SSE stream lives (default 1 hour). */
        public HttpBuilder sessionIdleTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("sessionIdleTimeout must be positive");
            }
            this.sessionIdleTimeout = timeout;
            return this;
        }

        /** How often open SSE streams get a keep-alive comment (default 25 seconds). */
        public HttpBuilder keepAliveInterval(Duration interval) {
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
        public HttpBuilder readTimeout(Duration timeout) {
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
        public HttpBuilder maxWorkerThreads(int threads) {
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
        public HttpBuilder maxQueuedRequests(int requests) {
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
        public HttpBuilder maxSessionsPerPrincipal(int sessions) {
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
        public HttpBuilder maxSessions(int sessions) {
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
        public HttpBuilder allowedHosts(String... hosts) {
            for (String host : hosts) {
                if (host == null || !(host.equals("*") || host.matches("([A-Za-z0-9._-]{1,253}|\\[[0-9A-Fa-f:.]{2,45}])(:[0-9]{1,5})?"))) {
                    throw new IllegalArgumentException("allowedHosts entries must be name, name:port, [ipv6], [ipv6]:port or *, got '"
                            + host + "'");
                }
            }
            this.allowedHosts = Arrays.stream(hosts).map(h -> h.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
            return this;
        }

        /**
         * Serves this OAuth 2.0 Protected Resource Metadata (RFC 9728) at
         * {@code /.well-known/oauth-protected-resource} (and its path-suffixed forms) and names it in
         * {@code WWW-Authenticate} of every 401. Default: none (404 there; 401s carry {@code Bearer realm="toolgate"}).
         */
        public HttpBuilder protectedResourceMetadata(ProtectedResourceMetadata metadata) {
            this.resourceMetadata = Objects.requireNonNull(metadata, "metadata");
            return this;
        }

        /**
         * How many events, and how many bytes of them (counted as two per character), each session keeps
         * so that a client that lost a stream can resume it with {@code Last-Event-ID} (default 256
         * events, 512 KiB); the oldest go first. Worst case memory: {@code maxSessions} times {@code bytes}.
         */
        public HttpBuilder replayBuffer(int events, long bytes) {
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
        public HttpBuilder ssePolling(Duration after, Duration retry) {
            if (after == null || after.isNegative() || retry == null || retry.isNegative() || retry.isZero()) {
                throw new IllegalArgumentException("ssePolling needs a non-negative time and a positive retry");
            }
            this.pollAfter = after;
            this.retry = retry;
            return this;
        }

        /** How long an idle worker or stream writer thread lives (default 30 s); for tests. */
        HttpBuilder idleThreadKeepAlive(Duration keepAlive) {
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
            McpJsonMapper mapper = McpJsonDefaults.getMapper();
            if (maxSessionsPerPrincipal > maxSessions) {
                throw new IllegalArgumentException("maxSessionsPerPrincipal (" + maxSessionsPerPrincipal
                        + ") must not exceed maxSessions (" + maxSessions + ")");
            }
            HttpTransport transport = new HttpTransport(mapper, authenticator, new HttpSettings(endpoint,
                    allowedOrigins, maxBodyBytes, sessionIdleTimeout, keepAliveInterval,
                    requestTimeout.plus(Duration.ofMinutes(30)), readTimeout, maxWorkerThreads, maxQueuedRequests,
                    maxSessionsPerPrincipal, maxSessions, idleThreadKeepAlive, allowedHosts, resourceMetadata, replayEvents,
                    replayBytes, pollAfter, retry));
            ToolBridge bridge = new ToolBridge(toolgate, applyName(), permissionMode, null, requestTimeout, toolNames);
            CatalogDispatch catalogDispatch = catalogDispatch();
            transport.serveCatalog(catalogDispatch);
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
}
