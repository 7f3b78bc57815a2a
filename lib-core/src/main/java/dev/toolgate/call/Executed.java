package dev.toolgate.call;

import dev.toolgate.tool.ContentResult;
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
 * @param content   the tool's {@link ContentResult} if it returned one (text redacted, structured content
 *                  redacted and capped, binary data as it is), for transports that carry content items
 *                  (MCP); null otherwise. {@code result} is then its JSON view, as recorded in the audit trail
 */
public record Executed(String callId, String toolName, JsonNode result, boolean truncated, ContentResult content)
        implements CallResult {

    /** Checks the components; see the class description for what each must hold. */
    public Executed {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(result, "result");
    }

    /** A result without content items: the tool returned a plain value. */
    public Executed(String callId, String toolName, JsonNode result, boolean truncated) {
        this(callId, toolName, result, truncated, null);
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
