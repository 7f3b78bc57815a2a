package dev.toolgate.mcp.remote;

import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.json.Json;
import dev.toolgate.source.SecretResolver;
import dev.toolgate.source.SourceContext;
import dev.toolgate.source.SourceTool;
import dev.toolgate.source.SourceToolException;
import dev.toolgate.source.ToolSource;
import dev.toolgate.tool.Effect;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A remote MCP server as a tool source: its tools become gate tools named
 * {@code mcp:<name>.<remote tool>}, validated locally against the remote's input schema before
 * anything is sent, and governed like code tools (access rules, budget, policy, propose/apply,
 * drift review, audit). Built on the official MCP Java SDK client, over Streamable HTTP or stdio.
 *
 * <pre>{@code
 * ToolSource github = McpSource.http("github", URI.create("https://mcp.example.com/mcp"))
 *         .bearerSecret("github-token")           // resolved by the host's SecretResolver at connect time
 *         .requires("github.use")                 // rules a caller must hold for any of its tools
 *         .effect("merge_pull_request", Effect.DESTRUCTIVE)
 *         .build();
 * Toolgate gate = Toolgate.builder().source(github).secrets(vault).build();
 * }</pre>
 *
 * <p><b>Effect.</b> A remote tool's annotations are hints from a server the host does not control, so
 * they are read in the safe direction: {@code destructiveHint: true} makes it DESTRUCTIVE,
 * {@code readOnlyHint: true} (and no destructive hint) makes it READ, anything else (no annotations,
 * or a tool that says it mutates) is MUTATE. A tool is never READ by default. The host's
 * {@link Builder#effect(String, Effect)} overrides the hint for one tool.
 *
 * <p><b>Consent.</b> A remote tool has no dry-run: a MUTATE or DESTRUCTIVE call is proposed with its
 * payload and the remote tool's description, and nothing is sent before consent.
 *
 * <p><b>Credentials.</b> Headers and environment variables can name secrets of the host's
 * {@link SecretResolver}; values are resolved when the source connects, are never logged, and are cut
 * out of results and errors. The remote server sees the source's credentials, not the calling user's:
 * grant them only what every principal allowed to use the source may do.
 *
 * <p>One connection per source, opened on first use and reopened after a transport failure.
 * Thread-safe.
 */
public final class McpSource implements ToolSource {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,32}");
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };
    /** Stop following pagination cursors after this many pages: a server that never ends is broken. */
    private static final int MAX_PAGES = 100;

    private final String id;
    private final String displayName;
    private final Set<String> requiredRules;
    private final Map<String, Effect> effects;
    private final RemoteClient client;

    private McpSource(Builder builder) {
        this.id = "mcp:" + builder.name;
        this.displayName = builder.displayName != null ? builder.displayName : id;
        this.requiredRules = Set.copyOf(builder.rules);
        this.effects = Map.copyOf(builder.effects);
        this.client = new RemoteClient(id, builder.connection, builder.connectTimeout);
    }

    /**
     * A remote server over Streamable HTTP.
     *
     * @param name     the source name, 1-32 characters of {@code A-Za-z0-9_-}; the id is {@code mcp:<name>}
     * @param endpoint the MCP endpoint, such as {@code https://mcp.example.com/mcp}
     */
    public static Builder http(String name, URI endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        String scheme = endpoint.getScheme();
        if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme) || endpoint.getHost() == null) {
            throw new IllegalArgumentException("an MCP endpoint must be an http or https URL with a host, got " + endpoint);
        }
        if (endpoint.getUserInfo() != null) {
            throw new IllegalArgumentException("put credentials in a header secret, not in the endpoint URL");
        }
        return new Builder(name, new RemoteClient.Http(endpoint));
    }

    /**
     * A local server started as a process speaking MCP over its standard input and output.
     *
     * @param name    the source name, 1-32 characters of {@code A-Za-z0-9_-}; the id is {@code mcp:<name>}
     * @param command the program, then its arguments
     */
    public static Builder stdio(String name, String... command) {
        if (command == null || command.length == 0 || command[0] == null || command[0].isBlank()) {
            throw new IllegalArgumentException("a stdio MCP source needs a command");
        }
        return new Builder(name, new RemoteClient.Stdio(List.of(command)));
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String displayName() {
        return displayName;
    }

    @Override
    public List<SourceTool> listTools(SourceContext context) {
        List<SourceTool> tools = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            String from = cursor;
            McpSchema.ListToolsResult page = client.request(context, c -> from == null ? c.listTools() : c.listTools(from));
            for (McpSchema.Tool tool : page.tools()) {
                tools.add(toSourceTool(tool));
            }
            cursor = page.nextCursor();
        } while (cursor != null && !cursor.isEmpty() && ++pages < MAX_PAGES);
        return tools;
    }

    @Override
    public JsonNode callTool(String tool, JsonNode arguments, SourceContext context) {
        Map<String, Object> args = arguments == null || arguments.isNull() ? Map.of() : Json.mapper().convertValue(arguments, MAP);
        McpSchema.CallToolResult result;
        try {
            result = client.request(context, c -> c.callTool(McpSchema.CallToolRequest.builder(tool).arguments(args).build()));
        } catch (McpError e) {
            throw new SourceToolException(id + "." + tool + " was refused by the server: " + e.getMessage());
        }
        JsonNode content = Json.mapper().valueToTree(result.content() == null ? List.of() : result.content());
        if (Boolean.TRUE.equals(result.isError())) {
            throw new SourceToolException(id + "." + tool + " failed: " + text(content));
        }
        if (result.structuredContent() != null) {
            return Json.mapper().valueToTree(result.structuredContent());
        }
        ObjectNode out = Json.object();
        out.set("content", content);
        return out;
    }

    @Override
    public void watch(Runnable changed) {
        client.onToolsChanged(changed);
    }

    @Override
    public void close() {
        client.close();
    }

    /** The gate's view of a remote tool: its effect read in the safe direction, the host's override first. */
    SourceTool toSourceTool(McpSchema.Tool tool) {
        McpSchema.ToolAnnotations hints = tool.annotations();
        Effect effect = effects.getOrDefault(tool.name(), effectOf(hints));
        ObjectNode input = tool.inputSchema() == null ? emptyObjectSchema()
                : (ObjectNode) Json.mapper().valueToTree(tool.inputSchema());
        ObjectNode output = tool.outputSchema() == null ? null : (ObjectNode) Json.mapper().valueToTree(tool.outputSchema());
        String title = tool.title() != null ? tool.title() : hints == null ? null : hints.title();
        boolean openWorld = hints == null || !Boolean.FALSE.equals(hints.openWorldHint());
        return new SourceTool(tool.name(), title, tool.description(), effect, input, output, requiredRules, openWorld);
    }

    /** DESTRUCTIVE if it says so, READ only if it says it is read-only, MUTATE otherwise. */
    static Effect effectOf(McpSchema.ToolAnnotations hints) {
        if (hints == null) {
            return Effect.MUTATE;
        }
        if (Boolean.TRUE.equals(hints.destructiveHint())) {
            return Effect.DESTRUCTIVE;
        }
        return Boolean.TRUE.equals(hints.readOnlyHint()) ? Effect.READ : Effect.MUTATE;
    }

    private static ObjectNode emptyObjectSchema() {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        schema.putObject("properties");
        return schema;
    }

    private static String text(JsonNode content) {
        List<String> parts = new ArrayList<>();
        if (content instanceof ArrayNode items) {
            for (JsonNode item : items) {
                if (item.has("text")) {
                    parts.add(item.get("text").asString());
                }
            }
        }
        return parts.isEmpty() ? "the server gave no message" : String.join(" ", parts);
    }

    @Override
    public String toString() {
        return "McpSource[" + id + ", " + client + "]";
    }

    /** Configures an {@link McpSource}. Not thread-safe. */
    public static final class Builder {

        private final String name;
        private final RemoteClient.Connection connection;
        private String displayName;
        private final Set<String> rules = new LinkedHashSet<>();
        private final Map<String, Effect> effects = new LinkedHashMap<>();
        private Duration connectTimeout = Duration.ofSeconds(10);

        Builder(String name, RemoteClient.Connection connection) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("invalid MCP source name '" + name + "': use 1-32 characters of A-Za-z0-9_-");
            }
            this.name = name;
            this.connection = connection;
        }

        /** A name for people, such as {@code GitHub}. */
        public Builder displayName(String displayName) {
            this.displayName = displayName;
            return this;
        }

        /** Access rules a caller must hold, all of them, for every tool of this source. */
        public Builder requires(String... accessRules) {
            rules.addAll(List.of(accessRules));
            return this;
        }

        /**
         * The host's (the operator's) judgement of one remote tool's effect, replacing what its
         * annotations say. This is the only way a tool without a read-only annotation becomes READ.
         */
        public Builder effect(String remoteTool, Effect effect) {
            effects.put(Objects.requireNonNull(remoteTool, "remoteTool"), Objects.requireNonNull(effect, "effect"));
            return this;
        }

        /** How long connecting and the MCP handshake may take (default ten seconds). */
        public Builder connectTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("the connect timeout must be positive, got " + timeout);
            }
            this.connectTimeout = timeout;
            return this;
        }

        /** A plain HTTP header sent with every request (HTTP sources only); never a credential. */
        public Builder header(String name, String value) {
            http().header(name, Objects.requireNonNull(value, "value"), false);
            return this;
        }

        /** An HTTP header whose value is the host's secret {@code secretName} (HTTP sources only). */
        public Builder headerSecret(String name, String secretName) {
            http().header(name, Objects.requireNonNull(secretName, "secretName"), true);
            return this;
        }

        /** {@code Authorization: Bearer <secret>}, the secret resolved by the host (HTTP sources only). */
        public Builder bearerSecret(String secretName) {
            http().bearer(Objects.requireNonNull(secretName, "secretName"));
            return this;
        }

        /** An environment variable of the server process (stdio sources only). */
        public Builder env(String name, String value) {
            stdio().env(name, Objects.requireNonNull(value, "value"), false);
            return this;
        }

        /** An environment variable whose value is the host's secret {@code secretName} (stdio sources only). */
        public Builder envSecret(String name, String secretName) {
            stdio().env(name, Objects.requireNonNull(secretName, "secretName"), true);
            return this;
        }

        private RemoteClient.Http http() {
            if (connection instanceof RemoteClient.Http http) {
                return http;
            }
            throw new IllegalStateException("headers apply to HTTP sources; use env(...) for a stdio source");
        }

        private RemoteClient.Stdio stdio() {
            if (connection instanceof RemoteClient.Stdio stdio) {
                return stdio;
            }
            throw new IllegalStateException("environment variables apply to stdio sources; use header(...) for HTTP");
        }

        /** The source. */
        public McpSource build() {
            return new McpSource(this);
        }
    }

    static SourceUnavailableException unavailable(String id, String message) {
        return new SourceUnavailableException(null, id, id, message);
    }
}
