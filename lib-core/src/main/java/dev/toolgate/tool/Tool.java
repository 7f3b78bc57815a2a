package dev.toolgate.tool;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool a model can call: a name, a description written for the model, a typed input whose JSON
 * Schema is generated, an {@link Effect}, the access rules a caller must hold, and the functions that
 * preview and perform it. Immutable; build one with {@link #builder(String, Class)}.
 *
 * <pre>{@code
 * Tool<NewIncident, Incident> create = Tool.builder("create", NewIncident.class)
 *         .description("Open an incident for a system. Pass the system id, not its name.")
 *         .effect(Effect.MUTATE)
 *         .requires("incident.incident.manage")
 *         .dryRun((in, ctx) -> Preview.of("Open incident \"" + in.title() + "\""))
 *         .execute((in, ctx) -> incidents.create(in, ctx.principal()))
 *         .build();
 * }</pre>
 *
 * <p>The name is local to its plugin: a tool named {@code create} contributed by plugin
 * {@code incident} is registered as {@code incident.create}.
 *
 * <p>Input types are records or classes that map to a JSON object. Every property is required
 * unless its type is {@link java.util.Optional} or it is annotated with an annotation named
 * {@code Nullable}; {@link Range} and {@link Size} add numeric and length bounds, and Jackson's
 * {@code @JsonPropertyDescription} describes a property to the model.
 *
 * @param <I> input type
 * @param <O> result type
 */
public final class Tool<I, O> {

    static final Pattern LOCAL_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");
    static final Pattern RULE = Pattern.compile("[A-Za-z0-9_.:*-]{1,200}");

    private final String name;
    private final String title;
    private final String description;
    private final Class<I> inputType;
    private final Type outputType;
    private final Effect effect;
    private final Set<String> requiredAccessRules;
    private final DryRun<I> dryRun;
    private final ToolFunction<I, O> execute;
    private final Revert<I, O> revert;
    private final Duration timeout;
    private final boolean onCallerThread;
    private final boolean openWorld;
    private final boolean dynamic;
    private final boolean standingApproval;
    private final boolean returnsContent;
    private final ObjectNode inputSchema;
    private final ObjectNode outputSchema;
    private final String contract;

    private Tool(Builder<I, O> b) {
        this.name = b.name;
        this.title = b.title;
        this.description = b.description;
        this.inputType = b.inputType;
        this.outputType = b.outputType;
        this.effect = b.effect;
        this.requiredAccessRules = Collections.unmodifiableSortedSet(new TreeSet<>(b.rules));
        this.dryRun = b.dryRun;
        this.execute = b.execute;
        this.revert = b.revert;
        this.timeout = b.timeout;
        this.onCallerThread = b.onCallerThread;
        this.openWorld = b.openWorld;
        this.dynamic = b.dynamic;
        this.standingApproval = b.standingApproval;
        this.returnsContent = b.returnsContent;
        this.inputSchema = b.inputSchema;
        this.outputSchema = b.outputSchema;
        this.contract = b.contract;
    }

    /**
     * Starts a tool.
     *
     * @param name      the name within its plugin, 1-64 characters of {@code A-Za-z0-9_.-}
     * @param inputType a record or class mapping to a JSON object; {@link NoInput} for none
     */
    public static <I> Builder<I, Object> builder(String name, Class<I> inputType) {
        return new Builder<>(name, inputType);
    }

    /**
     * Starts a tool whose input is described by a JSON Schema rather than a Java type, such as a tool
     * of a remote server or a database: arguments are validated against {@code inputSchema} and
     * reach the tool's functions as the validated {@link JsonNode}.
     *
     * @param name        the name within its plugin or source
     * @param inputSchema a JSON Schema (2020-12, or a draft it declares with {@code $schema}) of a JSON
     *                    object; it is copied
     */
    public static Builder<JsonNode, Object> builder(String name, ObjectNode inputSchema) {
        Objects.requireNonNull(inputSchema, "inputSchema");
        Builder<JsonNode, Object> builder = new Builder<>(name, JsonNode.class);
        builder.inputSchema = inputSchema.deepCopy();
        return builder;
    }

    /** The name within its plugin. */
    public String name() {
        return name;
    }

    /** A short human-readable title, if set. */
    public Optional<String> title() {
        return Optional.ofNullable(title);
    }

    /** The description the model reads: what the tool does and when to call it. */
    public String description() {
        return description;
    }

    /** The input type. */
    public Class<I> inputType() {
        return inputType;
    }

    /** The declared output type, if any. */
    public Optional<Type> outputType() {
        return Optional.ofNullable(outputType);
    }

    /** The declared effect. */
    public Effect effect() {
        return effect;
    }

    /** Rules a caller must hold, all of them. */
    public Set<String> requiredAccessRules() {
        return requiredAccessRules;
    }

    /** True if the tool has its own dry-run. */
    public boolean hasDryRun() {
        return dryRun != null;
    }

    /** True if the tool can revert an applied execution. */
    public boolean hasRevert() {
        return revert != null;
    }

    /** This tool's execution timeout, if it overrides the gate's default. */
    public Optional<Duration> timeout() {
        return Optional.ofNullable(timeout);
    }

    /**
     * True (the default) if the gate runs this tool's code (execution, dry-run, revert) on the thread
     * that called the gate, false if it hands it to one of the gate's own tool threads; see
     * {@link Builder#onCallerThread(boolean)}.
     */
    public boolean onCallerThread() {
        return onCallerThread;
    }

    /** True if the tool reaches systems outside the host (the MCP {@code openWorldHint}). */
    public boolean openWorld() {
        return openWorld;
    }

    /**
     * True if the tool comes from a dynamic source (a remote MCP server, a database) whose schema can
     * change at runtime; its policy is then subject to drift detection.
     */
    public boolean dynamic() {
        return dynamic;
    }

    /**
     * True if a call of this MUTATE tool needs no consent of its own because everything it changes
     * goes through the gate as calls that get theirs (a script runner, for example: each tool call
     * of the script is governed). Under the inferred default such a call is dry-run, recorded and
     * applied in one step, like an ALLOW policy would; an explicit policy (require_approval, deny)
     * still decides.
     */
    public boolean standingApproval() {
        return standingApproval;
    }

    /**
     * True if the tool declared that it returns a {@link ContentResult}; see
     * {@link Builder#returnsContent()}.
     */
    public boolean returnsContent() {
        return returnsContent;
    }

    /** The input schema given to {@link #builder(String, ObjectNode)}, if the tool was built that way. */
    public Optional<ObjectNode> inputSchema() {
        return Optional.ofNullable(inputSchema).map(ObjectNode::deepCopy);
    }

    /** The output schema given to {@link Builder#outputSchema(ObjectNode)}, if any. */
    public Optional<ObjectNode> outputSchema() {
        return Optional.ofNullable(outputSchema).map(ObjectNode::deepCopy);
    }

    /**
     * What else the tool's meaning depends on besides its input schema, given to
     * {@link Builder#contract(String)}: for a tool of an HTTP API, its method and path. It is part of the
     * fingerprint drift review compares, so a change in it makes a dynamic tool drift like a schema change.
     */
    public Optional<String> contract() {
        return Optional.ofNullable(contract);
    }

    ObjectNode givenInputSchema() {
        return inputSchema;
    }

    ObjectNode givenOutputSchema() {
        return outputSchema;
    }

    DryRun<I> dryRunFunction() {
        return dryRun;
    }

    Revert<I, O> revertFunction() {
        return revert;
    }

    ToolFunction<I, O> executeFunction() {
        return execute;
    }

    @Override
    public String toString() {
        return "Tool[" + name + ", " + effect + "]";
    }

    /**
     * Builds a {@link Tool}. Not thread-safe; {@link #build()} checks the definition and fails with a
     * {@link ToolDefinitionException} that names the tool and what is missing.
     *
     * @param <I> input type
     * @param <O> result type
     */
    public static final class Builder<I, O> {

        private final String name;
        private final Class<I> inputType;
        private String title;
        private String description;
        private Type outputType;
        private Effect effect;
        private final Set<String> rules = new LinkedHashSet<>();
        private DryRun<I> dryRun;
        private ToolFunction<I, O> execute;
        private Revert<I, O> revert;
        private Duration timeout;
        private boolean onCallerThread = true;
        private boolean openWorld;
        private boolean dynamic;
        private boolean standingApproval;
        private boolean returnsContent;
        private String contract;
        private ObjectNode inputSchema;
        private ObjectNode outputSchema;

        Builder(String name, Class<I> inputType) {
            this.name = name;
            this.inputType = inputType;
        }

        /** A short title for people (MCP {@code title}). */
        public Builder<I, O> title(String title) {
            this.title = title;
            return this;
        }

        /** The description the model reads. Required. */
        public Builder<I, O> description(String description) {
            this.description = description;
            return this;
        }

        /** The effect. Required: it is never inferred. */
        public Builder<I, O> effect(Effect effect) {
            this.effect = effect;
            return this;
        }

        /** Adds required access rules (fully qualified ids). A caller must hold all of them. */
        public Builder<I, O> requires(String... accessRules) {
            for (String rule : accessRules) {
                rules.add(rule);
            }
            return this;
        }

        /** Adds required access rules. */
        public Builder<I, O> requires(Iterable<String> accessRules) {
            accessRules.forEach(rules::add);
            return this;
        }

        /** Declares the result type so the descriptor carries an output schema. */
        public Builder<I, O> output(Type type) {
            this.outputType = type;
            return this;
        }

        /** The result's JSON Schema, for tools that describe their output in JSON rather than a type. */
        public Builder<I, O> outputSchema(ObjectNode schema) {
            this.outputSchema = schema == null ? null : schema.deepCopy();
            return this;
        }

        /** The dry-run; optional. Without one, a proposal stores the validated input as is. */
        public Builder<I, O> dryRun(DryRun<I> dryRun) {
            this.dryRun = dryRun;
            return this;
        }

        /** The body. Required. */
        @SuppressWarnings("unchecked")
        public <R> Builder<I, R> execute(ToolFunction<? super I, ? extends R> body) {
            Builder<I, R> self = (Builder<I, R>) this;
            self.execute = body == null ? null : body::apply;
            return self;
        }

        /** How to revert an applied execution; mutating tools only. */
        public Builder<I, O> revert(Revert<I, O> revert) {
            this.revert = revert;
            return this;
        }

        /** Overrides the gate's execution timeout for this tool. */
        public Builder<I, O> timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /**
         * Whether this tool's code (execution, dry-run, revert) runs on the thread that called the gate
         * (true, the default) or is handed to one of the gate's own tool threads (false).
         *
         * <p>On the caller's thread the timeout is enforced by interrupting that thread at the
         * deadline (one daemon watchdog thread for all calls, {@code toolgate-tool-deadlines}); the call
         * then fails with the timeout, whatever the tool returned. The interrupt never outlives the call:
         * the gate clears it before the call returns. The tool sees the caller's thread-local state (a
         * logging context, say), and an interrupt of the caller (a host cancelling the call) reaches
         * the tool itself. What it costs: a tool that ignores the interrupt holds its caller until it
         * returns.
         *
         * <p>Handed off ({@code false}), the gate waits for the tool with its timeout, so the caller is
         * answered at the timeout even when the tool ignores interruption (the tool thread is
         * interrupted and kept until the tool returns). The hand-off costs two thread wake-ups per call:
         * tens of microseconds on a machine that idles between calls, most of the gate's own cost for
         * code that answers from memory. Hand off the tools that wait on something that ignores
         * interruption (a blocking socket without a timeout, a DNS lookup, a lock taken
         * uninterruptibly); the gate's remote sources and the URL probe do. A host can hand off every
         * tool whatever it declares: {@code ToolgateBuilder.toolsOnCallerThread(false)}.
         */
        public Builder<I, O> onCallerThread(boolean onCallerThread) {
            this.onCallerThread = onCallerThread;
            return this;
        }

        /** Marks a tool that reaches outside the host (MCP {@code openWorldHint}). */
        public Builder<I, O> openWorld(boolean openWorld) {
            this.openWorld = openWorld;
            return this;
        }

        /** Marks a tool from a dynamic source; see {@link Tool#dynamic()}. */
        public Builder<I, O> dynamic(boolean dynamic) {
            this.dynamic = dynamic;
            return this;
        }

        /**
         * States what the tool's meaning depends on besides its input schema (for a tool of an HTTP API,
         * {@code "DELETE /pets/{id}"}). It joins the schema in the fingerprint drift review compares:
         * when it changes, a dynamic tool's ALLOW policy waits for an operator's re-confirmation.
         */
        public Builder<I, O> contract(String contract) {
            this.contract = contract == null || contract.isBlank() ? null : contract;
            return this;
        }

        /**
         * Marks a MUTATE tool whose own call needs no consent because every change it makes is a
         * governed call of its own; see {@link Tool#standingApproval()}.
         */
        public Builder<I, O> standingApproval() {
            this.standingApproval = true;
            return this;
        }

        /**
         * Declares that the execute function returns a {@link ContentResult} (any tool may; this one
         * promises to, and a call that returns something else fails). Over MCP the tool's output
         * schema ({@link #outputSchema(ObjectNode)} or {@link #output(Type)}), if it has one, is then
         * advertised as the tool's {@code outputSchema}: it describes the result's structured content.
         */
        public Builder<I, O> returnsContent() {
            this.returnsContent = true;
            return this;
        }

        /** Checks the definition and builds the tool. */
        public Tool<I, O> build() {
            String label = "Tool '" + name + "'";
            if (name == null || !LOCAL_NAME.matcher(name).matches()) {
                throw new ToolDefinitionException("Invalid tool name '" + name
                        + "': use 1-128 characters of A-Za-z0-9_.- (MCP-safe)");
            }
            Objects.requireNonNull(inputType, label + ": inputType");
            if (description == null || description.isBlank()) {
                throw new ToolDefinitionException(label + " has no description: the model needs one to know when to call it");
            }
            if (effect == null) {
                throw new ToolDefinitionException(label + " declares no effect: call effect(Effect.READ, MUTATE or "
                        + "DESTRUCTIVE); Toolgate never infers it from the name");
            }
            if (execute == null) {
                throw new ToolDefinitionException(label + " has no execute function");
            }
            if (revert != null && !effect.mutates()) {
                throw new ToolDefinitionException(label + " is READ and cannot have a revert function");
            }
            if (standingApproval && effect != Effect.MUTATE) {
                throw new ToolDefinitionException(label + " is " + effect + ": only a MUTATE tool can have a standing "
                        + "approval (a DESTRUCTIVE tool always waits for a person)");
            }
            if (outputSchema != null && outputType != null) {
                throw new ToolDefinitionException(label + " declares both an output type and an output schema");
            }
            if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
                throw new ToolDefinitionException(label + " has a non-positive timeout " + timeout);
            }
            for (String rule : rules) {
                if (rule == null || !RULE.matcher(rule).matches()) {
                    throw new ToolDefinitionException(label + " requires an invalid access rule '" + rule
                            + "': use a fully qualified id such as incident.incident.read");
                }
            }
            return new Tool<>(this);
        }
    }
}
