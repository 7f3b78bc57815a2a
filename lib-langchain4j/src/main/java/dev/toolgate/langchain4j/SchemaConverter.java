package dev.toolgate.langchain4j;

import dev.langchain4j.model.chat.request.json.JsonAnyOfSchema;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonBooleanSchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonNullSchema;
import dev.langchain4j.model.chat.request.json.JsonNumberSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonReferenceSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import dev.toolgate.json.CanonicalJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Converts a gate tool's JSON Schema into LangChain4j's {@link JsonObjectSchema}, which has a smaller
 * vocabulary: types, properties, required, boolean additionalProperties, items, string enums, anyOf,
 * {@code $defs} references and descriptions. Every other keyword (bounds, lengths, patterns, formats,
 * const, defaults, non-string enums, oneOf/allOf, tuple items, schema-valued additionalProperties) is
 * not dropped silently: it is written into the element's description as {@code Constraints: {...}},
 * so the model still reads it, and the gate validates every call against the full schema anyway.
 */
final class SchemaConverter {

    /** Keywords the element types carry themselves (or that only annotate the schema document). */
    private static final Set<String> MAPPED = Set.of("type", "properties", "required", "description", "items",
            "$defs", "definitions", "$ref", "anyOf", "$schema", "$id", "$comment", "title");

    private SchemaConverter() {
    }

    /**
     * The parameters of a tool.
     *
     * @param schema     the object schema
     * @param rootNotes  constraints of the root that LangChain4j cannot carry (for the tool description), or empty
     */
    record Converted(JsonObjectSchema schema, String rootNotes) {
    }

    static Converted convert(JsonNode schema) {
        if (schema == null || !schema.isObject()) {
            throw new IllegalArgumentException("A tool's input schema must be a JSON object, got " + schema);
        }
        Map<String, JsonSchemaElement> definitions = new LinkedHashMap<>();
        for (String key : List.of("$defs", "definitions")) {
            JsonNode defs = schema.get(key);
            if (defs != null && defs.isObject()) {
                for (Map.Entry<String, JsonNode> entry : defs.properties()) {
                    definitions.put(entry.getKey(), element(entry.getValue()));
                }
            }
        }
        ObjectNode leftover = leftover(schema);
        JsonNode type = schema.get("type");
        if (type != null && !(type.isString() && type.asString().equals("object"))) {
            leftover.set("type", type.deepCopy());
        }
        for (String key : List.of("anyOf", "$ref")) {
            if (schema.has(key)) {
                leftover.set(key, schema.get(key).deepCopy());
            }
        }
        JsonObjectSchema.Builder root = objectBuilder(schema, leftover);
        root.description(text(schema, "description"));
        if (!definitions.isEmpty()) {
            root.definitions(definitions);
        }
        return new Converted(root.build(), leftover.isEmpty() ? "" : "Constraints: " + CanonicalJson.canonicalize(leftover));
    }

