package dev.toolgate.policy;

import java.util.Objects;

/**
 * A resolved mode, where it came from, and whether the tool drifted since that mode was reviewed.
 * Every call records its mode and source.
 *
 * @param mode    the effective mode (after the drift guard)
 * @param source  where the mode came from
 * @param drifted true if the tool's schema changed since the stored review; a drifted ALLOW is
 *                already downgraded to REQUIRE_APPROVAL here
 */
public record ModeResolution(Mode mode, ModeSource source, boolean drifted) {

    /** Checks the components; see the class description for what each must hold. */
    public ModeResolution {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(source, "source");
    }

    /** True if a human or policy, not the effect-based inference, chose this mode. */
    public boolean explicit() {
        return source != ModeSource.INFERRED_DEFAULT || drifted;
    }
}
