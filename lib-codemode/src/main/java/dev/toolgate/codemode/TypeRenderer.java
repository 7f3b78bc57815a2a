package dev.toolgate.codemode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * One JSON Schema as a TypeScript type. Named definitions ({@code $defs}, {@code definitions}) become
 * {@code type} aliases declared once and shared; a reference to a definition that is not there, and
 * anything nested deeper than {@value #MAX_DEPTH}, is {@code unknown}; a keyword this renderer does not
 * know narrows nothing (the type is wider, never wrong).
 */
final class TypeRenderer {

    static final int MAX_DEPTH = 32;
    static final int MAX_ENUM = 200;
    /** Names the TypeScript standard library (and the declarations' own header) already use. */
    private static final Set<String> TAKEN = Set.of("Array", "ArrayBuffer", "ArrayLike", "Awaited", "BigInt", "Boolean",
            "Capitalize", "ConstructorParameters", "DataView", "Date", "Error", "EvalError", "Exclude", "Extract", "Function",
            "Infinity", "InstanceType", "Int8Array", "Intl", "Iterable", "Iterator", "JSON", "Lowercase", "Map", "Math", "NaN",
            "NonNullable", "Number", "Object", "Omit", "Parameters", "Partial", "Pick", "Promise", "PromiseLike",
            "PropertyKey", "Proxy", "RangeError", "Readonly", "ReadonlyArray", "Record", "ReferenceError", "Reflect",
            "RegExp", "Required", "ReturnType", "Set", "String", "Symbol", "SyntaxError", "ThisType", "TypeError",
            "URIError", "Uint8Array", "Uncapitalize", "Uppercase", "WeakMap", "WeakSet", "DeniedError", "ValidationError",
            "ToolError", "tools", "console", "undefined", "unknown", "never", "any", "object", "string", "number",
            "boolean", "null", "void", "symbol", "bigint", "type", "interface", "declare", "const", "Element", "Node",
            "Event", "Response", "Request", "Headers", "URL", "Blob", "File", "Document", "Window", "Text", "Comment",
            "Range", "Selection", "Storage", "Location", "History", "Image", "Option", "Worker", "Crypto", "Cache", "Lock");

    /** The named types declared so far, shared by all the tools of one set of declarations. */
    static final class Names {
        private final Map<String, String> bodies = new LinkedHashMap<>();
        private final Map<String, String> byOrigin = new HashMap<>();
        private int resolving;

        Names copy() {
            Names copy = new Names();
            copy.bodies.putAll(bodies);
            copy.byOrigin.putAll(byOrigin);
            return copy;
        }

        /** {@code type X = ...;} for each, in the order they were first needed. */
        List<String> declarations() {
            List<String> out = new ArrayList<>();
            bodies.forEach((name, body) -> out.add("type " + name + " = " + body + ";"));
            return out;
        }
    }

    private final JsonNode root;
    private final String origin;
    private final Names names;

    /**
     * @param root   the schema whose definitions references point into
     * @param origin what tells this schema's definitions apart from another's of the same name
     * @param names  the named types declared so far
     */
    TypeRenderer(JsonNode root, String origin, Names names) {
        this.root = root;
        this.origin = origin;
        this.names = names;
    }

    /** The type of {@code schema}, its nested lines indented from {@code indent}. */
    String render(JsonNode schema, String indent) {
        return render(schema, indent, 0);
    }

    private String render(JsonNode schema, String indent, int depth) {
        if (schema == null || schema.isMissingNode() || schema.isNull()) {
            return "unknown";
        }
        if (schema.isBoolean()) {
            return schema.asBoolean() ? "unknown" : "never";
        }
        if (!schema.isObject() || depth > MAX_DEPTH) {
            return "unknown";
        }
        if (schema.has("$ref")) {
            return reference(schema.get("$ref").asString(""));
        }
        if (schema.has("const")) {
            return literal(schema.get("const"));
        }
        if (schema.has("enum") && schema.get("enum").isArray() && schema.get("enum").size() <= MAX_ENUM
                && !schema.get("enum").isEmpty()) {
            Set<String> members = new LinkedHashSet<>();
            for (JsonNode value : schema.get("enum")) {
                members.add(literal(value));
            }
            return String.join(" | ", members);
        }
        for (String keyword : List.of("anyOf", "oneOf")) {
            if (schema.get(keyword) != null && schema.get(keyword).isArray() && !schema.get(keyword).isEmpty()) {
                return union(schema.get(keyword), indent, depth);
            }
        }
        if (schema.get("allOf") != null && schema.get("allOf").isArray() && !schema.get("allOf").isEmpty()) {
            Set<String> parts = new LinkedHashSet<>();
            for (JsonNode part : schema.get("allOf")) {
                parts.add(group(render(part, indent, depth + 1)));
            }
            return String.join(" & ", parts);
        }
        JsonNode type = schema.get("type");
        if (type != null && type.isArray()) {
            Set<String> members = new LinkedHashSet<>();
            for (JsonNode one : type) {
                members.add(ofType(one.asString(""), schema, indent, depth));
            }
            return members.isEmpty() ? "unknown" : String.join(" | ", members);
        }
        if (type != null && type.isString()) {
            return ofType(type.asString(), schema, indent, depth);
        }
        if (schema.has("properties") || schema.has("additionalProperties")) {
            return object(schema, indent, depth);
        }
        if (schema.has("items") || schema.has("prefixItems")) {
            return array(schema, indent, depth);
        }
        return "unknown";
    }

    private String ofType(String type, JsonNode schema, String indent, int depth) {
        return switch (type) {
            case "string" -> "string";
            case "integer", "number" -> "number";
            case "boolean" -> "boolean";
            case "null" -> "null";
            case "array" -> array(schema, indent, depth);
            case "object" -> object(schema, indent, depth);
            default -> "unknown";
        };
    }

    private String union(JsonNode options, String indent, int depth) {
        Set<String> members = new LinkedHashSet<>();
        for (JsonNode option : options) {
            members.add(group(render(option, indent, depth + 1)));
        }
        return members.contains("unknown") ? "unknown" : String.join(" | ", members);
    }

    private String array(JsonNode schema, String indent, int depth) {
        JsonNode prefix = schema.get("prefixItems");
        if (prefix != null && prefix.isArray() && !prefix.isEmpty()) {
            List<String> items = new ArrayList<>();
            for (JsonNode item : prefix) {
                items.add(render(item, indent, depth + 1));
            }
            JsonNode rest = schema.get("items");
            if (rest != null && !(rest.isBoolean() && !rest.asBoolean())) {
                items.add("..." + group(render(rest, indent, depth + 1)) + "[]");
            }
            return "[" + String.join(", ", items) + "]";
        }
        return group(render(schema.get("items"), indent, depth + 1)) + "[]";
    }

    private String object(JsonNode schema, String indent, int depth) {
        JsonNode properties = schema.get("properties");
        JsonNode additional = schema.get("additionalProperties");
        String index = null;
        if (additional != null && additional.isObject()) {
            index = "{ [key: string]: " + render(additional, indent, depth + 1) + " }";
        } else if (additional != null && additional.isBoolean() && additional.asBoolean() || additional == null && properties == null) {
            index = properties == null ? "{ [key: string]: unknown }" : null;
        }
        if (properties == null || !properties.isObject() || properties.isEmpty()) {
            return index != null ? index : "{}";
        }
        Set<String> required = new LinkedHashSet<>();
        if (schema.get("required") != null && schema.get("required").isArray()) {
            for (JsonNode name : schema.get("required")) {
                required.add(name.asString(""));
            }
        }
        String inner = indent + "  ";
        StringBuilder out = new StringBuilder("{\n");
        for (Map.Entry<String, JsonNode> property : properties.properties()) {
            JsonNode value = property.getValue();
            String description = value != null && value.isObject() && value.get("description") != null
                    ? value.get("description").asString("") : "";
            doc(out, inner, description);
            out.append(inner).append(TsText.propertyName(property.getKey()))
                    .append(required.contains(property.getKey()) ? ": " : "?: ")
                    .append(render(value, inner, depth + 1)).append(";\n");
        }
        out.append(indent).append('}');
        return index == null ? out.toString() : out + " & " + index;
    }

    /** A named definition: declared once, under a name no other definition or library type has. */
    private String reference(String ref) {
        String name;
        if (ref.startsWith("#/$defs/")) {
            name = ref.substring("#/$defs/".length());
        } else if (ref.startsWith("#/definitions/")) {
            name = ref.substring("#/definitions/".length());
        } else {
            return "unknown";
        }
        name = name.replace("~1", "/").replace("~0", "~");
        JsonNode definition = root.path(ref.startsWith("#/$defs/") ? "$defs" : "definitions").path(name);
        if (definition.isMissingNode()) {
            return "unknown";
        }
        String key = origin + "\u0000" + ref;
        String known = names.byOrigin.get(key);
        if (known != null) {
            return known;
        }
        if (names.resolving >= MAX_DEPTH) {
            return "unknown"; // a chain of definitions deeper than any real schema
        }
        String base = TsText.typeName(name);
        if (TAKEN.contains(base)) {
            base = base + "Type";
        }
        String chosen = base;
        for (int n = 2; names.bodies.containsKey(chosen); n++) {
            chosen = base + "_" + n;
        }
        names.byOrigin.put(key, chosen);
        names.bodies.put(chosen, "unknown"); // reserved, so a definition may refer to itself
        String body;
        names.resolving++;
        try {
            body = new TypeRenderer(root, origin, names).render(definition, "");
        } finally {
            names.resolving--;
        }
        // the same definition from another tool's schema shares an existing name
        for (Map.Entry<String, String> existing : names.bodies.entrySet()) {
            if (!existing.getKey().equals(chosen) && existing.getValue().equals(body) && existing.getKey().startsWith(base)) {
                names.bodies.remove(chosen);
                names.byOrigin.put(key, existing.getKey());
                return existing.getKey();
            }
        }
        names.bodies.put(chosen, body);
        return chosen;
    }

    private static String literal(JsonNode value) {
        if (value.isString()) {
            return TsText.literal(value.asString());
        }
        if (value.isNumber() || value.isBoolean() || value.isNull()) {
            return value.toString();
        }
        return "unknown";
    }

    /** Parenthesized where a union or intersection would otherwise bind wrongly. */
    private static String group(String type) {
        boolean compound = false;
        int nesting = 0;
        boolean quoted = false;
        for (int i = 0; i < type.length(); i++) {
            char c = type.charAt(i);
            if (quoted) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    quoted = false;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == '{' || c == '[' || c == '(') {
                nesting++;
            } else if (c == '}' || c == ']' || c == ')') {
                nesting--;
            } else if (nesting == 0 && (c == '|' || c == '&')) {
                compound = true;
            }
        }
        return compound ? "(" + type + ")" : type;
    }

    static void doc(StringBuilder out, String indent, String... paragraphs) {
        List<String> lines = new ArrayList<>();
        for (String paragraph : paragraphs) {
            if (paragraph != null && !paragraph.isBlank()) {
                lines.addAll(List.of(TsText.docLines(paragraph)));
            }
        }
        if (lines.isEmpty()) {
            return;
        }
        if (lines.size() == 1) {
            out.append(indent).append("/** ").append(lines.get(0)).append(" */\n");
            return;
        }
        out.append(indent).append("/**\n");
        for (String line : lines) {
            out.append(indent).append(" *").append(line.isEmpty() ? "" : " " + line).append('\n');
        }
        out.append(indent).append(" */\n");
    }
}
