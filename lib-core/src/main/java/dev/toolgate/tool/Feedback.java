package dev.toolgate.tool;

import dev.toolgate.json.Json;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Structured feedback for the model after a call it should correct rather than retry verbatim. A
 * chat loop or the MCP adapter turns it into a tool error result so the model knows the call failed.
 *
 * @param kind     what kind of feedback
 * @param toolName the tool the model called
 * @param issues   what to fix; empty for {@link Kind#DUPLICATE}
 * @param message  one sentence for the model
 */
public record Feedback(Kind kind, String toolName, List<ValidationIssue> issues, String message) {

    /** Kinds of feedback. */
    public enum Kind {
        /** The arguments do not match the schema, or the dry-run found them semantically invalid. */
        VALIDATION,
        /** The same call with the same arguments already succeeded in this turn. */
        DUPLICATE;

        /** The lower-case wire name. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Checks the components; see the class description for what each must hold. */
    public Feedback {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(toolName, "toolName");
        issues = List.copyOf(issues);
        Objects.requireNonNull(message, "message");
    }

    /**
     * The feedback as the JSON a chat loop or MCP returns as a tool error:
     * {@code {"kind", "toolName", "issues": [{"path", "message"}], "message"}}.
     */
    public ObjectNode toJson() {
        ObjectNode json = Json.object();
        json.put("kind", kind.wireName());
        json.put("toolName", toolName);
        ArrayNode list = json.putArray("issues");
        for (ValidationIssue issue : issues) {
            list.addObject().put("path", issue.path()).put("message", issue.message());
        }
        json.put("message", message);
        return json;
    }
}
