package dev.toolgate.mcp;

import dev.toolgate.access.Principal;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servlet a host mounts ({@link McpServletEndpoint#servlet()}): checks every request before the
 * SDK's servlet transport sees it, then hands it on. In order: shutting down (503), the
 * {@code Host} when {@link McpServletBuilder#allowedHosts} is set ({@link HttpHosts}: 400, 403), the
 * {@code Origin} (403; CORS headers and the preflight otherwise, as the standalone server), the
 * principal (401 with {@code WWW-Authenticate: Bearer}), the method (405), the
 * {@code MCP-Protocol-Version} header (400), the headers and body of a POST or GET
 * ({@link ServletChecks}: 406, 415, 413, 400), the session id against its principal (404), the
 * session caps for an {@code initialize} (LRU idle eviction, else 429 per principal, 503 in all). The
 * principal is bound to the request as an attribute, from which the transport context the gate reads
 * is built ({@link #context}). The SDK's answers pass through {@link ServletGuardedResponse} (the
 * session id an {@code initialize} started, 429 mapping).
 */
final class ServletGuard extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();

    /** The request attribute holding the authenticated {@link Principal}. */
    static final String PRINCIPAL_ATTRIBUTE = ServletGuard.class.getName() + ".principal";

    private final transient HttpServletStreamableServerTransportProvider sdk;
    private final transient McpRequestAuthenticator authenticator;
    private final transient McpJsonMapper mapper;
    private final transient ServletSessions sessions;
    private final transient ServletChecks checks;
    private final transient CatalogDispatch catalog;
    private final transient TaskDispatch tasks;
    private final Set<String> allowedOrigins;
    /** The configured {@code Host} entries; empty or {@code *}: no check. */
    private final Set<String> allowedHosts;
    /** The check of each local address and port the container accepted a request on (a few connectors). */
    private final transient java.util.concurrent.ConcurrentHashMap<java.net.InetSocketAddress, HttpHosts> hostChecks =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger openStreams = new AtomicInteger();
    private volatile boolean closing;

    ServletGuard(HttpServletStreamableServerTransportProvider sdk, McpRequestAuthenticator authenticator,
                 McpJsonMapper mapper, ServletSessions sessions, Set<String> allowedOrigins, Set<String> allowedHosts,
                 int maxBodyBytes, CatalogDispatch catalog, TaskDispatch tasks) {
        this.sdk = sdk;
        this.authenticator = authenticator;
        this.mapper = mapper;
        this.sessions = sessions;
        this.allowedOrigins = allowedOrigins;
        this.allowedHosts = allowedHosts.contains("*") ? Set.of() : allowedHosts;
        this.checks = new ServletChecks(mapper, maxBodyBytes);
        this.catalog = catalog;
        this.tasks = tasks;
    }

    /** The transport context of a request this guard let through: its principal, for {@link ToolBridge}. */
    static io.modelcontextprotocol.common.McpTransportContext context(HttpServletRequest request) {
        Map<String, Object> values = new LinkedHashMap<>();
        if (request.getAttribute(PRINCIPAL_ATTRIBUTE) instanceof Principal principal) {
            values.put(ToolBridge.PRINCIPAL_KEY, principal);
        }
        values.put(ToolBridge.ERROR_LOGGED_KEY, new AtomicBoolean());
        return io.modelcontextprotocol.common.McpTransportContext.create(values);
    }

    @Override
    public void init(ServletConfig config) throws ServletException {
        super.init(config);
        sdk.init(config);
    }

    int openStreams() {
        return openStreams.get();
    }

    void closing() {
        closing = true;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws ServletException, IOException {
        if (closing) {
            ServletChecks.closeIfBodyUnread(request, response);
            sendError(response, 503, JsonRpc.INTERNAL_ERROR, "The server is shutting down");
            return;
        }
        if (!host(request, response)) {
            return;
        }
        String method = request.getMethod().toUpperCase(Locale.ROOT);
        if (!origin(request, response)) {
            return;
        }
        if (method.equals("OPTIONS")) {
            response.setHeader("Allow", HttpChecks.ALLOWED_METHODS);
            response.setHeader("Access-Control-Allow-Methods", HttpChecks.ALLOWED_METHODS);
            response.setHeader("Access-Control-Allow-Headers",
                    "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID");
            response.setHeader("Access-Control-Max-Age", "600");
            ServletChecks.closeIfBodyUnread(request, response);
            response.setStatus(204);
            return;
        }
        Optional<Principal> principal = authenticate(request, response);
        if (principal.isEmpty()) {
            return;
        }
        if (!method.equals("POST") && !method.equals("GET") && !method.equals("DELETE")) {
            response.setHeader("Allow", HttpChecks.ALLOWED_METHODS);
            ServletChecks.closeIfBodyUnread(request, response);
            sendError(response, 405, JsonRpc.INVALID_REQUEST, "Method not allowed: " + method);
            return;
        }
        String version = request.getHeader(HttpResponses.VERSION_HEADER);
        if (version != null && !HttpTransport.PROTOCOL_VERSIONS.contains(version.strip())) {
            ServletChecks.closeIfBodyUnread(request, response);
            sendError(response, 400, JsonRpc.INVALID_REQUEST, "Bad Request: unsupported MCP-Protocol-Version " + version.strip()
                    + "; supported: " + String.join(", ", HttpTransport.PROTOCOL_VERSIONS));
            return;
        }
        HttpServletRequest checked = request;
        boolean initialize = false;
        ServletChecks.Post post = null;
        if (method.equals("POST")) {
            post = checks.post(request, response);
            if (post == null) {
                return;
            }
            checked = post.request();
            initialize = post.message().isInitialize();
        } else if (method.equals("GET")) {
            checked = checks.get(request, response);
            if (checked == null) {
                return;
            }
        }
        String key = principal.get().key();
        String sessionId = request.getHeader(HttpResponses.SESSION_HEADER);
        ServletSessions.Binding session = null;
        if (sessionId != null && !initialize) {
            session = sessions.acquire(key, sessionId);
            if (session == null) {
                sendError(response, 404, HttpResponses.SESSION_NOT_FOUND,
                        "Session not found: it ended, or it is not yours; send initialize to start a new one");
                return;
            }
        }
        if (session != null && post != null && post.message().kind() == JsonRpc.Kind.REQUEST
                && ((catalog != null && catalog.handles(post.message().method()))
                        || (tasks != null && TaskDispatch.mayHandle(post.message().method(), post.text())))
                && answerInFront(response, principal.get(), sessionId, session, post)) {
            return;
        }
        AtomicBoolean reservation = new AtomicBoolean();
        if (initialize) {
            ServletSessions.Refusal refusal = sessions.reserve(key);
            if (refusal != null) {
                refuse(response, key, refusal);
                return;
            }
            reservation.set(true);
        }
        request.setAttribute(PRINCIPAL_ATTRIBUTE, principal.get());
        ServletGuardedResponse guarded = new ServletGuardedResponse(response, mapper, post != null, started -> {
            if (reservation.compareAndSet(true, false)) {
                sessions.settle(key, started);
            }
        });
        boolean async = false;
        try {
            sdk.service(checked, guarded);
            async = request.isAsyncStarted();
            boolean stream = method.equals("GET") && async;
            if (stream) {
                openStreams.incrementAndGet();
            }
            if (async) {
                ServletSessions.Binding busy = session;
                onEnd(request, () -> {
                    if (stream) {
                        openStreams.decrementAndGet();
                    }
                    if (busy != null) {
                        sessions.release(busy);
                    }
                });
            }
            if (stream) {
                if (guarded.getStatus() == 200) {
                    guarded.getWriter().flush(); // the stream's headers now, not with its first event
                }
            }
            if (method.equals("DELETE") && guarded.getStatus() < 300) {
                sessions.remove(sessionId);
            }
        } finally {
            if (reservation.compareAndSet(true, false)) {
                sessions.settle(key, null); // no session started: give the room back
            }
            if (!async && session != null) {
                sessions.release(session);
            }
        }
    }

    /**
     * Resources, prompts and completion (answered per principal by the catalog) and tasks (which the SDK
     * does not know), answered here as on the standalone server; false, with nothing sent and the session
     * still held, for a request that turned out to be neither (a {@code tools/call} without a task).
     */
    private boolean answerInFront(HttpServletResponse response, Principal principal, String sessionId,
                                  ServletSessions.Binding session, ServletChecks.Post post) throws IOException {
        McpSchema.JSONRPCRequest message;
        try {
            message = (McpSchema.JSONRPCRequest) McpSchema.deserializeJsonRpcMessage(mapper, post.text());
        } catch (IOException | RuntimeException e) {
            sessions.release(session);
            checks.sendError(response, 400, post.message().id(), JsonRpc.INVALID_REQUEST, "Invalid Request: " + e.getMessage());
            return true;
        }
        boolean forTasks = tasks != null && tasks.handles(message.method(), message.params());
        if (!forTasks && (catalog == null || !catalog.handles(message.method()))) {
            return false;
        }
        try {
            byte[] bytes = mapper.writeValueAsBytes(forTasks ? tasks.answer(principal, sessionId, message)
                    : catalog.answer(principal, sessionId, message));
            response.setStatus(200);
            response.setContentType(HttpResponses.APPLICATION_JSON);
            response.setContentLength(bytes.length);
            response.getOutputStream().write(bytes);
        } finally {
            sessions.release(session);
        }
        return true;
    }

    /**
     * False after answering 400 (no, several or a malformed {@code Host} header) or 403 (a name not
     * allowed) when {@code allowedHosts} is set; the loopback names with the connection's port are
     * allowed on a connection accepted on a loopback address. Runs first, so a refused request changes
     * nothing.
     */
    private boolean host(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (allowedHosts.isEmpty()) {
            return true;
        }
        java.net.InetSocketAddress local;
        try {
            local = new java.net.InetSocketAddress(java.net.InetAddress.getByName(request.getLocalAddr()), request.getLocalPort());
        } catch (java.net.UnknownHostException | RuntimeException e) {
            local = new java.net.InetSocketAddress(request.getLocalPort()); // not loopback: the configured names only
        }
        HttpHosts hosts = hostChecks.computeIfAbsent(local, bound -> new HttpHosts(bound, allowedHosts));
        HttpHosts.Verdict verdict = hosts.check(java.util.Collections.list(request.getHeaders("Host")));
        if (verdict == HttpHosts.Verdict.ALLOWED) {
            return true;
        }
        ServletChecks.closeIfBodyUnread(request, response);
        response.setHeader("Connection", "close");
        if (verdict == HttpHosts.Verdict.MALFORMED) {
            sendError(response, 400, JsonRpc.INVALID_REQUEST, HttpHosts.MALFORMED_MESSAGE);
        } else {
            LOG.warn("Refused an MCP request for host {}", HttpHosts.printable(request.getHeader("Host")));
            sendError(response, 403, HttpResponses.FORBIDDEN, HttpHosts.FORBIDDEN_MESSAGE);
        }
        return false;
    }

    private boolean origin(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String origin = request.getHeader("Origin");
        if (origin == null) {
            return true;
        }
        if (!HttpChecks.originAllowed(origin, allowedOrigins)) {
            LOG.warn("Refused an MCP request from origin {}", origin);
            ServletChecks.closeIfBodyUnread(request, response);
            sendError(response, 403, HttpResponses.FORBIDDEN, "Forbidden: origin not allowed");
            return false;
        }
        response.setHeader("Access-Control-Allow-Origin", origin);
        response.addHeader("Vary", "Origin");
        response.setHeader("Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After");
        return true;
    }

    private Optional<Principal> authenticate(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Optional<Principal> principal;
        try {
            principal = Objects.requireNonNullElse(authenticator.authenticate(request), Optional.empty());
        } catch (RuntimeException e) {
            LOG.warn("The MCP request authenticator failed; refusing the request", LOGGED.redactThrowable(e));
            principal = Optional.empty();
        }
        if (principal.isEmpty()) {
            boolean sentToken = request.getHeader("Authorization") != null;
            response.setHeader("WWW-Authenticate", sentToken
                    ? "Bearer realm=\"toolgate\", error=\"invalid_token\", error_description=\"The bearer token is not valid\""
                    : "Bearer realm=\"toolgate\"");
            ServletChecks.closeIfBodyUnread(request, response);
            sendError(response, 401, HttpResponses.UNAUTHORIZED, sentToken
                    ? "Unauthorized: the credentials are not valid" : "Unauthorized: send Authorization: Bearer <token>");
        }
        return principal;
    }

    private void refuse(HttpServletResponse response, String key, ServletSessions.Refusal refusal) throws IOException {
        boolean perPrincipal = refusal == ServletSessions.Refusal.PER_PRINCIPAL;
        int limit = perPrincipal ? sessions.maxPerPrincipal() : sessions.maxTotal();
        String message = perPrincipal
                ? "Too many sessions: " + key + " already has " + limit + " open sessions (the per-principal limit), each with a "
                        + "request in flight or an open stream; end one with DELETE, or retry when one is idle"
                : "Too many sessions: the server has " + limit + " open sessions (its limit), each with a request in flight "
                        + "or an open stream; retry later";
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("limit", perPrincipal ? "maxSessionsPerPrincipal" : "maxSessions");
        data.put("max", limit);
        sendJson(response, perPrincipal ? 429 : 503, JsonRpc.error(null, HttpResponses.TOO_MANY_SESSIONS, message, data));
    }

    /** Runs {@code ended} once when the request's asynchronous answer (a response stream or event stream) ends. */
    private static void onEnd(HttpServletRequest request, Runnable ended) {
        AtomicBoolean done = new AtomicBoolean();
        request.getAsyncContext().addListener(new AsyncListener() {
            private void end() {
                if (done.compareAndSet(false, true)) {
                    ended.run();
                }
            }

            @Override
            public void onComplete(AsyncEvent event) {
                end();
            }

            @Override
            public void onTimeout(AsyncEvent event) {
                end();
            }

            @Override
            public void onError(AsyncEvent event) {
                end();
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
                // not restarted
            }
        });
    }

    private void sendError(HttpServletResponse response, int status, int code, String message) throws IOException {
        checks.sendError(response, status, null, code, message);
    }

    private void sendJson(HttpServletResponse response, int status, Map<String, Object> body) throws IOException {
        checks.sendJson(response, status, body);
    }
}
