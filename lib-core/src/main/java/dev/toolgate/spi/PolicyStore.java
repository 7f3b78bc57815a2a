package dev.toolgate.spi;

import dev.toolgate.policy.ModeOverride;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PolicyView;
import dev.toolgate.policy.ToolReview;
import java.util.List;

/**
 * Durable policy: mode overrides per automation and per tenant, and the schema reviews drift is
 * measured against. Every method is one atomic step.
 */
public interface PolicyStore {

    /**
     * The overrides of {@code toolName} for the automation and the tenant, and the tenant's review of
     * the tool, read together.
     *
     * @param tenantId     the tenant, or null
     * @param automationId the automation, or null
     */
    PolicyView view(String toolName, String tenantId, String automationId);

    /** Stores an override, replacing any for the same scope, scope id and tool; sets {@code setAt}. */
    void putOverride(ModeOverride override);

    /** Removes an override; false if there was none. */
    boolean removeOverride(OverrideScope scope, String scopeId, String toolName);

    /** The overrides stored at one scope, sorted by tool name. */
    List<ModeOverride> overrides(OverrideScope scope, String scopeId);

    /**
     * Stores {@code review} only if the tenant has none for the tool yet (a first-seen baseline).
     *
     * @return the review now stored (the existing one if there was one)
     */
    ToolReview reviewIfAbsent(ToolReview review);

    /** Stores {@code review}, replacing any (an operator's re-confirmation); sets {@code reviewedAt}. */
    void putReview(ToolReview review);
}
