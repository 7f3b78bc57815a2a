package dev.toolgate.policy;

import dev.toolgate.tool.Effect;
import java.util.Objects;

/**
 * Resolves the mode of a call: automation override, then tenant default, then the default inferred
 * from the effect; then the drift guard. Pure.
 *
 * <p>Drift: if the tenant's {@link ToolReview} of the tool holds a different schema fingerprint than
 * the tool has now, the tool has drifted. A drifted ALLOW becomes REQUIRE_APPROVAL until an operator
 * re-confirms; DENY stays DENY and REQUIRE_APPROVAL stays REQUIRE_APPROVAL. Drift never upgrades a
 * tool.
 */
public final class ModeCascade {

    private ModeCascade() {
    }

    /**
     * @param effect             the tool's effect
     * @param view               what is stored for the call's scopes
     * @param currentFingerprint the tool's schema fingerprint now
     */
    public static ModeResolution resolve(Effect effect, PolicyView view, String currentFingerprint) {
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(view, "view");
        Mode mode;
        ModeSource source;
        if (view.automationOverride().isPresent()) {
            mode = view.automationOverride().get().mode();
            source = ModeSource.AUTOMATION_OVERRIDE;
        } else if (view.tenantOverride().isPresent()) {
            mode = view.tenantOverride().get().mode();
            source = ModeSource.TENANT_DEFAULT;
        } else {
            mode = Dispositions.inferred(effect);
            source = ModeSource.INFERRED_DEFAULT;
        }
        boolean drifted = view.review().map(r -> !r.fingerprint().equals(currentFingerprint)).orElse(false);
        if (drifted && mode == Mode.ALLOW) {
            mode = Mode.REQUIRE_APPROVAL;
        }
        return new ModeResolution(mode, source, drifted);
    }
}
