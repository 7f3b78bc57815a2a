package dev.toolgate.mcp;

import dev.toolgate.access.Guarded;
import dev.toolgate.access.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A prompt served over MCP ({@code prompts/list}, {@code prompts/get}) to the principals the gate's
 * resolver allows; others see exactly what they would see if it did not exist. Arguments are strings;
 * a {@code prompts/get} missing a required argument, or passing one the prompt does not declare, gets
 * JSON-RPC -32602 naming them, and the renderer does not run.
 *
 * <pre>{@code
 * McpPrompt.builder("test_prompt_with_arguments")
 *         .description("A prompt with two required arguments")
 *         .argument("arg1", "First test argument", true)
 *         .argument("arg2", "Second test argument", true)
 *         .complete("arg1", request -> List.of("paris", "park").stream().filter(v -> v.startsWith(request.value())).toList())
 *         .renderer(request -> List.of(McpPromptMessage.text(Role.USER, "Prompt with arguments: arg1='"
 *                 + request.arguments().get("arg1") + "', arg2='" + request.arguments().get("arg2") + "'")))
 *         .build();
 * }</pre>
 */
public final class McpPrompt implements Guarded {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

    /**
     * One declared argument.
     *
     * @param name        the argument's name
     * @param description what it is for, or null
     * @param required    whether {@code prompts/get} must pass it
     */
    public record Argument(String name, String description, boolean required) {
    }

    /** Produces a prompt's messages; runs with the principal of the request. */
    @FunctionalInterface
    public interface Renderer {

        /** The messages. An exception becomes a JSON-RPC internal error (-32603) without its message; it is logged. */
        List<McpPromptMessage> render(Request request) throws Exception;
    }

    /**
     * A {@code prompts/get}.
     *
     * @param principal the principal of the request (already allowed by the resolver)
     * @param name      the prompt's name
     * @param arguments the arguments passed: every required one present, none undeclared; untrusted text
     */
    public record Request(Principal principal, String name, Map<String, String> arguments) {

        public Request {
            arguments = Map.copyOf(arguments);
        }
    }

    private final String name;
    private final String title;
    private final String description;
    private final List<Argument> arguments;
    private final Set<String> requiredAccessRules;
    private final Renderer renderer;
    private final Map<String, McpCompleter> completers;

    private McpPrompt(Builder builder) {
        this.name = builder.name;
        this.title = builder.title;
        this.description = builder.description;
        this.arguments = List.copyOf(builder.arguments.values());
        this.requiredAccessRules = Set.copyOf(builder.rules);
        this.renderer = Objects.requireNonNull(builder.renderer, "renderer: a prompt needs a renderer");
        this.completers = Map.copyOf(builder.completers);
    }

    /** A builder for the prompt {@code name} (1-128 characters of {@code A-Za-z0-9_.-}). */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Set<String> requiredAccessRules() {
        return requiredAccessRules;
    }

    /** The declared arguments, in order. */
    public List<Argument> arguments() {
        return arguments;
    }

    String title() {
        return title;
    }

    String description() {
        return description;
    }

    Renderer renderer() {
        return renderer;
    }

    Map<String, McpCompleter> completers() {
        return completers;
    }

    boolean declares(String argument) {
        return arguments.stream().anyMatch(a -> a.name().equals(argument));
    }

    /** The required arguments absent from {@code given}, in declaration order. */
    List<String> missing(Map<String, String> given) {
        List<String> missing = new ArrayList<>();
        arguments.stream().filter(a -> a.required() && !given.containsKey(a.name())).forEach(a -> missing.add(a.name()));
        return missing;
    }

    /** Builds an {@link McpPrompt}. */
    public static final class Builder {

        private final String name;
        private String title;
        private String description;
        private final Map<String, Argument> arguments = new LinkedHashMap<>();
        private final Set<String> rules = new LinkedHashSet<>();
        private Renderer renderer;
        private final Map<String, McpCompleter> completers = new LinkedHashMap<>();

        private Builder(String name) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("a prompt name must be 1-128 characters of A-Za-z0-9_.-, got '" + name + "'");
            }
            this.name = name;
        }

        public Builder title(String title) {
            this.title = title;
            return this;
        }

        public Builder description(String description) {
            this.description = description;
            return this;
        }

        /** Declares an argument (names as for prompts). */
        public Builder argument(String name, String description, boolean required) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("prompt " + this.name + ": an argument name must be 1-128 characters of "
                        + "A-Za-z0-9_.-, got '" + name + "'");
            }
            if (arguments.putIfAbsent(name, new Argument(name, description, required)) != null) {
                throw new IllegalArgumentException("prompt " + this.name + ": argument " + name + " is declared twice");
            }
            return this;
        }

        /** Access rules a principal must all hold (decided by the gate's resolver). */
        public Builder requires(String... rules) {
            this.rules.addAll(McpResource.checkRules(rules));
            return this;
        }

        public Builder renderer(Renderer renderer) {
            this.renderer = Objects.requireNonNull(renderer, "renderer");
            return this;
        }

        /** Completion of a declared argument's values. */
        public Builder complete(String argument, McpCompleter completer) {
            if (!arguments.containsKey(argument)) {
                throw new IllegalArgumentException("prompt " + name + " has no argument " + argument + "; declare it first");
            }
            completers.put(argument, Objects.requireNonNull(completer, "completer"));
            return this;
        }

        public McpPrompt build() {
            return new McpPrompt(this);
        }
    }
}
