package dev.toolgate.policy;

import dev.toolgate.access.PrincipalRef;
import java.time.Instant;
import java.util.Objects;

/**
 * A stored policy decision for one tool at one scope.
 *
 * @param scope    automation or tenant
 * @param scopeId  the automation id or tenant id
 * @param toolName the qualified tool name
 * @param mode     the mode to apply
 * @param setBy    who set it
 * @param setAt    when (store time; may be null before the store sets it)
 */
public record ModeOverride(OverrideScope scope, String scopeId, String toolName, Mode mode, PrincipalRef setBy,
                           Instant setAt) {

    /** Checks the components; see the class description for what each must hold. */
    public ModeOverride {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(scopeId, "scopeId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(setBy, "setBy");
    }
}
