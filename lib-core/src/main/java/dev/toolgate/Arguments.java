package dev.toolgate;

import dev.toolgate.json.Json;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/** A model's arguments as JSON text, parsed for the facade's calls. */
final class Arguments {

    private Arguments() {
    }

    /**
     * The arguments, or null for none (null or blank text).
     *
     * @throws ToolValidationException if the text is longer than {@code maxBytes} or not JSON
     */
    static JsonNode parse(String toolName, String json, int maxBytes) {
        if (json == null || json.isBlank()) {
            return null;
        }
        if (json.equals("{}")) { // what a model sends for a tool without parameters: nothing to parse
            return Json.object();
        }
        if (json.length() > maxBytes) {
            throw new ToolValidationException(toolName, List.of(ValidationIssue.at("",
                    "the arguments are " + json.length() + " characters; the limit is " + maxBytes + " bytes")));
        }
        try {
            return Json.parse(json);
        } catch (JacksonException e) {
            throw new ToolValidationException(toolName, List.of(ValidationIssue.at("",
                    "malformed JSON: " + e.getOriginalMessage())));
        }
    }
}
