package dev.toolgate.langchain4j;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.ToolContext;
import dev.toolgate.tool.ToolDefinitionException;
import dev.toolgate.tool.ToolProvider;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns existing LangChain4j {@code @Tool} objects into governed Toolgate tools: the same names,
 * descriptions and JSON Schema LangChain4j derives for them ({@link ToolSpecifications}), with the
 * effect and access rules the host declares, by name on this builder or with {@link Governed} on the
 * method. A tool whose effect is not declared is refused when the provider is built: Toolgate never
 * guesses an effect.
 *
 * <pre>{@code
 * ToolProvider incidents = LangChain4jTools.plugin("incident")
 *         .add(new IncidentTools(db))
 *         .effect("find", Effect.READ)
 *         .effect("create", Effect.MUTATE).requires("create", "incident.manage")
 *         .build();
 * Toolgate gate = Toolgate.builder().provider(incidents).build();
 * }</pre>
 *
 * <p>A mutating tool's dry-run cannot know what the method would do: its preview shows only the
 * arguments the method would be called with, and says so in the summary. The method runs when the
 * proposal is applied, with the stored arguments.
 */
public final class LangChain4jTools {

    private final String pluginId;
    private final List<Object> objects = new ArrayList<>();
    private final Map<String, Effect> effects = new LinkedHashMap<>();
    private final Map<String, Set<String>> rules = new LinkedHashMap<>();

    private LangChain4jTools(String pluginId) {
        this.pluginId = Objects.requireNonNull(pluginId, "pluginId");
    }

    /** Starts a plugin whose tools are named {@code <pluginId>.<@Tool name>} in the gate. */
    public static LangChain4jTools plugin(String pluginId) {
        return new LangChain4jTools(pluginId);
    }

    /** Adds an object whose {@code @Tool} methods become tools. */
    public LangChain4jTools add(Object toolObject) {
        objects.add(Objects.requireNonNull(toolObject, "toolObject"));
        return this;
    }

    /** Declares a tool's effect by its LangChain4j name; takes precedence over {@link Governed}. */
    public LangChain4jTools effect(String toolName, Effect effect) {
        effects.put(Objects.requireNonNull(toolName, "toolName"), Objects.requireNonNull(effect, "effect"));
        return this;
    }

    /** Declares the access rules a caller of a tool must all hold; replaces those of {@link Governed}. */
    public LangChain4jTools requires(String toolName, String... accessRules) {
        rules.put(Objects.requireNonNull(toolName, "toolName"), new TreeSet<>(Arrays.asList(accessRules)));
        return this;
    }

    /**
     * The tools, as a provider for {@code Toolgate.builder().provider(...)}.
     *
     * @throws ToolDefinitionException if a tool has no declared effect, two methods share a name, or a
     *                                 declared name matches no {@code @Tool} method
     */
    public ToolProvider build() {
        List<dev.toolgate.tool.Tool<?, ?>> tools = new ArrayList<>();
        Set<String> seen = new TreeSet<>();
        for (Object object : objects) {
            List<Method> methods = Arrays.stream(object.getClass().getMethods())
                    .filter(m -> m.isAnnotationPresent(Tool.class))
                    .sorted(Comparator.comparing(Method::getName)).toList();
            for (Method method : methods) {
                ToolSpecification specification = ToolSpecifications.toolSpecificationFrom(method);
                String name = specification.name();
                String where = object.getClass().getName() + "." + method.getName();
                if (!seen.add(name)) {
                    throw new ToolDefinitionException("Plugin '" + pluginId + "': two @Tool methods are named '" + name
                            + "' (again at " + where + ")");
                }
                tools.add(tool(object, method, specification, where));
            }
        }
        for (String declared : union(effects.keySet(), rules.keySet())) {
            if (!seen.contains(declared)) {
                throw new ToolDefinitionException("Plugin '" + pluginId + "': effect or rules declared for '" + declared
                        + "', but no @Tool method has that name (tools: " + seen + ")");
            }
        }
        return ToolProvider.of(pluginId, tools.toArray(dev.toolgate.tool.Tool<?, ?>[]::new));
    }

    private dev.toolgate.tool.Tool<?, ?> tool(Object object, Method method, ToolSpecification specification, String where) {
        String name = specification.name();
        Governed governed = method.getAnnotation(Governed.class);
        Effect effect = effects.containsKey(name) ? effects.get(name) : governed == null ? null : governed.effect();
        if (effect == null) {
            throw new ToolDefinitionException("Plugin '" + pluginId + "': LangChain4j tool '" + name + "' (" + where
                    + ") has no declared effect; declare it with effect(\"" + name
                    + "\", Effect.READ|MUTATE|DESTRUCTIVE) or @Governed. Toolgate never guesses an effect.");
        }
        Set<String> required = rules.containsKey(name) ? rules.get(name)
                : governed == null ? Set.of() : new TreeSet<>(Arrays.asList(governed.requires()));
        DefaultToolExecutor executor = new DefaultToolExecutor(object, method);
        var builder = dev.toolgate.tool.Tool.builder(name, schemaOf(specification))
                .description(specification.description() == null ? name : specification.description())
                .effect(effect)
                .requires(required);
        if (effect != Effect.READ) {
            builder.dryRun((input, context) -> Preview.<JsonNode>of("Would call " + name + " with "
                    + Json.write(input) + " (a LangChain4j tool has no dry-run: this previews the arguments only, "
                    + "not what the method will change)"));
        }
        return builder.execute((JsonNode input, ToolContext context) -> invoke(executor, name, input, context)).build();
    }

    private static JsonNode invoke(DefaultToolExecutor executor, String name, JsonNode input, ToolContext context) {
        ToolExecutionRequest request = ToolExecutionRequest.builder().name(name).arguments(Json.write(input)).build();
        ToolExecutionResult result = executor.executeWithContext(request,
                InvocationContext.builder().chatMemoryId(context.sessionId()).build());
        String text = result.resultText();
        if (result.isError()) {
            throw new IllegalStateException(text == null ? "the tool reported an error" : text);
        }
        if (text == null) {
            return Json.object().nullNode();
        }
        try {
            return Json.parse(text);
        } catch (RuntimeException notJson) {
            return Json.object().textNode(text);
        }
    }

    /** The JSON Schema LangChain4j derives for the method's parameters. */
    static ObjectNode schemaOf(ToolSpecification specification) {
        JsonNode parameters = Json.parse(specification.toJson()).get("parameters");
        if (parameters == null || !parameters.isObject()) {
            ObjectNode empty = Json.object();
            empty.put("type", "object");
            empty.putObject("properties");
            return empty;
        }
        return (ObjectNode) parameters;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new TreeSet<>(a);
        all.addAll(b);
        return all;
    }
}
