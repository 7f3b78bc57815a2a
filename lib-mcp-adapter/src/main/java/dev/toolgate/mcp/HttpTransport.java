package dev.toolgate.mcp;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.toolgate.access.Principal;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The MCP Streamable HTTP transport (protocol 2025-11-25) on the JDK's built-in
 * {@link HttpServer}: one endpoint taking POST (one JSON-RPC message per request), GET (the
 * session's SSE stream for server notifications and requests) and DELETE (end the session).
 *
 * <p>A POST carrying a request is answered with one JSON object when the server has nothing else to
 * send first, else with an SSE stream (for example an elicitation request before the tool result)
 * that ends with the response. Every request passes, in order: the endpoint path (404), the
 * {@code Origin} check (403), the bearer token (401 with {@code WWW-Authenticate}), the method (405),
 * and for POST the {@code Accept} header (406), the {@code Content-Type} (415), the body size (413),
 * the {@code MCP-Protocol-Version} header (400), the JSON-RPC shape (400 with -32700 or -32600) and the
 * {@code Mcp-Session-Id} (400 when missing, 404 when unknown or owned by another principal). Over
 * budget is HTTP 429 with {@code Retry-After} when the answer is a plain JSON response.
 */
final class HttpTransport implements McpStreamableServerTransportProvider {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    static final List<String> PROTOCOL_VERSIONS = List.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25");

    private static final String APPLICATION_JSON = "application/json";
    private static final String TEXT_EVENT_STREAM = "text/event-stream";
    private static final String SESSION_HEADER = "Mcp-Session-Id";
    private static final String VERSION_HEADER = "MCP-Protocol-Version";
    private static final int SESSION_NOT_FOUND = -32001;
    private static final int UNAUTHORIZED = -32002;
    private static final int FORBIDDEN = -32003;
    private static final TypeRef<McpSchema.InitializeRequest> INITIALIZE = new TypeRef<>() {
    };

    /** The transport's settings. */
    record Settings(String endpoint, Set<String> allowedOrigins, int maxBodyBytes, Duration sessionIdleTimeout,
                    Duration keepAliveInterval, Duration requestTimeout) {
    }

    private final McpJsonMapper mapper;
    private final McpAuthenticator authenticator;
    private final Settings settings;
    private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
    private volatile McpStreamableServerSession.Factory sessionFactory;
    private volatile boolean closing;
    private HttpServer server;
    private ExecutorService workers;
    private ScheduledExecutorService housekeeping;

    HttpTransport(McpJsonMapper mapper, McpAuthenticator authenticator, Settings settings) {
        this.mapper = mapper;
        this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
        this.settings = settings;
    }

    // ------------------------------------------------------------------------------------ lifecycle

    void start(InetSocketAddress address) throws IOException {
        server = HttpServer.create(address, 0);
        workers = Executors.newCachedThreadPool(daemon("toolgate-mcp-http"));
        server.setExecutor(workers);
        server.createContext("/", this::handle);
        housekeeping = Executors.newSingleThreadScheduledExecutor(daemon("toolgate-mcp-sessions"));
        long every = Math.max(1, settings.keepAliveInterval().toMillis());
        housekeeping.scheduleWithFixedDelay(this::housekeeping, every, every, TimeUnit.MILLISECONDS);
        server.start();
    }

    InetSocketAddress address() {
        return server.getAddress();
    }

    /** How many sessions have an open event stream (for tests and diagnostics). */
    int openStreams() {
        return (int) sessions.values().stream().filter(session -> session.listening != null && !session.listening.closed).count();
    }

    void stop() {
        closing = true;
        if (housekeeping != null) {
            housekeeping.shutdownNow();
        }
        sessions.values().forEach(Session::closeStream);
        sessions.clear();
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
        return Mono.fromRunnable(() -> sessions.values().forEach(session -> notify(session, method, params)));
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return Mono.fromRunnable(() -> {
            Session session = sessions.get(sessionId);
            if (session != null) {
                notify(session, method, params);
            }
        });
    }

    private static void notify(Session session, String method, Object params) {
        try {
            session.mcp.sendNotification(method, params).block(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            LOG.debug("Notification {} not delivered to session {}: {}", method, session.mcp.getId(), e.toString());
        }
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(() -> {
            closing = true;
            for (Session session : sessions.values()) {
                try {
                    session.mcp.closeGracefully().block(Duration.ofSeconds(5));
                } catch (RuntimeException e) {
                    LOG.debug("Closing session {} failed: {}", session.mcp.getId(), e.toString());
                }
                session.closeStream();
            }
            sessions.clear();
        });
    }

    /** Pings open SSE streams (finding dead ones) and ends sessions idle for longer than the timeout. */
    private void housekeeping() {
        long now = System.nanoTime();
        long idle = settings.sessionIdleTimeout().toNanos();
        for (Map.Entry<String, Session> entry : sessions.entrySet()) {
            Session session = entry.getValue();
            SseStream stream = session.listening;
            boolean streaming = stream != null && stream.ping();
            if (!streaming && now - session.lastSeen > idle) {
                if (sessions.remove(entry.getKey(), session)) {
                    LOG.info("MCP session {} ended after {} idle", entry.getKey(), settings.sessionIdleTimeout());
                    session.mcp.closeGracefully().onErrorResume(e -> Mono.empty()).subscribe();
                    session.closeStream();
                }
            }
        }
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
                sendError(exchange, 500, null, JsonRpc.INTERNAL_ERROR, "Internal error");
            } catch (RuntimeException | IOException ignored) {
                exchange.close();
            }
        }
    }

    private void dispatch(HttpExchange exchange) throws IOException {
        if (!settings.endpoint().equals(exchange.getRequestURI().getPath())) {
            sendStatus(exchange, 404);
            return;
        }
        if (closing) {
            sendError(exchange, 503, null, JsonRpc.INTERNAL_ERROR, "The server is shutting down");
            return;
        }
        String origin = exchange.getRequestHeaders().getFirst("Origin");
        if (origin != null) {
            if (!originAllowed(origin)) {
                LOG.warn("Refused an MCP request from origin {}", origin);
                sendError(exchange, 403, null, FORBIDDEN, "Forbidden: origin not allowed");
                return;
            }
            Headers headers = exchange.getResponseHeaders();
            headers.set("Access-Control-Allow-Origin", origin);
            headers.add("Vary", "Origin");
            headers.set("Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After");
        }
        String method = exchange.getRequestMethod().toUpperCase(Locale.ROOT);
        if (method.equals("OPTIONS")) {
            preflight(exchange);
            return;
        }
        Optional<Principal> principal = authenticate(exchange);
        if (principal.isEmpty()) {
            return;
        }
        switch (method) {
            case "POST" -> post(exchange, principal.get());
            case "GET" -> get(exchange, principal.get());
            case "DELETE" -> delete(exchange, principal.get());
            default -> {
                exchange.getResponseHeaders().set("Allow", "GET, POST, DELETE, OPTIONS");
                sendError(exchange, 405, null, JsonRpc.INVALID_REQUEST, "Method not allowed: " + method);
            }
        }
    }

    private void preflight(HttpExchange exchange) throws IOException {
        Headers headers = exchange.getResponseHeaders();
        headers.set("Allow", "GET, POST, DELETE, OPTIONS");
        headers.set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
        headers.set("Access-Control-Allow-Headers",
                "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID");
        headers.set("Access-Control-Max-Age", "600");
        sendStatus(exchange, 204);
    }

    private boolean originAllowed(String origin) {
        Set<String> allowed = settings.allowedOrigins();
        if (!allowed.isEmpty()) {
            return allowed.contains("*") || allowed.contains(origin.toLowerCase(Locale.ROOT));
        }
        try {
            URI uri = URI.create(origin);
            String host = uri.getHost();
            return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && host != null
                    && (host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]") || host.equals("::1"));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private Optional<Principal> authenticate(HttpExchange exchange) throws IOException {
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        String token = null;
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            token = header.substring(7).trim();
        }
        if (token == null || token.isEmpty()) {
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"toolgate\"");
            sendError(exchange, 401, null, UNAUTHORIZED, "Unauthorized: send Authorization: Bearer <token>");
            return Optional.empty();
        }
        Optional<Principal> principal;
        try {
            principal = Objects.requireNonNullElse(authenticator.authenticate(token), Optional.empty());
        } catch (RuntimeException e) {
            LOG.warn("The MCP authenticator failed; refusing the request", e);
            principal = Optional.empty();
        }
        if (principal.isEmpty()) {
            exchange.getResponseHeaders().set("WWW-Authenticate",
                    "Bearer realm=\"toolgate\", error=\"invalid_token\", error_description=\"The bearer token is not valid\"");
            sendError(exchange, 401, null, UNAUTHORIZED, "Unauthorized: the bearer token is not valid");
        }
        return principal;
    }

    // ------------------------------------------------------------------------------------ POST

    private void post(HttpExchange exchange, Principal principal) throws IOException {
        Headers request = exchange.getRequestHeaders();
        if (!accepts(request.getFirst("Accept"), APPLICATION_JSON) || !accepts(request.getFirst("Accept"), TEXT_EVENT_STREAM)) {
            sendError(exchange, 406, null, JsonRpc.INVALID_REQUEST,
                    "Not Acceptable: the Accept header must list application/json and text/event-stream");
            return;
        }
        String contentType = request.getFirst("Content-Type");
        if (contentType == null || !contentType.toLowerCase(Locale.ROOT).strip().startsWith(APPLICATION_JSON)) {
            sendError(exchange, 415, null, JsonRpc.INVALID_REQUEST, "Unsupported Media Type: send application/json");
            return;
        }
        byte[] body = readBody(exchange);
        if (body == null) {
            exchange.getResponseHeaders().set("Connection", "close");
            sendError(exchange, 413, null, JsonRpc.INVALID_REQUEST,
                    "Payload Too Large: the limit is " + settings.maxBodyBytes() + " bytes");
            return;
        }
        String text = new String(body, StandardCharsets.UTF_8);
        JsonRpc.Checked checked;
        try {
            checked = JsonRpc.check(text);
        } catch (JsonRpc.Invalid invalid) {
            sendJson(exchange, 400, invalid.response());
            return;
        }
        if (checked.isInitialize()) {
            initialize(exchange, principal, checked, text);
            return;
        }
        if (!versionSupported(exchange, checked.id())) {
            return;
        }
        Session session = session(exchange, principal, checked.id());
        if (session == null) {
            return;
        }
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(mapper, text);
        } catch (IOException | IllegalArgumentException e) {
            sendError(exchange, 400, checked.id(), JsonRpc.INVALID_REQUEST, "Invalid Request: " + e.getMessage());
            return;
        }
        McpTransportContext context = context(principal);
        switch (checked.kind()) {
            case REQUEST -> {
                // a client that disconnects does not cancel its request (the spec's rule), so the
                // subscription is never disposed; it ends when the SDK has answered
                RequestStream stream = new RequestStream(checked.id());
                session.mcp.responseStream(stream).handle((McpSchema.JSONRPCRequest) message)
                        .contextWrite(ctx -> ctx.put(McpTransportContext.KEY, context))
                        .subscribe(done -> { }, stream::finish, () -> stream.finish(null));
                stream.pump(exchange);
            }
            case NOTIFICATION, RESPONSE -> {
                try {
                    Mono<Void> accepted = message instanceof McpSchema.JSONRPCResponse response
                            ? session.mcp.accept(response) : session.mcp.accept((McpSchema.JSONRPCNotification) message);
                    accepted.contextWrite(ctx -> ctx.put(McpTransportContext.KEY, context)).block(Duration.ofSeconds(30));
                } catch (McpError e) {
                    sendError(exchange, 400, null, JsonRpc.INVALID_REQUEST, "Invalid Request: " + e.getMessage());
                    return;
                }
                sendStatus(exchange, 202);
            }
        }
    }

    private void initialize(HttpExchange exchange, Principal principal, JsonRpc.Checked checked, String text) throws IOException {
        McpSchema.JSONRPCRequest request;
        McpSchema.InitializeRequest initialize;
        try {
            request = (McpSchema.JSONRPCRequest) McpSchema.deserializeJsonRpcMessage(mapper, text);
            initialize = request.params() == null ? null : mapper.convertValue(request.params(), INITIALIZE);
        } catch (IOException | RuntimeException e) {
            initialize = null;
            request = null;
        }
        if (initialize == null || initialize.protocolVersion() == null) {
            sendError(exchange, 400, checked.id(), JsonRpc.INVALID_PARAMS,
                    "Invalid params: initialize needs protocolVersion, capabilities and clientInfo");
            return;
        }
        McpStreamableServerSession.McpStreamableServerSessionInit init = sessionFactory.startSession(initialize);
        McpSchema.InitializeResult result;
        try {
            result = init.initResult().block(Duration.ofSeconds(30));
        } catch (RuntimeException e) {
            LOG.error("MCP initialize failed", e);
            sendError(exchange, 500, checked.id(), JsonRpc.INTERNAL_ERROR, "Internal error: initialize failed");
            return;
        }
        Session session = new Session(init.session(), principal.key());
        sessions.put(init.session().getId(), session);
        LOG.info("MCP session {} started for {} ({} {})", init.session().getId(), principal.key(),
                initialize.clientInfo() == null ? "unknown client" : initialize.clientInfo().name(),
                initialize.protocolVersion());
        exchange.getResponseHeaders().set(SESSION_HEADER, init.session().getId());
        sendJson(exchange, 200, new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, request.id(), result, null));
    }

    // ------------------------------------------------------------------------------------ GET, DELETE

    private void get(HttpExchange exchange, Principal principal) throws IOException {
        if (!accepts(exchange.getRequestHeaders().getFirst("Accept"), TEXT_EVENT_STREAM)) {
            sendError(exchange, 406, null, JsonRpc.INVALID_REQUEST, "Not Acceptable: the Accept header must list text/event-stream");
            return;
        }
        if (!versionSupported(exchange, null)) {
            return;
        }
        Session session = session(exchange, principal, null);
        if (session == null) {
            return;
        }
        // registered before the response starts, so nothing sent from now on is missed; the stream
        // writes its headers first, in order with everything else
        SseStream stream = new SseStream(exchange, this, session.mcp.getId());
        SseStream previous = session.listening;
        session.listening = stream;
        if (previous != null) {
            previous.close();
        }
        session.mcp.listeningStream(stream);
        stream.open();
        LOG.debug("MCP session {} opened its SSE stream", session.mcp.getId());
    }

    private void delete(HttpExchange exchange, Principal principal) throws IOException {
        if (!versionSupported(exchange, null)) {
            return;
        }
        Session session = session(exchange, principal, null);
        if (session == null) {
            return;
        }
        String id = session.mcp.getId();
        sessions.remove(id, session);
        try {
            session.mcp.delete().block(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            LOG.debug("Deleting session {} failed: {}", id, e.toString());
        }
        session.closeStream();
        LOG.info("MCP session {} ended by the client", id);
        sendStatus(exchange, 200);
    }

    // ------------------------------------------------------------------------------------ checks

    /** The caller's session, or null after answering 400 (no id) or 404 (unknown, or another principal's). */
    private Session session(HttpExchange exchange, Principal principal, Object requestId) throws IOException {
        String id = exchange.getRequestHeaders().getFirst(SESSION_HEADER);
        if (id == null || id.isBlank()) {
            sendError(exchange, 400, requestId, JsonRpc.INVALID_REQUEST,
                    "Bad Request: the Mcp-Session-Id header is required after initialize");
            return null;
        }
        Session session = sessions.get(id.strip());
        if (session == null || !session.principalKey.equals(principal.key())) {
            sendError(exchange, 404, requestId, SESSION_NOT_FOUND, "Session not found; initialize a new session");
            return null;
        }
        session.lastSeen = System.nanoTime();
        return session;
    }

    private boolean versionSupported(HttpExchange exchange, Object requestId) throws IOException {
        String version = exchange.getRequestHeaders().getFirst(VERSION_HEADER);
        if (version != null && !PROTOCOL_VERSIONS.contains(version.strip())) {
            sendError(exchange, 400, requestId, JsonRpc.INVALID_REQUEST,
                    "Bad Request: unsupported MCP-Protocol-Version " + version.strip() + "; supported: " + PROTOCOL_VERSIONS);
            return false;
        }
        return true;
    }

    /** True if an Accept header value admits {@code type} (wildcards count). */
    static boolean accepts(String accept, String type) {
        if (accept == null) {
            return false;
        }
        String major = type.substring(0, type.indexOf('/'));
        for (String range : accept.split(",")) {
            String media = range.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
            if (media.equals(type) || media.equals("*/*") || media.equals(major + "/*")) {
                return true;
            }
        }
        return false;
    }

    /** The body, or null if it is larger than the limit. */
    private byte[] readBody(HttpExchange exchange) throws IOException {
        int max = settings.maxBodyBytes();
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        if (length != null) {
            try {
                if (Long.parseLong(length.strip()) > max) {
                    return null;
                }
            } catch (NumberFormatException e) {
                return null;
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try (InputStream in = exchange.getRequestBody()) {
            int n;
            while ((n = in.read(buffer)) != -1) {
                if (body.size() + n > max) {
                    return null;
                }
                body.write(buffer, 0, n);
            }
        }
        return body.toByteArray();
    }

    private static McpTransportContext context(Principal principal) {
        return McpTransportContext.create(Map.of(ToolBridge.PRINCIPAL_KEY, principal));
    }

    // ------------------------------------------------------------------------------------ writing

    private void sendError(HttpExchange exchange, int status, Object id, int code, String message) throws IOException {
        sendJson(exchange, status, JsonRpc.error(id, code, message, null));
    }

    private void sendJson(HttpExchange exchange, int status, Object body) throws IOException {
        byte[] bytes = mapper.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", APPLICATION_JSON);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static void sendStatus(HttpExchange exchange, int status) throws IOException {
        exchange.sendResponseHeaders(status, -1);
        exchange.close();
    }

    private static String event(String id, String json) {
        return (id == null ? "" : "id: " + id + "\n") + "event: message\ndata: " + json + "\n\n";
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    // ------------------------------------------------------------------------------------ sessions and streams

    /** A session, the principal that started it, and its GET stream. */
    private static final class Session {

        final McpStreamableServerSession mcp;
        final String principalKey;
        volatile long lastSeen = System.nanoTime();
        volatile SseStream listening;

        Session(McpStreamableServerSession mcp, String principalKey) {
            this.mcp = mcp;
            this.principalKey = principalKey;
        }

        void closeStream() {
            SseStream stream = listening;
            if (stream != null) {
                stream.close();
            }
        }
    }

    /**
     * An open SSE response: the GET stream of a session. Writes run in order on the transport's
     * worker threads, never on the caller's: a Reactor thread can be interrupted when a subscription
     * is cancelled, and an interrupted write closes the socket.
     */
    private static final class SseStream implements McpStreamableServerTransport {

        private final HttpExchange exchange;
        private final HttpTransport owner;
        private final String sessionId;
        private final SerialExecutor writer;
        private final ReentrantLock lock = new ReentrantLock();
        private volatile OutputStream body;
        private volatile boolean closed;

        SseStream(HttpExchange exchange, HttpTransport owner, String sessionId) {
            this.exchange = exchange;
            this.owner = owner;
            this.sessionId = sessionId;
            this.writer = new SerialExecutor(owner.workers);
        }

        /** Queues the response headers and a first comment, ahead of any message. */
        void open() {
            submit(() -> {
                lock.lock();
                try {
                    if (closed) {
                        return;
                    }
                    Headers headers = exchange.getResponseHeaders();
                    headers.set("Content-Type", TEXT_EVENT_STREAM);
                    headers.set("Cache-Control", "no-cache");
                    exchange.sendResponseHeaders(200, 0);
                    body = exchange.getResponseBody();
                } catch (IOException e) {
                    LOG.debug("SSE stream of session {} could not start: {}", sessionId, e.toString());
                    close();
                    return;
                } finally {
                    lock.unlock();
                }
                write(": stream open\n\n");
            });
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return sendMessage(message, null);
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String messageId) {
            return Mono.fromRunnable(() -> {
                String json;
                try {
                    json = owner.mapper.writeValueAsString(message);
                } catch (IOException e) {
                    LOG.warn("Could not serialize a message for session {}: {}", sessionId, e.toString());
                    return;
                }
                submit(() -> {
                    if (!write(event(messageId, json))) {
                        LOG.debug("Message for session {} dropped: its SSE stream is closed", sessionId);
                    }
                });
            });
        }

        /** Queues a keep-alive comment; returns whether the stream was still open. */
        boolean ping() {
            submit(() -> write(": keepalive\n\n"));
            return !closed;
        }

        private void submit(Runnable task) {
            try {
                writer.execute(task);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                close();
            }
        }

        boolean write(String chunk) {
            lock.lock();
            try {
                if (closed || body == null) {
                    return false;
                }
                body.write(chunk.getBytes(StandardCharsets.UTF_8));
                body.flush();
                return true;
            } catch (IOException e) {
                LOG.debug("SSE stream of session {} closed by the client: {}", sessionId, e.toString());
                close();
                return false;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return owner.mapper.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.fromRunnable(this::close);
        }

        @Override
        public void close() {
            lock.lock();
            try {
                if (!closed) {
                    closed = true;
                    exchange.close();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * The answer to one POST request. The SDK hands it messages on its own threads; they are queued
     * and written by the HTTP thread that received the request ({@link #pump}), which answers with one
     * JSON response if the first message is the response itself, and otherwise with an SSE stream
     * carrying requests and notifications and finally the response.
     */
    private final class RequestStream implements McpStreamableServerTransport {

        private final Object requestId;
        private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();

        RequestStream(Object requestId) {
            this.requestId = requestId;
        }

        private record Outgoing(McpSchema.JSONRPCMessage message, String id) {
        }

        private record End(Throwable error) {
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return sendMessage(message, null);
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String messageId) {
            return Mono.fromRunnable(() -> queue.add(new Outgoing(message, messageId)));
        }

        /** The SDK finished the request (null) or failed it. */
        void finish(Throwable error) {
            queue.add(new End(error));
        }

        /** Writes what the SDK sends until the request is finished; runs on the HTTP thread. */
        void pump(HttpExchange exchange) throws IOException {
            OutputStream sse = null;
            boolean answered = false;
            try {
                while (true) {
                    Object item = queue.poll(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
                    if (item == null || item instanceof End) {
                        Throwable error = item == null ? new IllegalStateException("no answer in time") : ((End) item).error();
                        if (error != null) {
                            LOG.error("MCP request {} failed", requestId, error);
                        }
                        if (!answered && sse == null) {
                            sendError(exchange, 500, requestId, JsonRpc.INTERNAL_ERROR, "Internal error");
                        }
                        return;
                    }
                    Outgoing outgoing = (Outgoing) item;
                    if (answered) {
                        continue;
                    }
                    boolean isResponse = outgoing.message() instanceof McpSchema.JSONRPCResponse response
                            && Objects.equals(response.id(), requestId);
                    String json = mapper.writeValueAsString(outgoing.message());
                    if (sse == null && isResponse) {
                        respondJson(exchange, (McpSchema.JSONRPCResponse) outgoing.message(), json);
                        answered = true;
                        continue;
                    }
                    if (sse == null) {
                        Headers headers = exchange.getResponseHeaders();
                        headers.set("Content-Type", TEXT_EVENT_STREAM);
                        headers.set("Cache-Control", "no-cache");
                        exchange.sendResponseHeaders(200, 0);
                        sse = exchange.getResponseBody();
                    }
                    sse.write(event(outgoing.id(), json).getBytes(StandardCharsets.UTF_8));
                    sse.flush();
                    answered = isResponse;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                exchange.close();
            }
        }

        private void respondJson(HttpExchange exchange, McpSchema.JSONRPCResponse response, String json) throws IOException {
            int status = 200;
            McpSchema.JSONRPCResponse.JSONRPCError error = response.error();
            if (error != null && error.code() != null && error.code() == ToolgateMcpServer.RATE_LIMITED) {
                status = 429;
                exchange.getResponseHeaders().set("Retry-After", String.valueOf(retryAfterSeconds(error.data())));
            }
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", APPLICATION_JSON);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return mapper.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.empty();
        }

        @Override
        public void close() {
            // the stream ends when the SDK finishes the request (see finish)
        }
    }

    /** Runs tasks one at a time, in order, on a shared pool. */
    private static final class SerialExecutor implements java.util.concurrent.Executor {

        private final java.util.concurrent.Executor pool;
        private final java.util.ArrayDeque<Runnable> tasks = new java.util.ArrayDeque<>();
        private Runnable active;

        SerialExecutor(java.util.concurrent.Executor pool) {
            this.pool = pool;
        }

        @Override
        public synchronized void execute(Runnable task) {
            tasks.add(() -> {
                try {
                    task.run();
                } finally {
                    next();
                }
            });
            if (active == null) {
                next();
            }
        }

        private synchronized void next() {
            active = tasks.poll();
            if (active != null) {
                pool.execute(active);
            }
        }
    }

    private static long retryAfterSeconds(Object data) {
        if (data instanceof Map<?, ?> map && map.get("retryAfterSeconds") instanceof Number seconds) {
            return Math.max(1, seconds.longValue());
        }
        return 1;
    }
}
