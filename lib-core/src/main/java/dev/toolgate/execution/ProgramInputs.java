package dev.toolgate.execution;

import dev.toolgate.json.CanonicalJson;
import dev.toolgate.tool.InputSchema;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** The input a run starts with, checked once before anything is recorded: JSON that can be stored, its size, its schema. */
final class ProgramInputs {

    private ProgramInputs() {
    }

    /**
     * The input as the canonical JSON the run stores.
     *
     * @throws ToolValidationException the input is not storable JSON, too large, or does not match the program's schema
     */
    static String check(String name, Program program, JsonNode input, int maxBytes) {
        JsonNode in = input == null || input.isMissingNode() ? JsonNodeFactory.instance.objectNode() : input;
        String json;
        try {
            json = CanonicalJson.canonicalize(in);
        } catch (IllegalArgumentException e) {
            throw new ToolValidationException(name, List.of(ValidationIssue.at("", e.getMessage())));
        }
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxBytes) {
            throw new ToolValidationException(name, List.of(ValidationIssue.at("", "the input is " + bytes
                    + " bytes; the limit is " + maxBytes)));
        }
        Optional<ObjectNode> schema = program.inputSchema();
        if (schema.isPresent()) {
            List<ValidationIssue> issues = InputSchema.check(schema.get(), in);
            if (!issues.isEmpty()) {
                throw new ToolValidationException(name, issues);
            }
        }
        return json;
    }
}
