package dev.toolgate.audit;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.tool.Effect;
import java.time.Duration;
import java.util.Objects;

/**
 * The metadata of one call outcome, for listeners: who, how, which tool, what happened, how long.
 * It never carries arguments, payloads, results or error text, so subscribers react to the fact of
 * a call and not to its contents.
 *
 * @param callId    the audit record id
 * @param toolName  the qualified tool name
 * @param effect    the tool's effect
 * @param status    the status the call reached
 * @param principal who made the call (for an apply: who applied)
 * @param tenantId  the tenant, or null
 * @param transport how the call arrived
 * @param duration  how long the gate spent on this step
 */
public record ToolCallEvent(String callId, String toolName, Effect effect, CallStatus status, PrincipalRef principal,
                            String tenantId, String transport, Duration duration) {

    /** Checks the components; see the class description for what each must hold. */
    public ToolCallEvent {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(duration, "duration");
    }
}
