package dev.toolgate.mcp;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import dev.toolgate.access.Principal;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * POST: one JSON-RPC message per request. Checks {@code Accept} (406), {@code Content-Type} (415),
 * the body size (413), the JSON-RPC shape (400), then {@code initialize} starts a session and every
 * other message needs the {@code MCP-Protocol-Version} (400) and a session of the caller (400/404).
 */
final class HttpPost {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();
    private static final TypeRef<McpSchema.InitializeRequest> INITIALIZE = new TypeRef<>() {
    };

    private final HttpSettings settings;
    private final HttpChecks checks;
    private final HttpResponses responses;
    private final HttpSessions sessions;
    private final Supplier<McpStreamableServerSession.Factory> sessionFactory;
    private final CatalogDispatch catalog;
    private final TaskDispatch tasks;
    private final HttpWatchdog watchdog;

    HttpPost(HttpSettings settings, HttpChecks checks, HttpResponses responses, HttpSessions sessions,
             Supplier<McpStreamableServerSession.Factory> sessionFactory, CatalogDispatch catalog, TaskDispatch tasks,
             HttpWatchdog watchdog) {
        this.catalog = catalog;
        this.tasks = tasks;
        this.watchdog = watchdog;
        this.settings = settings;
        this.checks = checks;
        this.responses = responses;
        this.sessions = sessions;
        this.sessionFactory = sessionFactory;
    }

