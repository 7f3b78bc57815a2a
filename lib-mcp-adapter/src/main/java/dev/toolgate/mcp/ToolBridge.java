package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Denied;
import dev.toolgate.call.DuplicateCallException;
import dev.toolgate.call.Executed;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ProposeApplyException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.call.UnknownToolException;
import dev.toolgate.json.Json;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncListFilter;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The bridge between the gate and the SDK's server: MCP tool definitions from descriptors, a
 * per-principal list filter, the {@code tools/call} handler with its error mapping, the apply tool,
 * and the registry listener that keeps the SDK's tool list current.
 *
 * <p>The SDK's server is built from asynchronous specifications on purpose. A synchronous server
 * runs each list filter on another thread ({@code boundedElastic}), and the SDK applies filters with
 * Reactor's {@code filterWhen}, which silently drops elements when a predicate completes on another
 * thread at the wrong moment: its draining thread can consume a result and try to start the next
 * predicate before the completing thread has released the previous one, and then discards the
 * element unevaluated (and every element after it until the release). {@code tools/list} then
 * returned some of the principal's tools, rarely, mostly in a freshly started (interpreted) JVM. Here
 * the filter answers on the calling thread ({@link #filter()}: a registry lookup and the resolver's
 * check, which is asked on every call anyway and must be fast), so
 * {@code filterWhen} never races; tool calls are still moved off the transport's thread
 * ({@link #specification}), as the synchronous server would.
 */
final class ToolBridge {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    /** The transport the audit trail records for calls over MCP. */
    static final String TRANSPORT = "mcp";

    /** Where a transport puts the request's principal in the {@link McpTransportContext}. */
    static final String PRINCIPAL_KEY = "dev.toolgate.principal";

    /** Where a transport may put a fresh {@link AtomicBoolean} per request: an Error listing tools is then logged once. */
    static final String ERROR_LOGGED_KEY = "dev.toolgate.errorLogged";

    private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(30);

    private final Toolgate toolgate;
    private final Duration clientTimeout;
    private final String applyToolName;
    private final PermissionMode permissionMode;
    private final Principal fixedPrincipal;
    private final Runnable registryListener = this::scheduleSync;
    private final ExecutorService syncer = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "toolgate-mcp-tools");
        thread.setDaemon(true);
        return thread;
    });
    private final Object syncLock = new Object();
    private final RunTools runTools;
    private final ClientConsent consent;
    private final TaskTargets tasks;
    private final ToolNaming naming;
    private Map<String, McpSchema.Tool> published = Map.of();
    /** The gate's name of each served tool whose MCP name differs from it (source tools), by MCP name. */
    private volatile Map<String, String> gateNames = Map.of();
    private volatile McpAsyncServer server;

    ToolBridge(Toolgate toolgate, String applyToolName, PermissionMode permissionMode, Principal fixedPrincipal) {
        this(toolgate, applyToolName, permissionMode, fixedPrincipal, Duration.ofMinutes(5), McpToolNames.standard(),
                ClientConsent.user(applyToolName));
    }

    /**
     * A bridge whose tools wait at most {@code clientTimeout} for the client (sampling, elicitation),
     * served under the names {@code toolNames} gives them.
     */
    ToolBridge(Toolgate toolgate, String applyToolName, PermissionMode permissionMode, Principal fixedPrincipal,
               Duration clientTimeout, McpToolNames toolNames, ClientConsent consent) {
        this.consent = Objects.requireNonNull(consent, "consent");
        this.clientTimeout = Objects.requireNonNull(clientTimeout, "clientTimeout");
        this.naming = new ToolNaming(toolNames);
        this.toolgate = Objects.requireNonNull(toolgate, "toolgate");
        this.applyToolName = applyToolName;
        this.permissionMode = permissionMode;
        this.fixedPrincipal = fixedPrincipal;
        this.runTools = new RunTools(toolgate, consent);
        this.tasks = new TaskTargets(toolgate, applyToolName, consent, runTools, this::gateName);
    }

    // ------------------------------------------------------------------------------------ tool list

    /** The tool specifications for the SDK's server: every registered tool plus the apply tool. */
    List<AsyncToolSpecification> specifications() {
        synchronized (syncLock) {
            Map<String, String> names = new LinkedHashMap<>();
            Map<String, McpSchema.Tool> tools = currentTools(names, published.isEmpty());
            gateNames = Map.copyOf(names);
            published = tools;
            List<AsyncToolSpecification> specs = new ArrayList<>();
            tools.values().forEach(tool -> specs.add(specification(tool)));
            return specs;
        }
    }

    /** Starts following the registry: tools registered or removed later reach every client. */
    void attach(McpAsyncServer mcpServer) {
        this.server = mcpServer;
        toolgate.registry().addListener(registryListener);
        scheduleSync();
    }

    void detach() {
        toolgate.registry().removeListener(registryListener);
        syncer.shutdownNow();
        server = null;
    }

    /**
     * Shows a principal exactly the tools the resolver offers it (and the apply tool if it may mutate).
     * Evaluated on the calling thread, never offloaded: see the class comment for the race that an
     * offloaded predicate exposes in the SDK's {@code tools/list}.
     */
    McpAsyncListFilter<McpSchema.Tool> filter() {
        return (context, tool) -> Mono.fromCallable(() -> {
            try {
                return isVisible(context, tool);
            } catch (Error e) {
                // the SDK asks about every tool even after one failed: log the first of a request only
                boolean first = !(context.get(ERROR_LOGGED_KEY) instanceof AtomicBoolean logged)
                        || logged.compareAndSet(false, true);
                throw internalError(first, "MCP tools/list failed with an error (at tool " + tool.name() + ")", e);
            }
        });
    }

    private boolean isVisible(McpTransportContext context, McpSchema.Tool tool) {
        return isVisible(principalOf(context), tool.name());
    }

    private boolean isVisible(Principal principal, String name) {
        if (principal == null) {
            return false;
        }
        if (name.equals(applyToolName) && consent.clientDecides()) {
            return mayMutate(principal);
        }
        if (runTools.handles(name)) {
            // a decision tool as the apply tool: only with a step that could need consent in view
            return RunTools.isDecision(name) ? mayMutate(principal) : !toolgate.resolveTools(principal).isEmpty();
        }
        return visible(principal, gateName(name)).isPresent();
    }

    /** True for the tools the MCP layer adds (the apply tool, run and decision tools), not the gate's own. */
    private boolean isMcpTool(String name) {
        return (name.equals(applyToolName) && consent.clientDecides()) || runTools.handles(name);
    }

    /** What {@code tools/list} offers a principal: the gate's tools it may see, and the tools the MCP layer adds. */
    record Listed(int gateTools, int mcpTools) {
        int total() {
            return gateTools + mcpTools;
        }
    }

    /** What {@code tools/list} returns to {@code principal} now, counted with the list filter's own predicate. */
    Listed listedFor(Principal principal) {
        Set<String> names;
        synchronized (syncLock) {
            names = published.keySet();
        }
        int gateTools = 0;
        int mcpTools = 0;
        for (String name : names) {
            if (isVisible(principal, name)) {
                if (isMcpTool(name)) {
                    mcpTools++;
                } else {
                    gateTools++;
                }
            }
        }
        return new Listed(gateTools, mcpTools);
    }

    private void scheduleSync() {
        try {
            syncer.execute(this::sync);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            LOG.debug("MCP tool list sync skipped: the server is closing");
        }
    }

    /** Brings the SDK's tool list in line with the registry; each change notifies clients (list_changed). */
    private void sync() {
        McpAsyncServer target = server;
        if (target == null) {
            return;
        }
        synchronized (syncLock) {
            Map<String, String> names = new LinkedHashMap<>();
            Map<String, McpSchema.Tool> wanted = currentTools(names, false);
            gateNames = Map.copyOf(names);
            try {
                for (String name : published.keySet()) {
                    if (!wanted.containsKey(name)) {
                        target.removeTool(name).block(SYNC_TIMEOUT);
                    }
                }
                for (McpSchema.Tool tool : wanted.values()) {
                    if (!tool.equals(published.get(tool.name()))) {
                        target.addTool(specification(tool)).block(SYNC_TIMEOUT);
                    }
                }
                if (!wanted.equals(published)) {
                    LOG.info("MCP tool list changed: {} tool(s)", wanted.size());
                }
                published = wanted;
            } catch (RuntimeException e) {
                LOG.warn("Updating the MCP tool list failed: {}", e.toString());
            }
        }
    }

    /**
     * The tools to serve by MCP name ({@link ToolNaming}); {@code names} receives the gate's name of each
     * renamed one. {@code strict} (at start): a name collision throws.
     */
    private Map<String, McpSchema.Tool> currentTools(Map<String, String> names, boolean strict) {
        Map<String, McpSchema.Tool> tools = new LinkedHashMap<>();
        naming.assign(new ArrayList<>(toolgate.registry().tools()), Set.of(applyToolName), strict).forEach((wire, tool) -> {
            tools.put(wire, ToolDefinitions.toMcp(wire, tool.descriptor(), tool.tool().returnsContent()));
            if (!wire.equals(tool.name())) {
                names.put(wire, tool.name());
            }
        });
        if (consent.clientDecides()) {
            tools.put(applyToolName, ToolDefinitions.applyTool(applyToolName));
        }
        runTools.tools().forEach((name, tool) -> {
            if (tools.putIfAbsent(name, tool) != null) {
                LOG.error("Tool {} has the name of an MCP run tool; the run tool is not served. Rename the tool", name);
            }
        });
        return tools;
    }

    /**
     * A tool for the SDK: the call runs on {@code boundedElastic}, off the transport's thread (a call
     * may block on the gate or wait for the client's answer to an elicitation, which that very thread
     * must read), exactly as the SDK's synchronous server would run it.
     */
    private AsyncToolSpecification specification(McpSchema.Tool tool) {
        return AsyncToolSpecification.builder()
                .tool(tool)
                .callHandler((exchange, request) -> Mono.fromCallable(() -> call(exchange, request))
                        .subscribeOn(Schedulers.boundedElastic()))
                .build();
    }

    /** The gate's name of the tool served as {@code mcpName}. */
    String gateName(String mcpName) {
        return mcpName == null ? null : gateNames.getOrDefault(mcpName, mcpName);
    }

    // ------------------------------------------------------------------------------------ calls

    /**
     * The {@code tools/call} handler for every tool: the tool's execution gets a {@link McpClientChannel}
     * to this client, closed when the call returns.
     */
    CallToolResult call(McpAsyncServerExchange asyncExchange, CallToolRequest request) {
        try (McpClientChannel channel = McpClientChannel.of(asyncExchange, request, clientTimeout)) {
            return call(new McpSyncServerExchange(asyncExchange), request, channel);
        }
    }

    private CallToolResult call(McpSyncServerExchange exchange, CallToolRequest request, McpClientChannel channel) {
        String name = gateName(request.name());
        String wire = request.name(); // what the client sent: an unknown-tool error names it, never the gate's name
        Principal principal = principalOf(exchange.transportContext());
        if (principal == null) {
            throw unknownTool(wire);
        }
        CallContext context = context(principal, exchange.sessionId()).withChannel(channel);
        try {
            if (name.equals(applyToolName) && consent.clientDecides()) {
                // listed only with a mutating tool in view, but callable by anyone offered any tool, so a
                // principal that lost its last mutating rule after proposing learns which rule it lacks
                if (toolgate.resolveTools(principal).isEmpty()) {
                    throw unknownTool(wire);
                }
                return apply(exchange, context, request.arguments());
            }
            if (runTools.handles(name) && toolgate.registry().find(name).isEmpty()) {
                if (toolgate.resolveTools(principal).isEmpty()) {
                    throw unknownTool(wire);
                }
                return runTools.call(exchange, context, name, request.arguments(),
                        (ex, callId, tool, summary) -> confirm(ex, callId, tool, summary));
            }
            if (visible(principal, name).isEmpty()) {
                throw unknownTool(wire);
            }
            JsonNode arguments = request.arguments() == null ? null : Json.toTree(request.arguments());
            return success(toolgate.call(context, name, arguments), exchange);
        } catch (McpError e) {
            throw e;
        } catch (UnknownToolException e) {
            throw unknownTool(wire);
        } catch (BudgetExceededException e) {
            throw CallAnswers.rateLimited(e);
        } catch (ToolValidationException e) {
            return CallAnswers.feedback((e.toolName() == null ? e.forTool(name) : e).feedback());
        } catch (DuplicateCallException e) {
            return CallAnswers.feedback(e.feedback());
        } catch (ForbiddenException e) {
            return CallAnswers.forbidden(e);
        } catch (ProposeApplyException e) {
            return CallAnswers.gateError(e);
        } catch (ToolExecutionException e) {
            return CallAnswers.executionFailed(e);
        } catch (StoreUnavailableException e) { // the store logs the outage once; no trace per call
            LOG.debug("MCP call of {} refused: {}", name, e.getMessage());
            if (overHttp(exchange.transportContext())) {
                throw CallAnswers.storeUnavailableError(e);
            }
            return CallAnswers.storeUnavailable(e);
        } catch (RuntimeException e) {
            LOG.error("MCP call of {} failed", name, toolgate.settings().redactor().redactThrowable(e));
            throw McpError.builder(JsonRpc.INTERNAL_ERROR).message("Internal error").build();
        } catch (Error e) {
            throw internalError(true, "MCP call of " + name + " failed with an error", e);
        }
    }

    private CallToolResult apply(McpSyncServerExchange exchange, CallContext context, Map<String, Object> arguments) {
        String token = applyToken(arguments);
        PendingProposal pending = toolgate.inspect(context, token); // the same typed errors apply would throw
        if (pending.effect() == Effect.DESTRUCTIVE) {
            CallToolResult refusal = confirm(exchange, pending.callId(), pending.toolName(), pending.summary());
            if (refusal != null) {
                return refusal;
            }
        }
        return success(toolgate.apply(context, token), exchange);
    }

    /** The token argument, or a validation failure the model can correct. */
    private String applyToken(Map<String, Object> arguments) {
        List<ValidationIssue> issues = new ArrayList<>();
        Object token = arguments == null ? null : arguments.get("token");
        if (token == null) {
            issues.add(ValidationIssue.at("/token", "is required: pass the token from the proposal's result"));
        } else if (!(token instanceof String)) {
            issues.add(ValidationIssue.at("/token", "must be a string"));
        }
        if (arguments != null) {
            arguments.keySet().stream().filter(key -> !key.equals("token")).sorted().forEach(key ->
                    issues.add(ValidationIssue.at("/" + key, "is not allowed: " + applyToolName + " takes only the token")));
        }
        if (!issues.isEmpty()) {
            throw new ToolValidationException(applyToolName, issues);
        }
        return (String) token;
    }

    /** The consent check of a destructive change, as a result; null if it may go on. */
    private CallToolResult confirm(McpSyncServerExchange exchange, String callId, String toolName, String summary) {
        ObjectNode refusal = consent.confirmDestructive(exchange, callId, toolName, summary);
        return refusal == null ? null : CallAnswers.result(refusal, true);
    }

    // ------------------------------------------------------------------------------------ results

    private CallToolResult success(CallResult result, McpSyncServerExchange exchange) {
        if (result instanceof Proposal proposal) {
            return CallAnswers.result(consent.proposal(proposal, exchange), false);
        }
        if (result instanceof Applied applied && applied.result() instanceof ObjectNode && applied.result().has("executionId")
                && runTools.startsRuns(applied.toolName())) {
            // a tool that starts a run (codemode.run) answers with the run's outcome: paused, completed, error
            ObjectNode json = consent.outcome(((ObjectNode) applied.result()).deepCopy(), exchange, runTools::isDestructive);
            json.put("callId", applied.callId());
            String status = json.path("status").asString("");
            return CallAnswers.result(json, status.equals("error") || status.equals("failed"));
        }
        if (result instanceof Denied denied) {
            return CallAnswers.result(denied.toJson(), true);
        }
        if (result instanceof Executed executed && executed.content() != null) {
            return McpContent.result(executed.content(), executed.callId(), executed.status());
        }
        if (result instanceof Applied applied && applied.content() != null) {
            return McpContent.result(applied.content(), applied.callId(), applied.status());
        }
        if (result instanceof Executed || result instanceof Applied) {
            return CallAnswers.result(result.toJson(), false);
        }
        throw new IllegalStateException("unexpected call result " + result.getClass().getName());
    }

    /**
     * An {@link Error} from the host's code (a tool, the resolver), logged here, once, and answered
     * -32603. It must not reach Reactor: Reactor rethrows fatal errors ({@link StackOverflowError},
     * {@link OutOfMemoryError}, {@link LinkageError}) on its thread instead of signalling them, logging
     * each time, and a request whose handler runs on another thread would then never be answered.
     */
    private McpError internalError(boolean log, String what, Error e) {
        if (log) {
            LOG.error(what, toolgate.settings().redactor().redactThrowable(e));
        }
        return McpError.builder(JsonRpc.INTERNAL_ERROR).message("Internal error").build();
    }

    /** The error for a missing or hidden tool: exactly what the SDK answers for a name it does not know. */
    static McpError unknownTool(String name) {
        return McpError.builder(JsonRpc.INVALID_PARAMS).message("Unknown tool: invalid_tool_name")
                .data("Tool not found: " + name).build();
    }

    /** What a task-augmented call of each tool would start; see {@link TaskTargets}. */
    TaskTargets tasks() {
        return tasks;
    }

    /** The MCP name of the gate's tool {@code gateName} (what the client was offered). */
    String wireName(String gateName) {
        return gateNames.entrySet().stream().filter(e -> e.getValue().equals(gateName)).map(Map.Entry::getKey)
                .findFirst().orElse(gateName);
    }

    // ------------------------------------------------------------------------------------ helpers

    private Optional<RegisteredTool> visible(Principal principal, String name) {
        return toolgate.registry().find(name).filter(tool -> toolgate.resolver().isAllowed(principal, tool));
    }

    private boolean mayMutate(Principal principal) {
        return toolgate.resolveTools(principal).stream().anyMatch(tool -> tool.effect().mutates());
    }

    /** True for a request over Streamable HTTP (JDK server or servlet): their contexts carry {@link #ERROR_LOGGED_KEY}. */
    static boolean overHttp(McpTransportContext context) {
        return context != null && context.get(ERROR_LOGGED_KEY) != null;
    }

    private Principal principalOf(McpTransportContext context) {
        Object principal = context == null ? null : context.get(PRINCIPAL_KEY);
        return principal instanceof Principal p ? p : fixedPrincipal;
    }

    CallContext context(Principal principal, String sessionId) {
        CallContext context = CallContext.of(principal).withTransport(TRANSPORT).withPermissionMode(permissionMode);
        if (sessionId != null && !sessionId.isBlank() && sessionId.length() <= 200) {
            context = context.withSession(sessionId);
        }
        return context;
    }
}
