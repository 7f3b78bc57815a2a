package dev.toolgate.gate;

import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool ran directly (a read under ALLOW).
 *
 * @param callId    the audit record id
 * @param toolName  the tool
 * @param result    the result, redacted and size-capped
 * @param truncated true if the result was pruned to fit the cap
 */
public record Executed(String callId, String toolName, JsonNode result, boolean truncated) implements CallResult {

    /** Checks the components; see the class description for what each must hold. */
    public Executed {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(result, "result");
    }

    @Override
    public String status() {
        return "executed";
    }

    @Override
    public ObjectNode toJson() {
        ObjectNode json = CallResult.envelope(this);
        json.set("result", result.deepCopy());
        return json;
    }
}
