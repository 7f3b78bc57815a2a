package dev.toolgate.source;

import dev.toolgate.tool.Effect;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool as a source offers it: its name within the source, the text the model reads, the effect
 * the gate governs it by, and its input schema. The gate registers it as
 * {@code <source id>.<name>} (for example {@code mcp:github.create_issue}) and governs it like a tool
 * written in code: access rules, validation against {@link #inputSchema()} before anything reaches
 * the source, budget, policy, propose and apply, audit.
 *
 * @param name          the name within the source, 1-120 characters of {@code A-Za-z0-9_.-}
 * @param title         a short title for people, or null
 * @param description   what the tool does, for the model
 * @param effect        READ, MUTATE or DESTRUCTIVE as the source judges it; a source must not call a tool
 *                      READ unless it knows the tool changes nothing
 * @param inputSchema   the JSON Schema of the arguments, a JSON object
 * @param outputSchema  the JSON Schema of the result, or null
 * @param requiredRules access rules a caller must hold, all of them
 * @param openWorld     true if the tool reaches systems outside the host
 * @param contract      what the tool's meaning depends on besides its input schema (an HTTP API's method
 *                      and path), or null; drift review fingerprints it with the schema, see
 *                      {@link dev.toolgate.tool.Tool#contract()}
 */
public record SourceTool(String name, String title, String description, Effect effect, ObjectNode inputSchema,
                         ObjectNode outputSchema, Set<String> requiredRules, boolean openWorld, String contract) {

    /** A tool with no contract beyond its schema. */
    public SourceTool(String name, String title, String description, Effect effect, ObjectNode inputSchema,
                      ObjectNode outputSchema, Set<String> requiredRules, boolean openWorld) {
        this(name, title, description, effect, inputSchema, outputSchema, requiredRules, openWorld, null);
    }

    /** Checks the components and copies the schemas. */
    public SourceTool {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(inputSchema, "inputSchema");
        description = description == null ? "" : description;
        inputSchema = inputSchema.deepCopy();
        outputSchema = outputSchema == null ? null : outputSchema.deepCopy();
        requiredRules = requiredRules == null ? Set.of() : Set.copyOf(new TreeSet<>(requiredRules));
        contract = contract == null || contract.isBlank() ? null : contract;
    }

    /** A tool with no title, no output schema, no rules, not open-world. */
    public static SourceTool of(String name, String description, Effect effect, ObjectNode inputSchema) {
        return new SourceTool(name, null, description, effect, inputSchema, null, Set.of(), false);
    }

    /** This tool with another effect (an operator's override). */
    public SourceTool withEffect(Effect effect) {
        return new SourceTool(name, title, description, effect, inputSchema, outputSchema, requiredRules, openWorld,
                contract);
    }

    /** This tool requiring {@code rules} as well. */
    public SourceTool withRequiredRules(Set<String> rules) {
        Set<String> all = new TreeSet<>(requiredRules);
        all.addAll(rules);
        return new SourceTool(name, title, description, effect, inputSchema, outputSchema, all, openWorld, contract);
    }

    /** This tool with {@code contract} (see the record's {@code contract} component). */
    public SourceTool withContract(String contract) {
        return new SourceTool(name, title, description, effect, inputSchema, outputSchema, requiredRules, openWorld,
                contract);
    }
}
