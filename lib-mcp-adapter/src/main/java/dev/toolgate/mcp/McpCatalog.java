package dev.toolgate.mcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * The resources, resource templates and prompts a host serves over MCP next to the gate's tools,
 * each guarded by access rules that the gate's own resolver decides ({@code toolgate.resolver()}),
 * exactly as for tools. Give it to a server with {@code ToolgateMcpServer.stdio(...).catalog(catalog)}
 * or {@code .http(...).catalog(catalog)}; one catalog may serve several servers.
 *
 * <p>What a principal the resolver refuses sees: exactly what it would see if the entry did not
 * exist. A hidden resource or prompt is absent from {@code resources/list},
 * {@code resources/templates/list} and {@code prompts/list}; reading, getting, subscribing to or
 * completing it gets the same error, byte for byte, as an unknown one; a URI that a hidden fixed
 * resource and a visible template both match is served by the template, as if the hidden one did
 * not exist.
 *
 * <p>Capabilities: a server advertises {@code resources} ({@code subscribe}, {@code listChanged}) when
 * the catalog holds a resource or template at {@code start()}, {@code prompts} ({@code listChanged})
 * when it holds a prompt, {@code completions} when a prompt or template has a completer; register
 * entries before starting. Entries may be added and removed later: each change sends
 * {@code notifications/resources/list_changed} or {@code notifications/prompts/list_changed}.
 *
 * <p>Subscriptions ({@code resources/subscribe}) are per session, at most
 * {@link #maxSubscriptionsPerSession(int)} each, and end with the session. {@link #resourceUpdated}
 * sends {@code notifications/resources/updated} only to sessions that subscribed to the URI and whose
 * principal the resolver still allows at that moment (on Streamable HTTP, the principal of the
 * session's latest resource or prompt request).
 *
 * <p>Readers, renderers and completers run on a server thread with the principal of the request;
 * whatever they throw becomes JSON-RPC -32603 "Internal error" and is logged, never sent.
 */
public final class McpCatalog {

    private final Object lock = new Object();
    private volatile List<McpResource> resources = List.of();
    private volatile List<McpResourceTemplate> templates = List.of();
    private volatile List<McpPrompt> prompts = List.of();
    private volatile int maxSubscriptionsPerSession = 64;
    private final List<CatalogDispatch> servers = new CopyOnWriteArrayList<>();

    private McpCatalog() {
    }

    /** An empty catalog. */
    public static McpCatalog create() {
        return new McpCatalog();
    }

    /** Adds a fixed resource; its URI must not be registered yet. */
    public McpCatalog add(McpResource resource) {
        Objects.requireNonNull(resource, "resource");
        synchronized (lock) {
            if (resources.stream().anyMatch(r -> r.uri().equals(resource.uri()))) {
                throw new IllegalArgumentException("a resource with uri " + resource.uri() + " is already registered");
            }
            resources = append(resources, resource);
        }
        servers.forEach(s -> s.listChanged(true, false));
        return this;
    }

    /** Adds a resource template; its template text must not be registered yet. Templates match in the order added. */
    public McpCatalog add(McpResourceTemplate template) {
        Objects.requireNonNull(template, "template");
        synchronized (lock) {
            if (templates.stream().anyMatch(t -> t.uriTemplate().equals(template.uriTemplate()))) {
                throw new IllegalArgumentException("a resource template " + template.uriTemplate() + " is already registered");
            }
            templates = append(templates, template);
        }
        servers.forEach(s -> s.listChanged(true, false));
        return this;
    }

    /** Adds a prompt; its name must not be registered yet. */
    public McpCatalog add(McpPrompt prompt) {
        Objects.requireNonNull(prompt, "prompt");
        synchronized (lock) {
            if (prompts.stream().anyMatch(p -> p.name().equals(prompt.name()))) {
                throw new IllegalArgumentException("a prompt named " + prompt.name() + " is already registered");
            }
            prompts = append(prompts, prompt);
        }
        servers.forEach(s -> s.listChanged(false, true));
        return this;
    }

    /** Removes the resource with this URI; false if there was none. */
    public boolean removeResource(String uri) {
        boolean removed;
        synchronized (lock) {
            List<McpResource> kept = without(resources, r -> r.uri().equals(uri));
            removed = kept.size() < resources.size();
            resources = kept;
        }
        if (removed) {
            servers.forEach(s -> s.listChanged(true, false));
        }
        return removed;
    }

    /** Removes the template registered as {@code uriTemplate}; false if there was none. */
    public boolean removeTemplate(String uriTemplate) {
        boolean removed;
        synchronized (lock) {
            List<McpResourceTemplate> kept = without(templates, t -> t.uriTemplate().equals(uriTemplate));
            removed = kept.size() < templates.size();
            templates = kept;
        }
        if (removed) {
            servers.forEach(s -> s.listChanged(true, false));
        }
        return removed;
    }

    /** Removes the prompt with this name; false if there was none. */
    public boolean removePrompt(String name) {
        boolean removed;
        synchronized (lock) {
            List<McpPrompt> kept = without(prompts, p -> p.name().equals(name));
            removed = kept.size() < prompts.size();
            prompts = kept;
        }
        if (removed) {
            servers.forEach(s -> s.listChanged(false, true));
        }
        return removed;
    }

    /**
     * Tells subscribers that the resource at {@code uri} changed: every session subscribed to exactly
     * this URI whose principal may still see it gets {@code notifications/resources/updated}. Returns
     * at once; notifications are sent in the background, in order.
     */
    public void resourceUpdated(String uri) {
        Objects.requireNonNull(uri, "uri");
        servers.forEach(s -> s.resourceUpdated(uri));
    }

    /**
     * Tells every client to list resources and prompts again, for a change the catalog cannot see
     * (the resolver's decisions changed, say). Adding and removing entries notifies by itself.
     */
    public void listsChanged() {
        servers.forEach(s -> s.listChanged(true, true));
    }

    /**
     * The most subscriptions one session may hold (default 64); a {@code resources/subscribe} beyond
     * it gets -32602. Applies to servers started afterwards.
     */
    public McpCatalog maxSubscriptionsPerSession(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxSubscriptionsPerSession must be at least 1");
        }
        this.maxSubscriptionsPerSession = max;
        return this;
    }

    // ------------------------------------------------------------------------------------ for the servers

    List<McpResource> resources() {
        return resources;
    }

    List<McpResourceTemplate> templates() {
        return templates;
    }

    List<McpPrompt> prompts() {
        return prompts;
    }

    int maxSubscriptionsPerSession() {
        return maxSubscriptionsPerSession;
    }

    void attach(CatalogDispatch server) {
        servers.add(server);
    }

    void detach(CatalogDispatch server) {
        servers.remove(server);
    }

    private static <T> List<T> append(List<T> list, T item) {
        List<T> copy = new ArrayList<>(list);
        copy.add(item);
        return List.copyOf(copy);
    }

    private static <T> List<T> without(List<T> list, Predicate<T> drop) {
        return list.stream().filter(drop.negate()).toList();
    }
}
