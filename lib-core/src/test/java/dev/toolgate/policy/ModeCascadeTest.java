package dev.toolgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.tool.Effect;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ModeCascadeTest {

    private static final PrincipalRef OPS = new PrincipalRef(PrincipalKind.USER, "ops");

    private static Optional<ModeOverride> override(OverrideScope scope, Mode mode) {
        return Optional.of(new ModeOverride(scope, "id", "t.x", mode, OPS, null));
    }

    private static Optional<ToolReview> review(String fingerprint) {
        return Optional.of(new ToolReview("", "t.x", fingerprint, OPS, null));
    }

    @Test
    void automationBeatsTenantBeatsInferred() {
        PolicyView both = new PolicyView(override(OverrideScope.AUTOMATION, Mode.DENY), override(OverrideScope.TENANT, Mode.ALLOW),
                Optional.empty());
        assertThat(ModeCascade.resolve(Effect.READ, both, "f"))
                .isEqualTo(new ModeResolution(Mode.DENY, ModeSource.AUTOMATION_OVERRIDE, false));
        PolicyView tenant = new PolicyView(Optional.empty(), override(OverrideScope.TENANT, Mode.ALLOW), Optional.empty());
        assertThat(ModeCascade.resolve(Effect.MUTATE, tenant, "f"))
                .isEqualTo(new ModeResolution(Mode.ALLOW, ModeSource.TENANT_DEFAULT, false));
        assertThat(ModeCascade.resolve(Effect.DESTRUCTIVE, PolicyView.EMPTY, "f"))
                .isEqualTo(new ModeResolution(Mode.REQUIRE_APPROVAL, ModeSource.INFERRED_DEFAULT, false));
    }

    @Test
    void driftDowngradesAllowAndNeverUpgrades() {
        for (Mode mode : Mode.values()) {
            PolicyView view = new PolicyView(Optional.empty(), override(OverrideScope.TENANT, mode), review("old"));
            ModeResolution resolved = ModeCascade.resolve(Effect.READ, view, "new");
            assertThat(resolved.drifted()).isTrue();
            assertThat(resolved.mode()).isEqualTo(mode == Mode.ALLOW ? Mode.REQUIRE_APPROVAL : mode);
            assertThat(resolved.explicit()).isTrue();
        }
        PolicyView inferred = new PolicyView(Optional.empty(), Optional.empty(), review("old"));
        assertThat(ModeCascade.resolve(Effect.READ, inferred, "new").mode()).isEqualTo(Mode.REQUIRE_APPROVAL);
        assertThat(ModeCascade.resolve(Effect.READ, inferred, "old"))
                .isEqualTo(new ModeResolution(Mode.ALLOW, ModeSource.INFERRED_DEFAULT, false));
    }
}