    static JsonSchemaElement element(JsonNode node) {
        if (node == null || node.isBoolean() || (node.isObject() && node.isEmpty())) {
            return anyValue(null); // true / {}: any value (false cannot be satisfied and is not offered)
        }
        if (!node.isObject()) {
            return anyValue("Constraints: " + node);
        }
        ObjectNode leftover = leftover(node);
        String description = text(node, "description");
        JsonNode ref = node.get("$ref");
        if (ref != null && ref.isString()) {
            String target = ref.asString();
            for (String prefix : List.of("#/$defs/", "#/definitions/")) {
                if (target.startsWith(prefix) && target.indexOf('/', prefix.length()) < 0) {
                    return JsonReferenceSchema.builder().reference(target.substring(prefix.length())).build();
                }
            }
            leftover.set("$ref", ref.deepCopy());
            return anyValue(describe(description, leftover));
        }
        JsonNode anyOf = node.get("anyOf");
        if (anyOf != null && anyOf.isArray()) {
            List<JsonSchemaElement> options = new ArrayList<>();
            anyOf.forEach(option -> options.add(element(option)));
            return JsonAnyOfSchema.builder().anyOf(options).description(describe(description, leftover)).build();
        }
        JsonNode type = node.get("type");
        if (type != null && type.isArray()) {
            List<JsonSchemaElement> options = new ArrayList<>();
            for (JsonNode one : type) {
                ObjectNode single = ((ObjectNode) node).deepCopy();
                single.put("type", one.asString());
                single.remove("description");
                options.add(element(single));
            }
            return JsonAnyOfSchema.builder().anyOf(options).description(description).build();
        }
        String kind = type != null && type.isString() ? type.asString() : node.has("properties") ? "object" : null;
        JsonNode values = node.get("enum");
        if (values != null && values.isArray() && allStrings(values) && (kind == null || kind.equals("string"))) {
            leftover.remove("enum");
            List<String> list = new ArrayList<>();
            values.forEach(v -> list.add(v.asString()));
            return JsonEnumSchema.builder().enumValues(list).description(describe(description, leftover)).build();
        }
        if (kind == null) {
            return anyValue(describe(description, leftover));
        }
        return switch (kind) {
            case "object" -> objectBuilder(node, leftover).description(describe(description, leftover)).build();
            case "array" -> array(node, leftover, description);
            case "string" -> JsonStringSchema.builder().description(describe(description, leftover)).build();
            case "integer" -> JsonIntegerSchema.builder().description(describe(description, leftover)).build();
            case "number" -> JsonNumberSchema.builder().description(describe(description, leftover)).build();
            case "boolean" -> JsonBooleanSchema.builder().description(describe(description, leftover)).build();
            case "null" -> new JsonNullSchema();
            default -> throw new IllegalArgumentException("Unknown JSON Schema type '" + kind + "'");
        };
    }

    private static JsonSchemaElement array(JsonNode node, ObjectNode leftover, String description) {
        JsonNode items = node.get("items");
        JsonArraySchema.Builder builder = JsonArraySchema.builder();
        if (items != null && items.isObject()) {
            builder.items(element(items));
        } else {
            if (items != null) {
                leftover.set("items", items.deepCopy());
            }
            builder.items(anyValue(null));
        }
        return builder.description(describe(description, leftover)).build();
    }

    private static JsonObjectSchema.Builder objectBuilder(JsonNode node, ObjectNode leftover) {
        JsonObjectSchema.Builder builder = JsonObjectSchema.builder();
        JsonNode properties = node.get("properties");
        if (properties != null && properties.isObject()) {
            for (Map.Entry<String, JsonNode> entry : properties.properties()) {
                builder.addProperty(entry.getKey(), element(entry.getValue()));
            }
        }
        JsonNode required = node.get("required");
        if (required != null && required.isArray()) {
            List<String> names = new ArrayList<>();
            required.forEach(r -> names.add(r.asString()));
            builder.required(names);
        }
        JsonNode additional = node.get("additionalProperties");
        if (additional != null && additional.isBoolean()) {
            builder.additionalProperties(additional.asBoolean());
            leftover.remove("additionalProperties");
        }
        return builder;
    }

    /** No LangChain4j element means "any JSON value": an anyOf of every type. */
    private static JsonSchemaElement anyValue(String description) {
        return JsonAnyOfSchema.builder().description(description).anyOf(
                new JsonStringSchema(), new JsonNumberSchema(), new JsonBooleanSchema(),
                JsonObjectSchema.builder().additionalProperties(true).build(),
                JsonArraySchema.builder().items(new JsonStringSchema()).build(), new JsonNullSchema()).build();
    }

    private static ObjectNode leftover(JsonNode node) {
        ObjectNode rest = ((ObjectNode) node).deepCopy();
        rest.remove(MAPPED);
        return rest;
    }

    private static boolean allStrings(JsonNode values) {
        for (JsonNode v : values) {
            if (!v.isString()) {
                return false;
            }
        }
        return !values.isEmpty();
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value != null && value.isString() ? value.asString() : null;
    }

    private static String describe(String description, ObjectNode leftover) {
        if (leftover.isEmpty()) {
            return description;
        }
        String constraints = "Constraints: " + CanonicalJson.canonicalize(leftover);
        return description == null ? constraints : description + " " + constraints;
    }
}
