package dev.toolgate.mcp;

import dev.toolgate.access.Guarded;
import dev.toolgate.access.Principal;
import dev.toolgate.access.Resolver;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Schedulers;

/**
 * Answers a server's resource, prompt and completion requests for an {@link McpCatalog}, in front of
 * the SDK, on both transports: the transports hand these requests here instead of to the SDK's
 * session (HTTP in {@link HttpPost}, stdio in {@link StdioInput}), with the request's principal.
 *
 * <p>Why not the SDK's own handlers: the SDK (2.1) filters only {@code tools/list} per caller; its
 * {@code resources/list}, {@code resources/templates/list} and {@code prompts/list} return every
 * registered entry, and its subscriptions notify every subscribed session whoever it belongs to.
 * Answering all eight methods here keeps one code path for visibility and one shape for every
 * "unknown" error, so a hidden entry cannot be told from a missing one. The server still advertises
 * the capabilities, so the SDK registers its handlers, but they never receive a request: were a
 * request to reach them, they would see an empty catalog (fail closed).
 *
 * <p>The method bodies live in {@link CatalogAnswers}; this class routes, turns failures into JSON-RPC
 * errors, and sends notifications.
 */
final class CatalogDispatch {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    /** Host code's exceptions are logged with their messages redacted (the gate's default terms). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();

    /** The one session of a stdio server. */
    static final String STDIO_SESSION = "stdio";

    /** Where a server's notifications go, per transport. */
    interface Sink {

        /** Sends a notification to one session; failures are the sink's to log. */
        void send(String sessionId, String method, Object params);

        /** Whether the session is still open. */
        boolean alive(String sessionId);
    }