    void handle(HttpExchange exchange, Principal principal) throws IOException {
        Headers request = exchange.getRequestHeaders();
        String accept = request.getFirst("Accept");
        if (!HttpResponses.accepts(accept, HttpResponses.APPLICATION_JSON) || !HttpResponses.accepts(accept, HttpResponses.TEXT_EVENT_STREAM)) {
            responses.sendError(exchange, 406, null, JsonRpc.INVALID_REQUEST,
                    "Not Acceptable: the Accept header must list application/json and text/event-stream");
            return;
        }
        String contentType = request.getFirst("Content-Type");
        if (contentType == null || !contentType.toLowerCase(Locale.ROOT).strip().startsWith(HttpResponses.APPLICATION_JSON)) {
            responses.sendError(exchange, 415, null, JsonRpc.INVALID_REQUEST, "Unsupported Media Type: send application/json");
            return;
        }
        byte[] body = checks.readBody(exchange);
        if (body == null) {
            exchange.getResponseHeaders().set("Connection", "close");
            responses.sendError(exchange, 413, null, JsonRpc.INVALID_REQUEST,
                    "Payload Too Large: the limit is " + settings.maxBodyBytes() + " bytes");
            return;
        }
        String text = new String(body, StandardCharsets.UTF_8);
        JsonRpc.Checked checked;
        try {
            checked = JsonRpc.check(text);
        } catch (JsonRpc.Invalid invalid) {
            responses.sendJson(exchange, 400, invalid.response());
            return;
        }
        if (checked.isInitialize()) {
            initialize(exchange, principal, checked, text);
            return;
        }
        if (!checks.versionSupported(exchange, checked.id())) {
            return;
        }
        HttpSession session = checks.session(exchange, principal, checked.id());
        if (session == null) {
            return;
        }
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(responses.mapper(), text);
        } catch (IOException | IllegalArgumentException e) {
            session.release();
            responses.sendError(exchange, 400, checked.id(), JsonRpc.INVALID_REQUEST, "Invalid Request: " + e.getMessage());
            return;
        }
        try {
            route(exchange, principal, session, checked, message);
        } finally {
            session.release();
        }
    }

    private void route(HttpExchange exchange, Principal principal, HttpSession session, JsonRpc.Checked checked,
                       McpSchema.JSONRPCMessage message) throws IOException {
        McpTransportContext context = McpTransportContext.create(
                Map.of(ToolBridge.PRINCIPAL_KEY, principal, ToolBridge.ERROR_LOGGED_KEY, new AtomicBoolean()));
        switch (checked.kind()) {
            case REQUEST -> {
                McpSchema.JSONRPCRequest request = (McpSchema.JSONRPCRequest) message;
                if (tasks != null && tasks.handles(request.method(), request.params())) { // the SDK has no tasks
                    responses.sendJson(exchange, 200, tasks.answer(principal, session.id(), request));
                    return;
                }
                if (catalog != null && catalog.handles(checked.method())) { // resources, prompts, completion: per principal
                    responses.sendJson(exchange, 200, catalog.answer(principal, session.id(), (McpSchema.JSONRPCRequest) message));
                    return;
                }
                // a client that disconnects does not cancel its request (the spec's rule), so the
                // subscription is never disposed; it ends when the SDK has answered
                HttpRequestStream stream = new HttpRequestStream(exchange, checked.id(), responses, settings, session.log,
                        watchdog);
                session.mcp.responseStream(stream).handle((McpSchema.JSONRPCRequest) message)
                        .contextWrite(ctx -> ctx.put(McpTransportContext.KEY, context))
                        .subscribe(done -> { }, stream::finish, () -> stream.finish(null));
                stream.pump();
            }
            case NOTIFICATION, RESPONSE -> {
                try {
                    Mono<Void> accepted = message instanceof McpSchema.JSONRPCResponse response
                            ? session.mcp.accept(response) : session.mcp.accept((McpSchema.JSONRPCNotification) message);
                    accepted.contextWrite(ctx -> ctx.put(McpTransportContext.KEY, context)).block(Duration.ofSeconds(30));
                } catch (McpError e) {
                    responses.sendError(exchange, 400, null, JsonRpc.INVALID_REQUEST, "Invalid Request: " + e.getMessage());
                    return;
                }
                HttpResponses.sendStatus(exchange, 202);
            }
        }
    }

    private void initialize(HttpExchange exchange, Principal principal, JsonRpc.Checked checked, String text) throws IOException {
        McpSchema.JSONRPCRequest request;
        McpSchema.InitializeRequest initialize;
        try {
            request = (McpSchema.JSONRPCRequest) McpSchema.deserializeJsonRpcMessage(responses.mapper(), text);
            initialize = request.params() == null ? null : responses.mapper().convertValue(request.params(), INITIALIZE);
        } catch (IOException | RuntimeException e) {
            initialize = null;
            request = null;
        }
        if (initialize == null || initialize.protocolVersion() == null) {
            responses.sendError(exchange, 400, checked.id(), JsonRpc.INVALID_PARAMS,
                    "Invalid params: initialize needs protocolVersion, capabilities and clientInfo");
            return;
        }
        HttpSessions.Admission admission = sessions.admit(principal.key());
        if (!admission.admitted()) {
            refuse(exchange, checked.id(), admission);
            return;
        }
        McpStreamableServerSession.McpStreamableServerSessionInit init;
        McpSchema.InitializeResult result;
        try {
            init = sessionFactory.get().startSession(initialize);
            result = init.initResult().block(Duration.ofSeconds(30));
        } catch (RuntimeException e) {
            sessions.cancel(admission);
            LOG.error("MCP initialize failed", LOGGED.redactThrowable(e));
            responses.sendError(exchange, 500, checked.id(), JsonRpc.INTERNAL_ERROR, "Internal error: initialize failed");
            return;
        } catch (Error e) {
            sessions.cancel(admission);
            throw e;
        }
        HttpSession session = new HttpSession(init.session(), principal.key(),
                new HttpEventLog(settings.replayEvents(), settings.replayBytes()),
                initialize.capabilities() != null && initialize.capabilities().elicitation() != null);
        sessions.add(admission, session);
        LOG.info("MCP session {} started for {} ({} {})", session.id(), principal.key(),
                initialize.clientInfo() == null ? "unknown client" : initialize.clientInfo().name(),
                initialize.protocolVersion());
        exchange.getResponseHeaders().set(HttpResponses.SESSION_HEADER, session.id());
        responses.sendJson(exchange, 200, new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, request.id(), result, null));
    }

    /**
     * Refuses a session: 429 when the principal has its maximum of sessions, 503 when the server has,
     * every one of them in use (none idle to evict). The JSON-RPC error names the cap.
     */
    private void refuse(HttpExchange exchange, Object id, HttpSessions.Admission admission) throws IOException {
        boolean perPrincipal = admission.refusedBy() == HttpSessions.Cap.PER_PRINCIPAL;
        String message = perPrincipal
                ? "Too many sessions: " + admission.principalKey() + " already has " + admission.limit()
                        + " open sessions (the per-principal limit), each with a request in flight or an open stream; "
                        + "end one with DELETE, or retry when one is idle"
                : "Too many sessions: the server has " + admission.limit() + " open sessions (its limit), each with a "
                        + "request in flight or an open stream; retry later";
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("limit", perPrincipal ? "maxSessionsPerPrincipal" : "maxSessions");
        data.put("max", admission.limit());
        responses.sendJson(exchange, perPrincipal ? 429 : 503,
                JsonRpc.error(id, HttpResponses.TOO_MANY_SESSIONS, message, data));
    }
}
