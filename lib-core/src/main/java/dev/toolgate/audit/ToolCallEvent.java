package dev.toolgate.audit;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.tool.Effect;
import java.time.Duration;
import java.time.Instant;
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
 * @param sessionId  the session or conversation, or null
 * @param mode       the resolved policy mode of the call (for a decision: the proposal's), or null if unknown
 * @param modeSource where that mode came from, or null if unknown
 * @param proposedAt for the decision on a proposal that waited (applied or failed after its token's apply or
 *                   an operator's approval, rejected, edited): when the proposal was made (store time), so
 *                   the approval latency is the time from it to this event; null otherwise (a direct call,
 *                   a policy's or standing approval's apply in the same step, a revert, a resolution)
 */
public record ToolCallEvent(String callId, String toolName, Effect effect, CallStatus status, PrincipalRef principal,
                            String tenantId, String transport, Duration duration, String sessionId, Mode mode,
                            ModeSource modeSource, Instant proposedAt) {

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

    /** An event without session, mode or proposal time (as before those were added). */
    public ToolCallEvent(String callId, String toolName, Effect effect, CallStatus status, PrincipalRef principal,
                         String tenantId, String transport, Duration duration) {
        this(callId, toolName, effect, status, principal, tenantId, transport, duration, null, null, null, null);
    }
}
