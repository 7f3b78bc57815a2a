package dev.toolgate.call;

import dev.toolgate.policy.ModeResolution;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * Policy refused the call (mode DENY). The refusal is recorded as {@code denied} with reason
 * {@code policy}; the model should not retry.
 *
 * @param callId   the audit record id
 * @param toolName the tool
 * @param reason   {@code policy}
 * @param mode     the mode and where it came from
 */
public record Denied(String callId, String toolName, String reason, ModeResolution mode) implements CallResult {

    /** Checks the components; see the class description for what each must hold. */
    public Denied {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(mode, "mode");
    }

    @Override
    public String status() {
        return "denied";
    }

    /** One sentence for the model. */
    public String message() {
        return "Denied by policy (" + mode.source().wireName() + "): " + toolName + " may not run here. Do not retry.";
    }

    @Override
    public ObjectNode toJson() {
        ObjectNode json = CallResult.envelope(this);
        json.put("reason", reason);
        json.put("modeSource", mode.source().wireName());
        json.put("message", message());
        return json;
    }
}
