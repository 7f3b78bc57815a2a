package dev.toolgate.tool;

import com.networknt.schema.Schema;
import dev.toolgate.access.Guarded;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool as the registry holds it: qualified name, owning plugin, generated and compiled schemas and
 * its {@link ToolDescriptor}. Immutable and thread-safe.
 *
 * <p>{@link #dryRun} and {@link #execute} are the engine's way into the tool's functions; they do
 * not check access, budget, policy or consent. Hosts call the gate ({@code Toolgate}), never these.
 */
public final class RegisteredTool implements Guarded {

    private final String name;
    private final String pluginId;
    private final String source;
    private final Tool<?, ?> tool;
    private final Schema validator;
    private final ToolDescriptor descriptor;
    private final String schemaFingerprint;
    private final ToolSchemas schemas;
    /**
     * The issues of an empty object of arguments, found on first need: a tool without arguments is
     * called with {@code {}} every time, and the verdict on it depends on the schema alone.
     */
    private volatile List<ValidationIssue> emptyArgumentIssues;

    private RegisteredTool(String pluginId, Tool<?, ?> tool, String source, ToolSchemas schemas) {
        this.name = pluginId + "." + tool.name();
        this.pluginId = pluginId;
        this.source = source;
        this.tool = tool;
        this.schemas = schemas;
        ObjectNode generated;
        JsonNode output;
        try {
            generated = tool.givenInputSchema() != null ? tool.givenInputSchema() : schemas.schemaOf(tool.inputType());
            output = tool.givenOutputSchema() != null ? tool.givenOutputSchema()
                    : tool.outputType().map(schemas::schemaOf).orElse(null);
        } catch (RuntimeException e) {
            throw new ToolDefinitionException("Tool '" + name + "': cannot generate a JSON Schema for "
                    + tool.inputType().getName() + ": " + e.getMessage(), e);
        }
        if (!"object".equals(generated.path("type").asString(""))) {
            throw new ToolDefinitionException(tool.givenInputSchema() != null
                    ? "Tool '" + name + "': its input schema does not describe a JSON object (\"type\": \"object\")"
                    : "Tool '" + name + "': input type " + tool.inputType().getName()
                    + " does not map to a JSON object; use a record or a class with properties (NoInput for none)");
        }
        if (!generated.has("properties")) {
            // an input without fields: say so explicitly, as MCP clients expect a properties object
            generated = generated.deepCopy();
            generated.putObject("properties");
        }
        if (tool.givenInputSchema() != null) {
            List<ValidationIssue> issues = ToolSchemas.checkGivenSchema(generated);
            if (!issues.isEmpty()) {
                throw new ToolDefinitionException("Tool '" + name + "': its input schema is not a valid JSON Schema: "
                        + issues.stream().map(ValidationIssue::toString).collect(Collectors.joining("; ")));
            }
        }
        try {
            this.validator = ToolSchemas.compile(generated);
        } catch (RuntimeException e) {
            throw new ToolDefinitionException("Tool '" + name + "': its input schema cannot be compiled: " + e.getMessage(), e);
        }
        this.descriptor = new ToolDescriptor(name, tool.title().orElse(null), tool.description(), tool.effect(),
                generated, output, List.copyOf(tool.requiredAccessRules()), tool.openWorld());
        this.schemaFingerprint = SchemaFingerprint.of(generated, tool.contract().orElse(null));
    }

    static RegisteredTool create(String pluginId, Tool<?, ?> tool, String source, ToolSchemas schemas) {
        return new RegisteredTool(pluginId, tool, source, schemas);
    }

    /** The qualified name, {@code <pluginId>.<name>}. */
    @Override
    public String name() {
        return name;
    }

    /** The plugin that contributed the tool. */
    public String pluginId() {
        return pluginId;
    }

    /** Where the registration came from (a provider class), for messages. */
    public String source() {
        return source;
    }

    /** The tool as its author defined it. */
    public Tool<?, ?> tool() {
        return tool;
    }

    /** The declared effect. */
    public Effect effect() {
        return tool.effect();
    }

    @Override
    public Set<String> requiredAccessRules() {
        return tool.requiredAccessRules();
    }

    /** The transport-facing descriptor. */
    public ToolDescriptor descriptor() {
        return descriptor;
    }

    /** True if the gate runs this tool on the caller's thread; see {@link Tool#onCallerThread()}. */
    public boolean onCallerThread() {
        return tool.onCallerThread();
    }

    /** The tool's own timeout, if it overrides the gate's default. */
    public Optional<Duration> timeout() {
        return tool.timeout();
    }

    /**
     * The fingerprint of the normalized input schema (see drift detection): equal for schemas that
     * differ only in descriptions, defaults, enums and titles.
     */
    public String schemaFingerprint() {
        return schemaFingerprint;
    }

    /** Every issue with {@code arguments} against the current input schema; empty if valid. */
    public List<ValidationIssue> validate(JsonNode arguments) {
        if (arguments != null && arguments.isObject() && arguments.isEmpty()) {
            List<ValidationIssue> issues = emptyArgumentIssues;
            if (issues == null) {
                issues = ToolSchemas.validate(validator, arguments); // immutable; a race computes the same twice
                emptyArgumentIssues = issues;
            }
            return issues;
        }
        return ToolSchemas.validate(validator, arguments);
    }

    /**
     * Runs the dry-run on validated arguments (or builds the default preview if the tool has none).
     *
     * @throws ToolValidationException if the dry-run finds the input semantically invalid
     * @throws Exception               whatever else the dry-run throws
     */
    public DryRunResult dryRun(JsonNode arguments, ToolContext context) throws Exception {
        return preview(tool, arguments, context);
    }

    /**
     * Runs the tool on a validated payload and returns its result as JSON ({@code null} as JSON null; a
     * {@link ContentResult} as its {@link ContentResult#toJson() JSON view}).
     */
    public JsonNode execute(JsonNode payload, ToolContext context) throws Exception {
        return run(payload, context).json();
    }

    /**
     * Runs the tool on a validated payload: its result as JSON, and the {@link ContentResult} itself
     * if the tool returned one.
     */
    public Output run(JsonNode payload, ToolContext context) throws Exception {
        return output(tool, payload, context);
    }

    /**
     * What a tool's execution returned.
     *
     * @param json    the result as JSON; for a content result, its {@link ContentResult#toJson() JSON view}
     * @param content the content result the tool returned, or null if it returned a plain value
     */
    public record Output(JsonNode json, ContentResult content) {
        /** Checks the components. */
        public Output {
            java.util.Objects.requireNonNull(json, "json");
        }
    }

    /** True if the tool can undo an applied execution (it declares a {@link Revert}). */
    public boolean revertible() {
        return tool.hasRevert();
    }

    /**
     * Undoes an applied execution: the tool's {@link Revert} with the payload that ran and the result
     * it returned (as stored: redacted and capped; null for a tool that {@link Tool#returnsContent()
     * returns content}, which is stored only as its JSON view).
     *
     * @throws IllegalStateException if the tool has no revert
     * @throws Exception             whatever the revert throws
     */
    public void revert(JsonNode payload, JsonNode result, ToolContext context) throws Exception {
        undo(tool, payload, result, context);
    }

    private <I, O> void undo(Tool<I, O> t, JsonNode payload, JsonNode result, ToolContext context) throws Exception {
        Revert<I, O> revert = t.revertFunction();
        if (revert == null) {
            throw new IllegalStateException(name + " has no revert");
        }
        tools.jackson.databind.JavaType type = schemas.mapper().constructType(t.outputType().orElse(Object.class));
        // a content result is stored as its JSON view only (binary data never is): its revert gets null
        @SuppressWarnings("unchecked")
        O output = result == null || result.isNull() || t.returnsContent() ? null
                : (O) schemas.mapper().treeToValue(result, type);
        revert.revert(bind(t, payload), output, context);
    }

    private <I, O> DryRunResult preview(Tool<I, O> t, JsonNode arguments, ToolContext context) throws Exception {
        I input = bind(t, arguments);
        DryRun<I> dryRun = t.dryRunFunction();
        if (dryRun == null) {
            return new DryRunResult("Run " + name, arguments, List.of());
        }
        Preview<I> preview = dryRun.preview(input, context);
        if (preview == null) {
            throw new IllegalStateException("the dry-run of " + name + " returned no preview");
        }
        JsonNode payload = arguments;
        if (preview.payload().isPresent()) {
            payload = schemas.mapper().valueToTree(preview.payload().get());
            List<ValidationIssue> issues = validate(payload);
            if (!issues.isEmpty()) {
                throw new IllegalStateException("the dry-run of " + name + " returned a payload its own schema rejects: "
                        + issues.stream().map(ValidationIssue::toString).collect(Collectors.joining("; ")));
            }
        }
        return new DryRunResult(preview.summary(), payload, preview.diff(), preview.precondition().orElse(null));
    }

    private <I, O> Output output(Tool<I, O> t, JsonNode payload, ToolContext context) throws Exception {
        O result = t.executeFunction().apply(bind(t, payload), context);
        if (result instanceof ContentResult content) {
            return new Output(content.toJson(), content);
        }
        if (t.returnsContent()) {
            throw new IllegalStateException(name + " declares returnsContent() but returned "
                    + (result == null ? "null" : result.getClass().getName()) + ", not a ContentResult");
        }
        return new Output(result == null ? NullNode.getInstance() : schemas.mapper().valueToTree(result), null);
    }

    private <I> I bind(Tool<I, ?> t, JsonNode arguments) {
        try {
            return schemas.bind(arguments, t.inputType());
        } catch (ToolValidationException e) {
            throw e.forTool(name);
        }
    }

    @Override
    public String toString() {
        return "RegisteredTool[" + name + ", " + tool.effect() + ", from " + source + "]";
    }
}
