package dev.toolgate.audit;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.tool.Effect;
import java.time.Duration;
import java.util.Objects;

/**
 * A call (or the apply or approval of a proposal) that the principal's budget refused, for
 * listeners. Nothing was recorded and no tool code ran. Like {@link ToolCallEvent} it carries metadata
 * only.
 *
 * @param toolName   the qualified tool name
 * @param effect     the tool's effect
 * @param principal  whose budget refused (for an apply or approval: the applier's)
 * @param tenantId   the tenant, or null
 * @param sessionId  the session, or null
 * @param transport  how the call arrived
 * @param mode       the resolved mode (for an apply: the proposal's), or null
 * @param modeSource where it came from, or null
 * @param duration   how long the gate spent before refusing
 */
public record BudgetRefusal(String toolName, Effect effect, PrincipalRef principal, String tenantId, String sessionId,
                            String transport, Mode mode, ModeSource modeSource, Duration duration) {

    /** Checks the components; see the class description for what each must hold. */
    public BudgetRefusal {
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(duration, "duration");
    }
}
