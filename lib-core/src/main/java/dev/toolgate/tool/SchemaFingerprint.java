package dev.toolgate.tool;

import dev.toolgate.json.CanonicalJson;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A stable hash of a tool's input schema for drift detection: the SHA-256 of the canonical JSON
 * (sorted keys) of the schema with the annotation keywords {@code description}, {@code default},
 * {@code enum}, {@code title}, {@code examples} and {@code $comment} removed, because upstream
 * servers often put dynamic text there that is no change in what the tool accepts.
 *
 * <p>A tool may add a contract (its HTTP method and path, say); it is hashed with the schema.
 *
 * <p>Only keywords are stripped: the keys of {@code properties}, {@code patternProperties},
 * {@code $defs}, {@code definitions} and {@code dependentSchemas} are names, so a new property called
 * {@code description} still changes the fingerprint.
 */
final class SchemaFingerprint {

    private static final Set<String> STRIPPED = Set.of("description", "default", "enum", "title", "examples", "$comment");
    private static final Set<String> NAME_MAPS = Set.of("properties", "patternProperties", "$defs", "definitions", "dependentSchemas");

    private SchemaFingerprint() {
    }

    static String of(JsonNode schema) {
        return CanonicalJson.sha256Hex(normalizeSchema(schema));
    }

    /**
     * The fingerprint of a schema and the tool's contract (see {@link Tool#contract()}); without a
     * contract, the schema's alone, so tools that state none keep the fingerprints already reviewed.
     */
    static String of(JsonNode schema, String contract) {
        if (contract == null) {
            return of(schema);
        }
        ObjectNode both = JsonNodeFactory.instance.objectNode();
        both.set("schema", normalizeSchema(schema));
        both.put("contract", contract);
        return CanonicalJson.sha256Hex(both);
    }

    static JsonNode normalizeSchema(JsonNode node) {
        if (node instanceof ObjectNode object) {
            ObjectNode copy = object.objectNode();
            for (var entry : object.properties()) {
                String key = entry.getKey();
                if (STRIPPED.contains(key)) {
                    continue;
                }
                if (NAME_MAPS.contains(key) && entry.getValue() instanceof ObjectNode names) {
                    ObjectNode namesCopy = names.objectNode();
                    for (var named : names.properties()) {
                        namesCopy.set(named.getKey(), normalizeSchema(named.getValue()));
                    }
                    copy.set(key, namesCopy);
                } else {
                    copy.set(key, normalizeSchema(entry.getValue()));
                }
            }
            return copy;
        }
        if (node instanceof ArrayNode array) {
            ArrayNode copy = array.arrayNode();
            array.forEach(element -> copy.add(normalizeSchema(element)));
            return copy;
        }
        return node;
    }
}
