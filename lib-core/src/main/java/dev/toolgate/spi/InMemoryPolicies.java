package dev.toolgate.spi;

import dev.toolgate.policy.ModeOverride;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PolicyView;
import dev.toolgate.policy.ToolReview;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The policy part of {@link InMemoryStore}: mode overrides per scope and tool reviews per tenant, in memory. */
final class InMemoryPolicies implements PolicyStore {

    private final Clock clock;
    private final Map<String, ModeOverride> overrides = new ConcurrentHashMap<>();
    private final Map<String, ToolReview> reviews = new ConcurrentHashMap<>();

    InMemoryPolicies(Clock clock) {
        this.clock = clock;
    }

    @Override
    public PolicyView view(String toolName, String tenantId, String automationId) {
        return new PolicyView(
                automationId == null ? Optional.empty()
                        : Optional.ofNullable(overrides.get(key(OverrideScope.AUTOMATION, automationId, toolName))),
                tenantId == null ? Optional.empty()
                        : Optional.ofNullable(overrides.get(key(OverrideScope.TENANT, tenantId, toolName))),
                Optional.ofNullable(reviews.get(reviewKey(tenantId == null ? "" : tenantId, toolName))));
    }

    @Override
    public void putOverride(ModeOverride override) {
        overrides.put(key(override.scope(), override.scopeId(), override.toolName()),
                new ModeOverride(override.scope(), override.scopeId(), override.toolName(), override.mode(),
                        override.setBy(), clock.instant()));
    }

    @Override
    public boolean removeOverride(OverrideScope scope, String scopeId, String toolName) {
        return overrides.remove(key(scope, scopeId, toolName)) != null;
    }

    @Override
    public List<ModeOverride> overrides(OverrideScope scope, String scopeId) {
        return overrides.values().stream().filter(o -> o.scope() == scope && o.scopeId().equals(scopeId))
                .sorted(Comparator.comparing(ModeOverride::toolName)).toList();
    }

    @Override
    public ToolReview reviewIfAbsent(ToolReview review) {
        return reviews.computeIfAbsent(reviewKey(review.tenantId(), review.toolName()), k -> stamped(review));
    }

    @Override
    public void putReview(ToolReview review) {
        reviews.put(reviewKey(review.tenantId(), review.toolName()), stamped(review));
    }

    private ToolReview stamped(ToolReview review) {
        return new ToolReview(review.tenantId(), review.toolName(), review.fingerprint(), review.reviewedBy(),
                clock.instant());
    }

    private static String key(OverrideScope scope, String scopeId, String toolName) {
        return scope + "\u0000" + scopeId + "\u0000" + toolName;
    }

    private static String reviewKey(String tenantId, String toolName) {
        return tenantId + "\u0000" + toolName;
    }
}
