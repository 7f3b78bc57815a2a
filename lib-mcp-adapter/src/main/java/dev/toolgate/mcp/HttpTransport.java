package dev.toolgate.mcp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.toolgate.access.Principal;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The MCP Streamable HTTP transport (protocol 2025-11-25) on the JDK's built-in
 * {@link HttpServer}: one endpoint taking POST ({@link HttpPost}: one JSON-RPC message per request),
 * GET ({@link HttpGet}: the session's SSE stream for server notifications and requests) and DELETE
 * ({@link HttpDelete}: end the session).
 *
 * <p>Every request passes, in order: the {@code Host} header ({@link HttpHosts}: 400, 403), the RFC 9728
 * document when configured ({@link HttpResourceMetadata}), the endpoint path (404), the {@code Origin}
 * check (403), the bearer token (401 with {@code WWW-Authenticate}), the method (405), then the verb's
 * own checks ({@link HttpChecks}). This class owns the lifecycle and the dispatch by verb; {@link HttpEdge}
 * catches whatever is thrown while serving a request. Limits: a bounded pool of workers under a read
 * timeout ({@link HttpWorkers}, {@link HttpWatchdog}), sessions capped per principal and in total
 * ({@link HttpSessions}). TCP_NODELAY, without which every call on a kept-alive connection waits
 * about 40 ms: {@link HttpNoDelay}.
 */
final class HttpTransport implements McpStreamableServerTransportProvider, CatalogDispatch.Sink, TaskConsent.Channel {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    static final List<String> PROTOCOL_VERSIONS = List.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25");

    /** The {@code Retry-After} of a 503 for a saturated server, in seconds. */
    static final int BUSY_RETRY_AFTER_SECONDS = 1;

    /** The prefix of the names of this transport's threads; the port and a role follow. */
    static final String THREAD_PREFIX = "toolgate-mcp-";

    private final HttpSettings settings;
    private final HttpResponses responses;
    private final HttpSessions sessions;
    private final HttpChecks checks;
    private volatile McpStreamableServerSession.Factory sessionFactory;
    private volatile boolean closing;
    private HttpServer server;
    private HttpWatchdog watchdog;
    private HttpWorkers workers;
    private ThreadPoolExecutor writers;
    private ScheduledExecutorService housekeeping;
    private HttpPost post;
    private HttpGet get;
    private HttpDelete delete;
    private CatalogDispatch catalog;
    private TaskDispatch tasks;
    private HttpHosts hosts;
    private HttpResourceMetadata metadata;

    HttpTransport(McpJsonMapper mapper, McpAuthenticator authenticator, HttpSettings settings) {
        this.settings = settings;
        this.responses = new HttpResponses(mapper);
        this.sessions = new HttpSessions(settings.maxSessionsPerPrincipal(), settings.maxSessions());
        this.checks = new HttpChecks(settings, authenticator, responses, sessions);
    }

    // ------------------------------------------------------------------------------------ lifecycle

    void start(InetSocketAddress address) throws IOException {
        HttpNoDelay.report();
        server = HttpServer.create(address, 0);
        hosts = new HttpHosts(server.getAddress(), settings.allowedHosts());
        if (settings.resourceMetadata() != null) {
            metadata = new HttpResourceMetadata(settings.resourceMetadata(), settings.endpoint(), responses);
        }
        String name = THREAD_PREFIX + "%s-" + server.getAddress().getPort();
        watchdog = new HttpWatchdog(settings.readTimeout(), daemon(String.format(name, "watchdog")));
        workers = new HttpWorkers(settings.maxWorkerThreads(), settings.maxQueuedRequests(), settings.readTimeout(),
                settings.idleThreadKeepAlive(), watchdog, daemon(String.format(name, "http")), daemon(String.format(name, "http-busy")));
        // each open stream has at most one write in progress, so one thread per stream is the most needed
        writers = new ThreadPoolExecutor(0, settings.maxSessions() + 16, settings.idleThreadKeepAlive().toNanos(), TimeUnit.NANOSECONDS,
                new SynchronousQueue<>(), daemon(String.format(name, "sse")));
        post = new HttpPost(settings, checks, responses, sessions, () -> sessionFactory, catalog, tasks, watchdog);
        get = new HttpGet(checks, responses, writers, watchdog, settings.readTimeout(), settings.retry());
        delete = new HttpDelete(checks, sessions);
        server.setExecutor(workers);
        server.createContext("/", new HttpEdge(responses, this::dispatch));
        housekeeping = Executors.newSingleThreadScheduledExecutor(daemon(String.format(name, "sessions")));
        long every = Math.max(1, settings.keepAliveInterval().toMillis());
        housekeeping.scheduleWithFixedDelay(() -> sessions.housekeeping(settings.sessionIdleTimeout()), every, every,
                TimeUnit.MILLISECONDS);
        server.start();
    }

    /** Answers the catalog's methods with {@code dispatch} (before {@link #start}). */
    void serveCatalog(CatalogDispatch dispatch) {
        this.catalog = dispatch;
    }

    /**
     * Asks the user of a session, for a task: on its GET stream (the client's own requests to the
     * server's requests arrive as POSTed responses, which the SDK's session matches). Empty without an
     * open GET stream or when the client declared no elicitation.
     */
    @Override
    public Optional<McpSchema.ElicitResult> elicit(String sessionId, java.util.Map<String, Object> request,
                                                           Duration timeout) {
        HttpSession session = sessions.get(sessionId);
        if (session == null || !session.elicits || session.listening == null) {
            return Optional.empty();
        }
        return TaskConsent.elicit(session.mcp, request, timeout);
    }

    /** Answers the task requests with {@code dispatch} (before {@link #start}); null: none. */
    void serveTasks(TaskDispatch dispatch) {
        this.tasks = dispatch;
    }

    @Override
    public void send(String sessionId, String method, Object params) {
        HttpSession session = sessions.get(sessionId);
        if (session != null) {
            notify(session, method, params);
        }
    }

    @Override
    public boolean alive(String sessionId) {
        return sessions.get(sessionId) != null;
    }

    InetSocketAddress address() {
        return server.getAddress();
    }

    /** How many sessions have an open event stream (for tests and diagnostics). */
    int openStreams() {
        return sessions.openStreams();
    }

    /** Sessions open now (for tests and diagnostics). */
    int sessions() {
        return sessions.size();
    }

    /** Workers serving a request now (for tests and diagnostics). */
    int busyWorkers() {
        return workers == null ? 0 : workers.busy();
    }

    /** Requests waiting for a worker now (for tests and diagnostics). */
    int queuedRequests() {
        return workers == null ? 0 : workers.queued();
    }

    void stop() {
        closing = true;
        if (housekeeping != null) {
            housekeeping.shutdownNow();
        }
        sessions.closeAll(false);
        if (server != null) {
            server.stop(0);
        }
        if (workers != null) {
            workers.shutdownNow();
        }
        if (writers != null) {
            writers.shutdownNow();
        }
        if (watchdog != null) {
            watchdog.close();
        }
    }

    @Override
    public List<String> protocolVersions() {
        return PROTOCOL_VERSIONS;
    }

    @Override
    public void setSessionFactory(McpStreamableServerSession.Factory sessionFactory) {
        this.sessionFactory = sessionFactory;
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return Mono.fromRunnable(() -> sessions.all().forEach(session -> notify(session, method, params)));
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return Mono.fromRunnable(() -> {
            HttpSession session = sessions.get(sessionId);
            if (session != null) {
                notify(session, method, params);
            }
        });
    }

    private static void notify(HttpSession session, String method, Object params) {
        try {
            session.mcp.sendNotification(method, params).block(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            LOG.debug("Notification {} not delivered to session {}: {}", method, session.id(), e.toString());
        }
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(() -> {
            closing = true;
            sessions.closeAll(true);
        });
    }

    // ------------------------------------------------------------------------------------ dispatch

    private void dispatch(HttpExchange exchange) throws IOException {
        if (HttpWorkers.overloaded()) {
            busy(exchange);
            return;
        }
        if (!checks.host(exchange, hosts)) {
            return;
        }
        String path = exchange.getRequestURI().getPath();
        if (metadata != null && metadata.serves(path)) {
            metadata.handle(exchange);
            return;
        }
        if (!settings.endpoint().equals(path)) {
            HttpResponses.sendStatus(exchange, 404);
            return;
        }
        if (closing) {
            responses.sendError(exchange, 503, null, JsonRpc.INTERNAL_ERROR, "The server is shutting down");
            return;
        }
        if (!checks.origin(exchange)) {
            return;
        }
        String method = exchange.getRequestMethod().toUpperCase(Locale.ROOT);
        if (method.equals("OPTIONS")) {
            HttpChecks.preflight(exchange);
            return;
        }
        Optional<Principal> principal = checks.authenticate(exchange);
        if (principal.isEmpty()) {
            return;
        }
        switch (method) {
            case "POST" -> post.handle(exchange, principal.get());
            case "GET" -> get.handle(exchange, principal.get());
            case "DELETE" -> delete.handle(exchange, principal.get());
            default -> {
                exchange.getResponseHeaders().set("Allow", HttpChecks.ALLOWED_METHODS);
                responses.sendError(exchange, 405, null, JsonRpc.INVALID_REQUEST, "Method not allowed: " + method);
            }
        }
    }

    /** Every worker is busy and the queue is full: 503, try again shortly, on a new connection. */
    private void busy(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Retry-After", String.valueOf(BUSY_RETRY_AFTER_SECONDS));
        exchange.getResponseHeaders().set("Connection", "close");
        responses.sendError(exchange, 503, null, HttpResponses.SERVER_BUSY,
                "Server busy: all " + settings.maxWorkerThreads() + " workers are in use and " + settings.maxQueuedRequests()
                        + " requests are waiting; retry after " + BUSY_RETRY_AFTER_SECONDS + " s");
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
