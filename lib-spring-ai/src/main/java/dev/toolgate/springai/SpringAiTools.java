package dev.toolgate.springai;

import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolDefinitionException;
import dev.toolgate.tool.ToolProvider;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.ai.tool.support.ToolUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Existing Spring AI tools as governed Toolgate tools: {@link ToolCallback}s, {@link ToolCallbackProvider}s
 * and beans with {@code @Tool} methods become a {@link ToolProvider} for {@code Toolgate.builder().provider(...)}.
 * Each keeps its name (qualified as {@code <pluginId>.<name>}), description and input schema; the host
 * declares each one's effect and access rules, by {@link Governed} on the method or by
 * {@link Builder#declare(String, Effect, String...)}. A tool without a declared effect is refused at
 * {@link Builder#build()}, never guessed.
 *
 * <pre>{@code
 * ToolProvider crm = SpringAiTools.builder("crm")
 *         .beans(ticketService)                                  // @Tool + @Governed methods
 *         .callbacks(existingCallbacks)
 *         .declare("close_ticket", Effect.DESTRUCTIVE, "crm.admin")
 *         .build();
 * }</pre>
 *
 * <p>A mutating tool then goes through propose/apply like any Toolgate tool. A Spring AI tool has no
 * dry-run, so its proposal can only preview the arguments: the summary says so, and the payload is
 * exactly the arguments apply will pass to the callback.
 */
public final class SpringAiTools {

    private SpringAiTools() {
    }

    /** Starts a provider whose tools are qualified as {@code <pluginId>.<tool name>}. */
    public static Builder builder(String pluginId) {
        return new Builder(pluginId);
    }

    private record Declaration(Effect effect, Set<String> rules, String where) {
    }

    /** Collects Spring AI tools and their declarations. */
    public static final class Builder {

        private final String pluginId;
        private final List<ToolCallback> callbacks = new ArrayList<>();
        private final Map<String, Declaration> declared = new LinkedHashMap<>();
        private final List<String> problems = new ArrayList<>();

        private Builder(String pluginId) {
            this.pluginId = Objects.requireNonNull(pluginId, "pluginId");
        }

        /** Adds callbacks as they are; declare each one's effect by name. */
        public Builder callbacks(ToolCallback... callbacks) {
            for (ToolCallback callback : callbacks) {
                this.callbacks.add(Objects.requireNonNull(callback, "callback"));
            }
            return this;
        }

        /** Adds a list of callbacks. */
        public Builder callbacks(List<? extends ToolCallback> callbacks) {
            return callbacks(callbacks.toArray(new ToolCallback[0]));
        }

        /** Adds every callback of each provider (asked once, now). */
        public Builder callbacks(ToolCallbackProvider... providers) {
            for (ToolCallbackProvider provider : providers) {
                callbacks(provider.getToolCallbacks());
            }
            return this;
        }

        /**
         * Adds the {@code @Tool} methods of each bean (through Spring AI's {@link MethodToolCallbackProvider});
         * a method's {@link Governed} annotation declares its effect and rules.
         */
        public Builder beans(Object... beans) {
            callbacks(MethodToolCallbackProvider.builder().toolObjects(beans).build());
            for (Object bean : beans) {
                // a proxied bean (@Transactional, @Validated, ...) carries its annotations on the class it proxies
                Class<?> type = org.springframework.util.ClassUtils.getUserClass(org.springframework.aop.support.AopUtils.getTargetClass(bean));
                for (Method method : type.getMethods()) {
                    Governed governed = method.getAnnotation(Governed.class);
                    if (governed == null) {
                        continue;
                    }
                    if (method.getAnnotation(org.springframework.ai.tool.annotation.Tool.class) == null) {
                        problems.add("@Governed on " + method + " without Spring AI's @Tool: it is not a tool");
                        continue;
                    }
                    declare(ToolUtils.getToolName(method), governed.effect(), new TreeSet<>(List.of(governed.requires())),
                            "@Governed on " + method.getDeclaringClass().getName() + "." + method.getName());
                }
            }
            return this;
        }

        /** Declares the effect and required access rules of the Spring AI tool named {@code toolName}. */
        public Builder declare(String toolName, Effect effect, String... requiredAccessRules) {
            return declare(toolName, effect, new TreeSet<>(List.of(requiredAccessRules)), "declare(\"" + toolName + "\")");
        }

        private Builder declare(String toolName, Effect effect, Set<String> rules, String where) {
            Objects.requireNonNull(toolName, "toolName");
            Objects.requireNonNull(effect, "effect of " + toolName);
            Declaration before = declared.putIfAbsent(toolName, new Declaration(effect, rules, where));
            if (before != null) {
                problems.add("Spring AI tool '" + toolName + "' is declared twice: by " + before.where() + " and by " + where);
            }
            return this;
        }

        /**
         * The governed tools.
         *
         * @throws ToolDefinitionException naming every tool without a declared effect, every declaration
         *                                 that names no tool, duplicate names and schemas that are not JSON objects
         */
        public ToolProvider build() {
            List<String> errors = new ArrayList<>(problems);
            Map<String, ToolCallback> byName = new LinkedHashMap<>();
            for (ToolCallback callback : callbacks) {
                String name = callback.getToolDefinition().name();
                if (byName.putIfAbsent(name, callback) != null) {
                    errors.add("Two Spring AI tools are named '" + name + "'");
                }
            }
            byName.keySet().stream().filter(name -> !declared.containsKey(name)).forEach(name -> errors.add(
                    "Spring AI tool '" + name + "' has no declared effect: annotate its method with @Governed(effect = ...) "
                            + "or call declare(\"" + name + "\", Effect.READ|MUTATE|DESTRUCTIVE, rules...). Effects are never guessed"));
            declared.forEach((name, d) -> {
                if (!byName.containsKey(name)) {
                    errors.add(d.where() + " names no Spring AI tool '" + name + "'; known: " + new TreeSet<>(byName.keySet()));
                }
            });
            List<Tool<?, ?>> tools = new ArrayList<>();
            if (errors.isEmpty()) {
                byName.forEach((name, callback) -> {
                    try {
                        tools.add(governed(callback, declared.get(name)));
                    } catch (RuntimeException e) {
                        errors.add("Spring AI tool '" + name + "': " + e.getMessage());
                    }
                });
            }
            if (!errors.isEmpty()) {
                throw new ToolDefinitionException("Spring AI tools of plugin '" + pluginId + "' refused: " + String.join("; ", errors));
            }
            return ToolProvider.of(pluginId, tools.toArray(new Tool<?, ?>[0]));
        }

        private static Tool<?, ?> governed(ToolCallback callback, Declaration declaration) {
            var definition = callback.getToolDefinition();
            JsonNode schema;
            try {
                schema = Json.parse(definition.inputSchema());
            } catch (RuntimeException e) {
                throw new ToolDefinitionException("its input schema is not JSON (" + e.getMessage() + ")");
            }
            if (!(schema instanceof ObjectNode objectSchema)) {
                throw new ToolDefinitionException("its input schema is not a JSON object");
            }
            String name = definition.name();
            String description = definition.description() == null || definition.description().isBlank()
                    ? name : definition.description();
            Tool.Builder<JsonNode, Object> builder = Tool.builder(name, objectSchema)
                    .description(description)
                    .effect(declaration.effect())
                    .requires(declaration.rules());
            if (declaration.effect().mutates()) {
                builder.dryRun((input, context) -> Preview.<JsonNode>of("Call the Spring AI tool " + name
                        + " with the arguments in the payload. This is a preview of the arguments only: the tool has no "
                        + "dry-run, so its outcome is not known until it is applied").withPayload(input));
            }
            return builder.execute((input, context) -> resultOf(callback.call(Json.write(input)))).build();
        }

        /** The callback's answer as JSON when it is JSON, as a string otherwise. */
        private static JsonNode resultOf(String answer) {
            if (answer == null) {
                return Json.toTree(null);
            }
            try {
                return Json.parse(answer);
            } catch (RuntimeException notJson) {
                return Json.toTree(answer);
            }
        }
    }
}
