package dev.toolgate.mcp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.toolgate.access.Principal;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
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
 * <p>Every request passes, in order: the endpoint path (404), the {@code Origin} check (403), the
 * bearer token (401 with {@code WWW-Authenticate}), the method (405), then the verb's own checks
 * ({@link HttpChecks}). This class owns the lifecycle and the dispatch by verb.
 */
final class HttpTransport implements McpStreamableServerTransportProvider {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    static final List<String> PROTOCOL_VERSIONS = List.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25");

    private final HttpSettings settings;
    private final HttpResponses responses;
    private final HttpSessions sessions = new HttpSessions();
    private final HttpChecks checks;
    private volatile McpStreamableServerSession.Factory sessionFactory;
    private volatile boolean closing;
    private HttpServer server;
    private ExecutorService workers;
    private ScheduledExecutorService housekeeping;
    private HttpPost post;
    private HttpGet get;
    private HttpDelete delete;

    HttpTransport(McpJsonMapper mapper, McpAuthenticator authenticator, HttpSettings settings) {
        this.settings = settings;
        this.responses = new HttpResponses(mapper);
        this.checks = new HttpChecks(settings, authenticator, responses, sessions);
    }

    // ------------------------------------------------------------------------------------ lifecycle

    void start(InetSocketAddress address) throws IOException {
        server = HttpServer.create(address, 0);
        workers = Executors.newCachedThreadPool(daemon("toolgate-mcp-http"));
        post = new HttpPost(settings, checks, responses, sessions, () -> sessionFactory);
        get = new HttpGet(checks, responses, workers);
        delete = new HttpDelete(checks, sessions);
        server.setExecutor(workers);
        server.createContext("/", this::handle);
        housekeeping = Executors.newSingleThreadScheduledExecutor(daemon("toolgate-mcp-sessions"));
        long every = Math.max(1, settings.keepAliveInterval().toMillis());
        housekeeping.scheduleWithFixedDelay(() -> sessions.housekeeping(settings.sessionIdleTimeout()), every, every,
                TimeUnit.MILLISECONDS);
        server.start();
    }

    InetSocketAddress address() {
        return server.getAddress();
    }

    /** How many sessions have an open event stream (for tests and diagnostics). */
    int openStreams() {
        return sessions.openStreams();
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

    private void handle(HttpExchange exchange) {
        try {
            dispatch(exchange);
        } catch (IOException e) {
            LOG.debug("MCP HTTP client went away: {}", e.toString());
            exchange.close();
        } catch (Throwable e) {
            LOG.error("MCP HTTP request failed", e);
            try {
                responses.sendError(exchange, 500, null, JsonRpc.INTERNAL_ERROR, "Internal error");
            } catch (RuntimeException | IOException ignored) {
                exchange.close();
            }
        }
    }

    private void dispatch(HttpExchange exchange) throws IOException {
        if (!settings.endpoint().equals(exchange.getRequestURI().getPath())) {
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

    private static ThreadFactory daemon(String name) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
