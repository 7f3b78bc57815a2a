package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeOverride;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PolicyView;
import dev.toolgate.policy.ToolReview;
import org.junit.jupiter.api.Test;

/**
 * The store contract on the policy store: overrides per scope and tool reviews.
 * It is one link of the chain of superclasses of {@link StoreContractTest}, so extending that
 * one class runs every part.
 */
abstract class StorePolicyContract extends StoreQueryContract {

    // ------------------------------------------------------------------------------ policy store

    @Test
    void overridesAreStoredPerScopeAndReadTogether() {
        policies.putOverride(new ModeOverride(OverrideScope.TENANT, "acme", "notes.add", Mode.ALLOW, OPS, null));
        policies.putOverride(new ModeOverride(OverrideScope.AUTOMATION, "nightly", "notes.add", Mode.DENY, OPS, null));
        policies.putOverride(new ModeOverride(OverrideScope.TENANT, "acme", "notes.add", Mode.REQUIRE_APPROVAL, ANN, null));
        policies.putOverride(new ModeOverride(OverrideScope.TENANT, "acme", "notes.edit", Mode.DENY, OPS, null));

        PolicyView view = policies.view("notes.add", "acme", "nightly");
        assertThat(view.automationOverride()).get().satisfies(o -> assertThat(o.mode()).isEqualTo(Mode.DENY));
        assertThat(view.tenantOverride()).get().satisfies(o -> {
            assertThat(o.mode()).isEqualTo(Mode.REQUIRE_APPROVAL);
            assertThat(o.setBy()).isEqualTo(ANN);
            assertThat(o.setAt()).isEqualTo(clock.instant());
        });
        assertThat(policies.view("notes.add", "globex", null)).isEqualTo(PolicyView.EMPTY);
        assertThat(policies.view("notes.add", null, null)).isEqualTo(PolicyView.EMPTY);
        assertThat(policies.overrides(OverrideScope.TENANT, "acme")).extracting(ModeOverride::toolName)
                .containsExactly("notes.add", "notes.edit");
        assertThat(policies.removeOverride(OverrideScope.TENANT, "acme", "notes.add")).isTrue();
        assertThat(policies.removeOverride(OverrideScope.TENANT, "acme", "notes.add")).isFalse();
        assertThat(policies.view("notes.add", "acme", null).tenantOverride()).isEmpty();
    }

    @Test
    void aFirstSeenReviewIsKeptAndAnOperatorsReviewReplacesIt() {
        ToolReview first = policies.reviewIfAbsent(new ToolReview("acme", "remote.lookup", "f1", ANN, null));
        assertThat(first.reviewedAt()).isEqualTo(clock.instant());
        assertThat(policies.reviewIfAbsent(new ToolReview("acme", "remote.lookup", "f2", ANN, null)).fingerprint()).isEqualTo("f1");
        assertThat(policies.view("remote.lookup", "acme", null).review()).get()
                .satisfies(r -> assertThat(r.fingerprint()).isEqualTo("f1"));

        policies.putReview(new ToolReview("acme", "remote.lookup", "f2", OPS, null));
        assertThat(policies.view("remote.lookup", "acme", null).review()).get().satisfies(r -> {
            assertThat(r.fingerprint()).isEqualTo("f2");
            assertThat(r.reviewedBy()).isEqualTo(OPS);
        });
        policies.reviewIfAbsent(new ToolReview("", "remote.lookup", "g1", ANN, null));
        assertThat(policies.view("remote.lookup", null, null).review()).get()
                .satisfies(r -> assertThat(r.fingerprint()).isEqualTo("g1"));
    }
}
