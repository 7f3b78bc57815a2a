package dev.toolgate.policy;

import java.util.Optional;

/**
 * Everything stored about one tool for one call's scopes, read in one step.
 *
 * @param automationOverride the override for the call's automation, if any
 * @param tenantOverride     the override for the call's tenant, if any
 * @param review             the tenant's review of the tool's schema, if any
 */
public record PolicyView(Optional<ModeOverride> automationOverride, Optional<ModeOverride> tenantOverride,
                         Optional<ToolReview> review) {

    /** Nothing stored. */
    public static final PolicyView EMPTY = new PolicyView(Optional.empty(), Optional.empty(), Optional.empty());
}
