package dev.toolgate.mcp;

import dev.toolgate.access.Principal;
import dev.toolgate.access.Resolver;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bodies of the catalog's methods, each for one principal: lists hold only what the resolver
 * allows; a hidden entry is looked up as if it were absent, so reading, getting, subscribing and
 * completing answer the unknown-entry error ({@link #notFound}, {@link #unknownPrompt},
 * {@link #unknownTemplate}) before any other check that could tell it apart.
 */
final class CatalogAnswers {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    /** Host code's exceptions are logged with their messages redacted (the gate's default terms). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();

    /** The JSON-RPC error code for a resource that does not exist (or is hidden), as the MCP specification names it. */
    static final int RESOURCE_NOT_FOUND = -32002;

    /** The most completion values sent, as the MCP specification allows. */
    static final int MAX_COMPLETIONS = 100;

    private final McpCatalog catalog;
    private final Resolver resolver;
    private final CatalogSubscriptions subscriptions;

    CatalogAnswers(McpCatalog catalog, Resolver resolver, CatalogSubscriptions subscriptions) {
        this.catalog = catalog;
        this.resolver = resolver;
        this.subscriptions = subscriptions;
    }

    // ------------------------------------------------------------------------------------ resources

    McpSchema.ListResourcesResult listResources(Principal principal) {
        List<McpSchema.Resource> listed = catalog.resources().stream()
                .filter(r -> CatalogDispatch.allowed(resolver, principal, r))
                .map(r -> McpSchema.Resource.builder(r.uri(), r.name()).title(r.title()).description(r.description())
                        .mimeType(r.mimeType()).build())
                .toList();
        return new McpSchema.ListResourcesResult(listed, null);
    }

    McpSchema.ListResourceTemplatesResult listTemplates(Principal principal) {
        List<McpSchema.ResourceTemplate> listed = catalog.templates().stream()
                .filter(t -> CatalogDispatch.allowed(resolver, principal, t))
                .map(t -> McpSchema.ResourceTemplate.builder(t.uriTemplate(), t.name()).title(t.title())
                        .description(t.description()).mimeType(t.mimeType()).build())
                .toList();
        return new McpSchema.ListResourceTemplatesResult(listed, null);
    }

    McpSchema.ReadResourceResult read(Principal principal, Map<String, Object> params) {
        String uri = uri(params);
        Target target = find(principal, uri);
        if (target == null) {
            throw notFound(uri);
        }
        List<McpContents> contents;
        try {
            contents = target.reader().read(new McpResource.Request(principal, uri, target.variables()));
        } catch (Exception e) {
            LOG.error("Reading MCP resource {} ({}) for {} failed", clip(uri), target.name(), principal.key(),
                    LOGGED.redactThrowable(e));
            throw internal("the resource could not be read");
        }
        if (contents == null || contents.isEmpty()) {
            throw notFound(uri);
        }
        return new McpSchema.ReadResourceResult(contents.stream().map(c -> Objects.requireNonNull(c, "contents").toMcp()).toList());
    }

    Map<String, Object> subscribe(Principal principal, String sessionId, Map<String, Object> params) {
        String uri = uri(params);
        if (find(principal, uri) == null) {
            throw notFound(uri);
        }
        if (!subscriptions.add(sessionId, principal, uri)) {
            throw invalid("too many subscriptions: a session may hold at most " + catalog.maxSubscriptionsPerSession()
                    + "; unsubscribe from one first");
        }
        return Map.of();
    }

    /** Always succeeds, whether or not the session was subscribed (so it tells nothing either). */
    Map<String, Object> unsubscribe(String sessionId, Map<String, Object> params) {
        subscriptions.remove(sessionId, uri(params));
        return Map.of();
    }

    /** Whether {@code principal} may read {@code uri} now (it would not get "Resource not found"). */
    boolean mayRead(Principal principal, String uri) {
        try {
            return find(principal, uri) != null;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** What serves {@code uri} for this principal: the fixed resource, else the first matching template it may see; null if none. */
    private Target find(Principal principal, String uri) {
        for (McpResource resource : catalog.resources()) {
            if (resource.uri().equals(uri) && CatalogDispatch.allowed(resolver, principal, resource)) {
                return new Target(resource.name(), resource.reader(), Map.of());
            }
        }
        for (McpResourceTemplate template : catalog.templates()) {
            Map<String, String> variables = template.match(uri);
            if (variables != null && CatalogDispatch.allowed(resolver, principal, template)) {
                return new Target(template.name(), template.reader(), variables);
            }
        }
        return null;
    }

    private record Target(String name, McpResource.Reader reader, Map<String, String> variables) {
    }

    // ------------------------------------------------------------------------------------ prompts

    McpSchema.ListPromptsResult listPrompts(Principal principal) {
        List<McpSchema.Prompt> listed = catalog.prompts().stream()
                .filter(p -> CatalogDispatch.allowed(resolver, principal, p))
                .map(p -> new McpSchema.Prompt(p.name(), p.title(), p.description(), p.arguments().stream()
                        .map(a -> new McpSchema.PromptArgument(a.name(), null, a.description(), a.required()))
                        .toList()))
                .toList();
        return new McpSchema.ListPromptsResult(listed, null);
    }

    McpSchema.GetPromptResult getPrompt(Principal principal, Map<String, Object> params) {
        String name = string(params, "name");
        McpPrompt prompt = prompt(principal, name);
        Map<String, String> arguments = strings(params.get("arguments"), "arguments");
        List<String> undeclared = arguments.keySet().stream().filter(a -> !prompt.declares(a)).sorted().toList();
        if (!undeclared.isEmpty()) {
            throw invalid("prompt " + name + " has no argument(s) " + String.join(", ", undeclared)
                    + "; its arguments are " + prompt.arguments().stream().map(McpPrompt.Argument::name).toList(),
                    Map.of("undeclared", undeclared));
        }
        List<String> missing = prompt.missing(arguments);
        if (!missing.isEmpty()) {
            throw invalid("prompt " + name + " needs the argument(s) " + String.join(", ", missing), Map.of("missing", missing));
        }
        List<McpPromptMessage> messages;
        try {
            messages = prompt.renderer().render(new McpPrompt.Request(principal, name, arguments));
        } catch (Exception e) {
            LOG.error("Rendering MCP prompt {} for {} failed", name, principal.key(), LOGGED.redactThrowable(e));
            throw internal("the prompt could not be rendered");
        }
        return new McpSchema.GetPromptResult(prompt.description(),
                messages == null ? List.of() : messages.stream().map(m -> Objects.requireNonNull(m, "message").toMcp()).toList());
    }

    private McpPrompt prompt(Principal principal, String name) {
        return catalog.prompts().stream()
                .filter(p -> p.name().equals(name) && CatalogDispatch.allowed(resolver, principal, p))
                .findFirst().orElseThrow(() -> unknownPrompt(name));
    }

    // ------------------------------------------------------------------------------------ completion

    McpSchema.CompleteResult complete(Principal principal, Map<String, Object> params) {
        Map<String, Object> ref = object(params.get("ref"), "ref");
        Map<String, Object> argument = object(params.get("argument"), "argument");
        String argumentName = string(argument, "name");
        Object rawValue = argument.get("value");
        if (!(rawValue instanceof String value)) {
            throw invalid("argument.value must be a string");
        }
        Object contextObject = params.get("context");
        Map<String, String> context = contextObject == null ? Map.of()
                : strings(object(contextObject, "context").get("arguments"), "context.arguments");
        Object type = ref.get("type");
        McpCompleter completer;
        if ("ref/prompt".equals(type)) {
            McpPrompt prompt = prompt(principal, string(ref, "name"));
            if (!prompt.declares(argumentName)) {
                throw invalid("prompt " + prompt.name() + " has no argument " + argumentName);
            }
            completer = prompt.completers().get(argumentName);
        } else if ("ref/resource".equals(type)) {
            String uri = string(ref, "uri");
            McpResourceTemplate template = catalog.templates().stream()
                    .filter(t -> t.uriTemplate().equals(uri) && CatalogDispatch.allowed(resolver, principal, t))
                    .findFirst().orElseThrow(() -> unknownTemplate(uri));
            if (!template.variables().contains(argumentName)) {
                throw invalid("resource template " + uri + " has no variable " + argumentName);
            }
            completer = template.completers().get(argumentName);
        } else {
            throw invalid("ref.type must be ref/prompt or ref/resource");
        }
        List<String> values = List.of();
        if (completer != null) {
            try {
                List<String> found = completer.complete(new McpCompleter.Request(principal, argumentName, value, context));
                values = found == null ? List.of() : found.stream().filter(Objects::nonNull).toList();
            } catch (Exception e) {
                LOG.error("Completing {} for {} failed", argumentName, principal.key(), LOGGED.redactThrowable(e));
                throw internal("the completion failed");
            }
        }
        List<String> sent = values.size() > MAX_COMPLETIONS ? values.subList(0, MAX_COMPLETIONS) : values;
        return new McpSchema.CompleteResult(new McpSchema.CompleteResult.CompleteCompletion(
                List.copyOf(sent), values.size(), values.size() > MAX_COMPLETIONS));
    }

    // ------------------------------------------------------------------------------------ params and errors

    private static String uri(Map<String, Object> params) {
        String uri = string(params, "uri");
        if (uri.length() > McpResource.MAX_URI_LENGTH) {
            throw invalid("uri is longer than " + McpResource.MAX_URI_LENGTH + " characters");
        }
        return uri;
    }

    private static String string(Map<String, Object> params, String name) {
        Object value = params.get(name);
        if (!(value instanceof String text)) {
            throw invalid(name + (value == null ? " is required" : " must be a string"));
        }
        if (text.length() > McpResource.MAX_URI_LENGTH) {
            throw invalid(name + " is longer than " + McpResource.MAX_URI_LENGTH + " characters");
        }
        return text;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object value, String name) {
        if (!(value instanceof Map<?, ?> map)) {
            throw invalid(name + (value == null ? " is required" : " must be an object"));
        }
        return (Map<String, Object>) map;
    }

    /** An optional object of string values. */
    private static Map<String, String> strings(Object value, String name) {
        if (value == null) {
            return Map.of();
        }
        Map<String, String> strings = new LinkedHashMap<>();
        for (Map.Entry<String, Object> entry : object(value, name).entrySet()) {
            if (!(entry.getValue() instanceof String text)) {
                throw invalid(name + "." + entry.getKey() + " must be a string");
            }
            strings.put(entry.getKey(), text);
        }
        return strings;
    }

    static McpError invalid(String what) {
        return McpError.builder(JsonRpc.INVALID_PARAMS).message("Invalid params: " + what).build();
    }

    private static McpError invalid(String what, Object data) {
        return McpError.builder(JsonRpc.INVALID_PARAMS).message("Invalid params: " + what).data(data).build();
    }

    /** The one answer for a URI no visible resource or template serves. */
    static McpError notFound(String uri) {
        return McpError.builder(RESOURCE_NOT_FOUND).message("Resource not found").data(Map.of("uri", uri)).build();
    }

    /** The one answer for a prompt name no visible prompt has. */
    static McpError unknownPrompt(String name) {
        return McpError.builder(JsonRpc.INVALID_PARAMS).message("Invalid params: unknown prompt").data(Map.of("name", name)).build();
    }

    /** The one answer for a completion reference to a template no visible one has. */
    static McpError unknownTemplate(String uri) {
        return McpError.builder(JsonRpc.INVALID_PARAMS).message("Invalid params: unknown resource template")
                .data(Map.of("uri", uri)).build();
    }

    private static McpError internal(String what) {
        return McpError.builder(JsonRpc.INTERNAL_ERROR).message("Internal error: " + what).build();
    }

    private static String clip(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }
}