    private final McpCatalog catalog;
    private final CatalogAnswers answers;
    private final CatalogSubscriptions subscriptions;
    private final Set<String> methods;
    private final boolean resourcesServed;
    private final boolean promptsServed;
    private final ExecutorService notifier = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "toolgate-mcp-catalog");
        thread.setDaemon(true);
        return thread;
    });
    private volatile McpAsyncServer server;
    private volatile Sink sink;

    CatalogDispatch(McpCatalog catalog, Resolver resolver) {
        this.catalog = catalog;
        this.subscriptions = new CatalogSubscriptions(catalog.maxSubscriptionsPerSession());
        this.answers = new CatalogAnswers(catalog, resolver, subscriptions);
        this.resourcesServed = !catalog.resources().isEmpty() || !catalog.templates().isEmpty();
        this.promptsServed = !catalog.prompts().isEmpty();
        boolean completions = catalog.prompts().stream().anyMatch(p -> !p.completers().isEmpty())
                || catalog.templates().stream().anyMatch(t -> !t.completers().isEmpty());
        Set<String> served = new java.util.HashSet<>();
        if (resourcesServed) {
            served.addAll(List.of(McpSchema.METHOD_RESOURCES_LIST, McpSchema.METHOD_RESOURCES_TEMPLATES_LIST,
                    McpSchema.METHOD_RESOURCES_READ, McpSchema.METHOD_RESOURCES_SUBSCRIBE, McpSchema.METHOD_RESOURCES_UNSUBSCRIBE));
        }
        if (promptsServed) {
            served.addAll(List.of(McpSchema.METHOD_PROMPT_LIST, McpSchema.METHOD_PROMPT_GET));
        }
        if (completions) {
            served.add(McpSchema.METHOD_COMPLETION_COMPLETE);
        }
        this.methods = Set.copyOf(served);
    }

    /** The capabilities the catalog adds to {@code initialize}: only those with something registered. */
    McpSchema.ServerCapabilities.Builder advertise(McpSchema.ServerCapabilities.Builder capabilities) {
        if (resourcesServed) {
            capabilities.resources(true, true);
        }
        if (promptsServed) {
            capabilities.prompts(true);
        }
        if (methods.contains(McpSchema.METHOD_COMPLETION_COMPLETE)) {
            capabilities.completions();
        }
        return capabilities;
    }

    /** Starts serving through {@code server} (list_changed) and {@code sink} (resource updates). */
    void attach(McpAsyncServer mcpServer, Sink notifications) {
        this.server = mcpServer;
        this.sink = notifications;
        catalog.attach(this);
    }

    void close() {
        catalog.detach(this);
        notifier.shutdownNow();
        subscriptions.clear();
        server = null;
    }

    /** Whether this server answers {@code method} here (its capability is advertised). */
    boolean handles(String method) {
        return method != null && methods.contains(method);
    }

    /** The response to one request of {@code principal} in session {@code sessionId}; never throws. */
    McpSchema.JSONRPCResponse answer(Principal principal, String sessionId, McpSchema.JSONRPCRequest request) {
        return JsonRpc.respond(request, () -> {
            Map<String, Object> params = JsonRpc.params(request.params());
            subscriptions.refresh(sessionId, principal);
            return switch (request.method()) {
                case McpSchema.METHOD_RESOURCES_LIST -> answers.listResources(principal);
                case McpSchema.METHOD_RESOURCES_TEMPLATES_LIST -> answers.listTemplates(principal);
                case McpSchema.METHOD_RESOURCES_READ -> answers.read(principal, params);
                case McpSchema.METHOD_RESOURCES_SUBSCRIBE -> {
                    if (sink != null) {
                        subscriptions.prune(sink::alive);
                    }
                    yield answers.subscribe(principal, sessionId, params);
                }
                case McpSchema.METHOD_RESOURCES_UNSUBSCRIBE -> answers.unsubscribe(sessionId, params);
                case McpSchema.METHOD_PROMPT_LIST -> answers.listPrompts(principal);
                case McpSchema.METHOD_PROMPT_GET -> answers.getPrompt(principal, params);
                case McpSchema.METHOD_COMPLETION_COMPLETE -> answers.complete(principal, params);
                default -> throw McpError.builder(JsonRpc.METHOD_NOT_FOUND).message("Method not found: " + request.method()).build();
            };
        });
    }

    /** Queues {@code notifications/resources/updated} for each subscriber that may still see {@code uri}. */
    void resourceUpdated(String uri) {
        Sink target = sink;
        if (target == null) {
            return;
        }
        try {
            notifier.execute(() -> {
                subscriptions.prune(target::alive);
                for (CatalogSubscriptions.Subscriber subscriber : subscriptions.subscribers(uri)) {
                    if (answers.mayRead(subscriber.principal(), uri)) {
                        Map<String, Object> params = new LinkedHashMap<>();
                        params.put("uri", uri);
                        target.send(subscriber.sessionId(), McpSchema.METHOD_NOTIFICATION_RESOURCES_UPDATED, params);
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("Resource update of {} not sent: the server is closing", uri);
        }
    }

    /** Sends the list_changed notifications this server advertises, to every session. */
    void listChanged(boolean resources, boolean prompts) {
        McpAsyncServer target = server;
        if (target == null) {
            return;
        }
        if ((resources && !resourcesServed && !(catalog.resources().isEmpty() && catalog.templates().isEmpty()))
                || (prompts && !promptsServed && !catalog.prompts().isEmpty())) {
            LOG.warn("MCP catalog entries added after this server started, of a kind it does not advertise "
                    + "(resources or prompts), are not served by it; register at least one of each kind before start()");
        }
        try {
            notifier.execute(() -> {
                try {
                    if (resources && resourcesServed) {
                        target.notifyResourcesListChanged().block(java.time.Duration.ofSeconds(30));
                    }
                    if (prompts && promptsServed) {
                        target.notifyPromptsListChanged().block(java.time.Duration.ofSeconds(30));
                    }
                } catch (RuntimeException e) {
                    LOG.warn("Sending list_changed failed: {}", e.toString());
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("list_changed not sent: the server is closing");
        }
    }

    /**
     * The stdio hook: takes this server's catalog requests off the SDK's path, answers each on
     * {@code boundedElastic} (a reader may block) and sends the answer through the session's
     * serialized transport, as the SDK's own answers go.
     */
    StdioInput.Route stdioRoute(Principal principal, StdioSerialSends sends, McpJsonMapper mapper) {
        return (checked, text) -> {
            if (!handles(checked.method())) {
                return false;
            }
            McpSchema.JSONRPCRequest request;
            try {
                request = (McpSchema.JSONRPCRequest) McpSchema.deserializeJsonRpcMessage(mapper, text);
            } catch (IOException | RuntimeException e) {
                return false; // the SDK answers what it cannot read either
            }
            Runnable work = () -> sends.send(answer(principal, STDIO_SESSION, request));
            try {
                Schedulers.boundedElastic().schedule(work);
            } catch (RejectedExecutionException e) {
                work.run();
            }
            return true;
        };
    }

    /** Subscriptions held now (pruning ended sessions first); for tests. */
    int subscriptionCount() {
        Sink target = sink;
        if (target != null) {
            subscriptions.prune(target::alive);
        }
        return subscriptions.size();
    }

    /** The resolver's decision, failing closed: an exception from the resolver hides the entry (logged). */
    static boolean allowed(Resolver resolver, Principal principal, Guarded entry) {
        if (principal == null) {
            return false;
        }
        try {
            return resolver.isAllowed(principal, entry);
        } catch (RuntimeException e) {
            LOG.error("The resolver failed deciding {} for {}; hidden", entry.name(), principal.key(), LOGGED.redactThrowable(e));
            return false;
        }
    }
}
