package dev.toolgate;

import dev.toolgate.policy.ModeResolution;
import dev.toolgate.source.SourceStatus;
import dev.toolgate.tool.ToolDescriptor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/**
 * Renders the actions guide: a Markdown page for a model or a sandbox listing every tool a principal
 * may use, grouped by where it comes from (a plugin, a tool source), each with its effect, its mode
 * and where the mode comes from, its description and a compact summary of its input. Sources that
 * could not be listed are named as such. The output depends only on its inputs (no clock, no
 * randomness), so the same tools and policy always give the same page.
 */
final class Guide {

    /** Deeper input structures are summarized as {@code object}. */
    private static final int MAX_DEPTH = 3;

    /**
     * One tool in the guide.
     *
     * @param group      the plugin id or source id the tool belongs to
     * @param descriptor the tool
     * @param mode       its mode in the guide's context
     */
    record Entry(String group, ToolDescriptor descriptor, ModeResolution mode) {
    }

    private Guide() {
    }

    static String render(String principal, List<Entry> entries, List<SourceStatus> sources) {
        Map<String, List<Entry>> groups = new TreeMap<>();
        for (Entry entry : entries) {
            groups.computeIfAbsent(entry.group(), g -> new ArrayList<>()).add(entry);
        }
        Map<String, SourceStatus> bySource = new TreeMap<>();
        sources.forEach(s -> bySource.put(s.id(), s));
        Set<String> names = new LinkedHashSet<>(groups.keySet());
        bySource.keySet().stream().filter(id -> !names.contains(id)).forEach(names::add);
        List<String> ordered = new ArrayList<>(names);
        ordered.sort(null);

        StringBuilder out = new StringBuilder();
        out.append("# Tools for ").append(principal).append("\n\n");
        out.append("Every call goes through the gate. A tool in mode `allow` runs when called (a mutating one is still ")
                .append("previewed and recorded); `require_approval` returns a proposal that runs only after a person ")
                .append("consents; `deny` is refused. Pass arguments as one JSON object matching the input.\n");
        if (ordered.isEmpty()) {
            out.append("\nNo tools are available.\n");
        }
        for (String group : ordered) {
            SourceStatus source = bySource.get(group);
            out.append("\n## ").append(group);
            if (source != null) {
                if (!source.displayName().equals(group)) {
                    out.append(" (").append(source.displayName()).append(')');
                }
                out.append('\n');
                if (!source.available()) {
                    out.append("\n_Unavailable: ").append(source.failure().orElse("not listed yet"))
                            .append(". Its tools cannot be called until it answers again._\n");
                }
            } else {
                out.append('\n');
            }
            List<Entry> tools = groups.getOrDefault(group, List.of());
            if (tools.isEmpty()) {
                if (source == null || source.available()) {
                    out.append("\nNo tools from here for this principal.\n");
                }
                continue;
            }
            tools.sort((a, b) -> a.descriptor().name().compareTo(b.descriptor().name()));
            for (Entry entry : tools) {
                ToolDescriptor tool = entry.descriptor();
                ModeResolution mode = entry.mode();
                out.append("\n### `").append(tool.name()).append("`\n\n");
                out.append("- effect: ").append(tool.effect().name())
                        .append("; mode: `").append(mode.mode().wireName()).append("` (").append(mode.source().wireName())
                        .append(mode.drifted() ? ", drifted: awaiting review" : "").append(")\n");
                out.append("- input: `").append(summarize(tool.inputSchema(), 0).replace('`', '\'')).append("`\n\n");
                out.append(tool.description().strip()).append('\n');
            }
        }
        return out.toString();
    }

    /** A TypeScript-like one-line summary of a JSON Schema. */
    static String summarize(JsonNode schema, int depth) {
        if (schema == null || !schema.isObject()) {
            return "any";
        }
        if (schema.has("const")) {
            return literal(schema.get("const"));
        }
        if (schema.has("enum") && schema.get("enum").isArray()) {
            List<String> values = new ArrayList<>();
            schema.get("enum").forEach(v -> values.add(literal(v)));
            return values.isEmpty() ? "never" : String.join(" | ", values);
        }
        for (String union : List.of("anyOf", "oneOf")) {
            if (schema.has(union) && schema.get(union).isArray()) {
                List<String> parts = new ArrayList<>();
                schema.get(union).forEach(s -> parts.add(summarize(s, depth)));
                return String.join(" | ", new LinkedHashSet<>(parts));
            }
        }
        if (schema.has("$ref")) {
            String ref = schema.get("$ref").asString("");
            return ref.substring(ref.lastIndexOf('/') + 1);
        }
        JsonNode type = schema.get("type");
        if (type != null && type.isArray()) {
            List<String> parts = new ArrayList<>();
            for (JsonNode t : type) {
                parts.add(primitive(t.asString(""), schema, depth));
            }
            return String.join(" | ", new LinkedHashSet<>(parts));
        }
        String name = type == null ? (schema.has("properties") ? "object" : "") : type.asString("");
        return name.isEmpty() ? "any" : primitive(name, schema, depth);
    }

    private static String primitive(String type, JsonNode schema, int depth) {
        switch (type) {
            case "string":
                return "string";
            case "integer":
            case "number":
                return "number";
            case "boolean":
                return "boolean";
            case "null":
                return "null";
            case "array":
                String item = depth >= MAX_DEPTH ? "any" : summarize(schema.get("items"), depth + 1);
                return (item.contains(" | ") ? "(" + item + ")" : item) + "[]";
            case "object":
                return object(schema, depth);
            default:
                return "any";
        }
    }

    private static String object(JsonNode schema, int depth) {
        JsonNode properties = schema.get("properties");
        if (properties == null || !properties.isObject() || properties.isEmpty()) {
            JsonNode additional = schema.get("additionalProperties");
            if (additional != null && additional.isObject() && depth < MAX_DEPTH) {
                return "{[key: string]: " + summarize(additional, depth + 1) + "}";
            }
            return depth == 0 ? "{}" : "object";
        }
        if (depth >= MAX_DEPTH) {
            return "object";
        }
        Set<String> required = new LinkedHashSet<>();
        JsonNode req = schema.get("required");
        if (req != null && req.isArray()) {
            req.forEach(r -> required.add(r.asString("")));
        }
        StringBuilder out = new StringBuilder("{");
        Iterator<Map.Entry<String, JsonNode>> fields = properties.properties().iterator();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            out.append(field.getKey()).append(required.contains(field.getKey()) ? "" : "?").append(": ")
                    .append(summarize(field.getValue(), depth + 1));
            if (fields.hasNext()) {
                out.append(", ");
            }
        }
        return out.append('}').toString();
    }

    private static String literal(JsonNode value) {
        return value.isString() ? "\"" + value.asString().replace("\"", "\\\"") + "\"" : value.toString();
    }
}
