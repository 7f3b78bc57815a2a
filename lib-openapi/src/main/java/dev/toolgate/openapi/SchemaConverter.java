package dev.toolgate.openapi;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns the schemas of an OpenAPI document into one JSON Schema (2020-12) per tool. Component schemas
 * a tool reaches ({@code #/components/schemas/X}) are copied into the tool schema's {@code $defs} and
 * referenced there, so recursive and mutually recursive schemas stay references and never loop; other
 * local references are copied in place (a cycle through them is refused).
 *
 * <p>OpenAPI 3.0's dialect is rewritten: {@code nullable: true} adds {@code "null"} to the type,
 * boolean {@code exclusiveMinimum}/{@code exclusiveMaximum} become numbers, siblings of a {@code $ref}
 * are dropped as 3.0 says. Keywords that are documentation for people ({@code example},
 * {@code externalDocs}, {@code xml}, {@code discriminator}, {@code x-*}) are dropped in both versions, and
 * so are the identifiers a copied schema cannot keep ({@code $id}, {@code $schema}, {@code $anchor},
 * {@code $dynamicAnchor}) and {@code $vocabulary}, which only a meta-schema may state (an OpenAPI 3.1
 * document that writes it as a string would otherwise make the whole input schema invalid).
 * One converter per tool; not thread-safe.
 */
final class SchemaConverter {

    private static final String COMPONENTS = "#/components/schemas/";
    /** Nodes a single tool's schema may hold, $defs included: a guard against hostile documents. */
    static final int MAX_NODES = 200_000;
    /**
     * Deepest nesting of schemas followed, references inlined in place included: a document's own
     * nesting is bounded by its parser, but a chain of local references is not, and each level costs
     * stack.
     */
    static final int MAX_DEPTH = 256;

    private static final Set<String> NAME_MAPS = Set.of("properties", "patternProperties", "$defs", "definitions",
            "dependentSchemas");
    private static final Set<String> DATA = Set.of("enum", "const", "default", "examples", "required",
            "dependentRequired");
    private static final Set<String> DROPPED = Set.of("example", "externalDocs", "xml", "discriminator", "$id",
            "$schema", "$vocabulary", "nullable", "$anchor", "$dynamicAnchor");

    private final ParsedDocument document;
    private final boolean v30;
    private final Set<String> components = new LinkedHashSet<>();
    private final Deque<String> inlining = new ArrayDeque<>();
    private int nodes;
    private int depth;

    SchemaConverter(ParsedDocument document) {
        this.document = document;
        this.v30 = document.isVersion30();
    }

    /** Converts one schema found at {@code where} (a JSON pointer, for messages). */
    JsonNode convert(JsonNode schema, String where) {
        return schema(schema, where);
    }

    /**
     * The {@code $defs} for everything converted so far: each component schema reached, converted in
     * turn (which may reach more).
     */
    ObjectNode definitions() {
        ObjectNode defs = JsonNodeFactory.instance.objectNode();
        Deque<String> todo = new ArrayDeque<>(components);
        Set<String> done = new LinkedHashSet<>();
        while (!todo.isEmpty()) {
            String name = todo.poll();
            if (!done.add(name)) {
                continue;
            }
            String pointer = COMPONENTS + ParsedDocument.escape(name);
            JsonNode component = document.resolve(pointer, pointer.substring(1));
            int before = components.size();
            defs.set(name, schema(component, pointer.substring(1)));
            List<String> all = List.copyOf(components);
            for (int i = before; i < all.size(); i++) {
                todo.add(all.get(i));
            }
        }
        return defs;
    }

    private JsonNode schema(JsonNode node, String where) {
        if (depth >= MAX_DEPTH) {
            throw new OpenApiDocumentException(where, "the schema nests more than " + MAX_DEPTH + " levels deep "
                    + "(through references outside #/components/schemas)");
        }
        depth++;
        try {
            return convertSchema(node, where);
        } finally {
            depth--;
        }
    }

    private JsonNode convertSchema(JsonNode node, String where) {
        count(where);
        if (node == null || node.isBoolean()) {
            return node == null ? JsonNodeFactory.instance.objectNode() : node;
        }
        if (!node.isObject()) {
            throw new OpenApiDocumentException(where, "a schema must be an object or a boolean");
        }
        if (node.has("$ref")) {
            JsonNode converted = reference(ParsedDocument.reference(node, where), where);
            if (v30 || node.size() == 1) {
                return converted;
            }
            // 3.1: a reference may have siblings; keep both through allOf
            ObjectNode rest = ((ObjectNode) node).deepCopy();
            rest.remove("$ref");
            ObjectNode siblings = (ObjectNode) object(rest, where);
            if (siblings.isEmpty()) {
                return converted;
            }
            siblings.putArray("allOf").add(converted);
            return siblings;
        }
        return object((ObjectNode) node, where);
    }

    private JsonNode object(ObjectNode node, String where) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        for (var field : node.properties()) {
            String key = field.getKey();
            JsonNode value = field.getValue();
            if (DROPPED.contains(key) || key.startsWith("x-")) {
                continue;
            }
            String at = where + "/" + ParsedDocument.escape(key);
            if (DATA.contains(key)) {
                out.set(key, copy(value, at));
            } else if (NAME_MAPS.contains(key) && value.isObject()) {
                ObjectNode names = out.putObject(key);
                for (var named : value.properties()) {
                    names.set(named.getKey(), schema(named.getValue(), at + "/" + ParsedDocument.escape(named.getKey())));
                }
            } else if (value.isArray() && (key.equals("allOf") || key.equals("anyOf") || key.equals("oneOf")
                    || key.equals("prefixItems") || key.equals("items"))) {
                ArrayNode list = out.putArray(key);
                int i = 0;
                for (JsonNode element : value) {
                    list.add(schema(element, at + "/" + i++));
                }
            } else if (value.isObject() || value.isBoolean() && isSubschemaKeyword(key)) {
                out.set(key, isSubschemaKeyword(key) ? schema(value, at) : copy(value, at));
            } else {
                out.set(key, copy(value, at));
            }
        }
        if (v30) {
            dialect30(node, out);
        }
        return out;
    }

    private static boolean isSubschemaKeyword(String key) {
        return switch (key) {
            case "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
                 "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema" -> true;
            default -> false;
        };
    }

    private static void dialect30(ObjectNode source, ObjectNode out) {
        if (source.path("nullable").asBoolean(false)) {
            JsonNode type = out.get("type");
            if (type != null && type.isString()) {
                out.putArray("type").add(type.asString()).add("null");
            }
            JsonNode values = out.get("enum");
            if (values != null && values.isArray() && !containsNull(values)) {
                ((ArrayNode) values).addNull();
            }
        }
        exclusive(source, out, "exclusiveMinimum", "minimum");
        exclusive(source, out, "exclusiveMaximum", "maximum");
    }

    private static boolean containsNull(JsonNode values) {
        for (JsonNode value : values) {
            if (value.isNull()) {
                return true;
            }
        }
        return false;
    }

    private static void exclusive(ObjectNode source, ObjectNode out, String keyword, String bound) {
        JsonNode flag = source.get(keyword);
        if (flag == null || !flag.isBoolean()) {
            return;
        }
        out.remove(keyword);
        if (flag.asBoolean() && source.get(bound) != null && source.get(bound).isNumber()) {
            out.set(keyword, source.get(bound));
            out.remove(bound);
        }
    }

    private JsonNode reference(String ref, String where) {
        if (ref.startsWith(COMPONENTS)) {
            List<String> tokens = ParsedDocument.tokens(ref.substring(1));
            if (tokens.size() < 3 || tokens.get(2).isEmpty()) {
                throw new OpenApiDocumentException(where, "the reference '" + ParsedDocument.shorten(ref) + "' names no schema");
            }
            String name = tokens.get(2);
            document.resolve(COMPONENTS + ParsedDocument.escape(name), where); // fails early if missing
            components.add(name);
            StringBuilder pointer = new StringBuilder("#/$defs/").append(ParsedDocument.escape(name));
            for (String token : tokens.subList(3, tokens.size())) {
                pointer.append('/').append(ParsedDocument.escape(token));
            }
            return JsonNodeFactory.instance.objectNode().put("$ref", pointer.toString());
        }
        // any other local reference is copied in place; a cycle through such references cannot be copied
        if (inlining.contains(ref)) {
            throw new OpenApiDocumentException(where, "the schema reference '" + ParsedDocument.shorten(ref)
                    + "' reaches itself outside #/components/schemas");
        }
        JsonNode target = document.resolve(ref, where);
        inlining.push(ref);
        try {
            return schema(target, ref.substring(1));
        } finally {
            inlining.pop();
        }
    }

    private void count(String where) {
        if (++nodes > MAX_NODES) {
            throw new OpenApiDocumentException(where, "the schema grows beyond " + MAX_NODES + " nodes");
        }
    }

    /**
     * A copy of a value taken as it is ({@code enum}, {@code default}, ...), counted node by node before
     * it is copied: a value reached through many inlined references is copied as many times.
     */
    private JsonNode copy(JsonNode value, String where) {
        Deque<JsonNode> todo = new ArrayDeque<>();
        todo.push(value);
        while (!todo.isEmpty()) {
            JsonNode node = todo.pop();
            count(where);
            if (node.isContainer()) {
                node.forEach(todo::push);
            }
        }
        return value.deepCopy();
    }
}
