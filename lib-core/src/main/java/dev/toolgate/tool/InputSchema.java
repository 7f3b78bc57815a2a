package dev.toolgate.tool;

import dev.toolgate.json.Json;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON Schema of an input, made and checked exactly as a tool's input is: generated from a Java
 * type (a record's components are required unless {@code Optional}, unknown properties are refused),
 * validated with JSON Schema 2020-12. Programs use it to declare and check their input.
 */
public final class InputSchema {

    private static final ToolSchemas SCHEMAS = new ToolSchemas(Json.mapper());

    private InputSchema() {
    }

    /** The schema of {@code type}, as a tool whose input is that type advertises it (a copy). */
    public static ObjectNode of(Type type) {
        Objects.requireNonNull(type, "type");
        return SCHEMAS.schemaOf(type).deepCopy();
    }

    /**
     * Every issue with {@code input} against {@code schema}, each with the JSON Pointer of what is
     * wrong; empty if it is valid.
     *
     * @throws ToolDefinitionException the schema itself is not a valid JSON Schema
     */
    public static List<ValidationIssue> check(JsonNode schema, JsonNode input) {
        Objects.requireNonNull(schema, "schema");
        List<ValidationIssue> wrong = ToolSchemas.checkGivenSchema(schema);
        if (!wrong.isEmpty()) {
            throw new ToolDefinitionException("not a valid JSON Schema: " + wrong);
        }
        return ToolSchemas.validate(ToolSchemas.compile(schema), input);
    }
}
