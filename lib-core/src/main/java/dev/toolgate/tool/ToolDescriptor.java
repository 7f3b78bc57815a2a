package dev.toolgate.tool;

import dev.toolgate.json.Json;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The transport-facing description of a registered tool: the one serializer every transport (a chat
 * loop, MCP) uses. It carries names, text, the effect, JSON Schemas and the required rules, and never
 * an executor, a closure or a secret. Immutable: schema accessors return copies.
 */
public final class ToolDescriptor {

    private final String name;
    private final String title;
    private final String description;
    private final Effect effect;
    private final ObjectNode inputSchema;
    private final JsonNode outputSchema;
    private final List<String> requiredAccessRules;
    private final boolean openWorld;

    ToolDescriptor(String name, String title, String description, Effect effect, ObjectNode inputSchema,
                   JsonNode outputSchema, List<String> requiredAccessRules, boolean openWorld) {
        this.name = Objects.requireNonNull(name);
        this.title = title;
        this.description = Objects.requireNonNull(description);
        this.effect = Objects.requireNonNull(effect);
        this.inputSchema = inputSchema.deepCopy();
        this.outputSchema = outputSchema == null ? null : outputSchema.deepCopy();
        this.requiredAccessRules = List.copyOf(requiredAccessRules);
        this.openWorld = openWorld;
    }

    /** The qualified name, {@code <pluginId>.<name>}. */
    public String name() {
        return name;
    }

    /** The title for people, if any. */
    public Optional<String> title() {
        return Optional.ofNullable(title);
    }

    /** The description for the model. */
    public String description() {
        return description;
    }

    /** The effect. */
    public Effect effect() {
        return effect;
    }

    /** The input JSON Schema (2020-12, object root, no additional properties). A copy. */
    public ObjectNode inputSchema() {
        return inputSchema.deepCopy();
    }

    /** The output JSON Schema, if the tool declares an output type. A copy. */
    public Optional<JsonNode> outputSchema() {
        return Optional.ofNullable(outputSchema).map(JsonNode::deepCopy);
    }

    /** The rules a caller must hold, sorted. */
    public List<String> requiredAccessRules() {
        return requiredAccessRules;
    }

    /** True if the tool reaches outside the host. */
    public boolean openWorld() {
        return openWorld;
    }

    /**
     * The descriptor as JSON: {@code name}, {@code title} (when set), {@code description},
     * {@code effect} ({@code read}, {@code mutate} or {@code destructive}), {@code inputSchema},
     * {@code outputSchema} (when declared), {@code requiredAccessRules}, {@code openWorld} (when true).
     */
    public ObjectNode toJson() {
        ObjectNode json = Json.object();
        json.put("name", name);
        if (title != null) {
            json.put("title", title);
        }
        json.put("description", description);
        json.put("effect", effect.wireName());
        json.set("inputSchema", inputSchema.deepCopy());
        if (outputSchema != null) {
            json.set("outputSchema", outputSchema.deepCopy());
        }
        ArrayNode rules = json.putArray("requiredAccessRules");
        requiredAccessRules.forEach(rules::add);
        if (openWorld) {
            json.put("openWorld", true);
        }
        return json;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ToolDescriptor other && toJson().equals(other.toJson());
    }

    @Override
    public int hashCode() {
        return toJson().hashCode();
    }

    @Override
    public String toString() {
        return "ToolDescriptor[" + name + ", " + effect.wireName() + "]";
    }
}
