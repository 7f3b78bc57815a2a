package dev.toolgate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.tool.Effect;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The whole disposition table, and the invariants no row may break. */
class DispositionsTest {

    record Row(Effect effect, Mode mode, ModeSource source, boolean drifted, PermissionMode permission) {
        ModeResolution resolution() {
            return new ModeResolution(mode, source, drifted);
        }
    }

    static List<Row> allRows() {
        List<Row> rows = new ArrayList<>();
        for (Effect effect : Effect.values()) {
            for (Mode mode : Mode.values()) {
                for (ModeSource source : ModeSource.values()) {
                    for (boolean drifted : new boolean[] {false, true}) {
                        if (drifted && mode == Mode.ALLOW) {
                            continue; // the cascade never yields a drifted ALLOW: drift turns it into REQUIRE_APPROVAL
                        }
                        for (PermissionMode permission : PermissionMode.values()) {
                            rows.add(new Row(effect, mode, source, drifted, permission));
                        }
                    }
                }
            }
        }
        return rows;
    }

    @Test
    void theTableHoldsItsInvariantsOnEveryRow() {
        List<Row> rows = allRows();
        assertThat(rows).hasSize(3 * (3 * 3 * 2 - 3) * 2);
        for (Row row : rows) {
            Disposition d = Dispositions.decide(row.effect(), row.resolution(), row.permission());
            String why = row.toString();
            if (row.mode() == Mode.DENY) {
                assertThat(d).as(why).isEqualTo(Disposition.DENY);
            }
            if (row.effect() == Effect.DESTRUCTIVE) {
                assertThat(d).as(why).isIn(Disposition.DENY, Disposition.PROPOSE_AND_WAIT);
            }
            if (row.effect().mutates()) {
                assertThat(d).as(why).isNotEqualTo(Disposition.RUN);
            }
            if (row.drifted() || (row.source() != ModeSource.INFERRED_DEFAULT && row.mode() == Mode.REQUIRE_APPROVAL)) {
                assertThat(d).as(why).isIn(Disposition.DENY, Disposition.PROPOSE_AND_WAIT);
            }
        }
    }

    @Test
    void theTableRowByRow() {
        ModeResolution inferredAllow = new ModeResolution(Mode.ALLOW, ModeSource.INFERRED_DEFAULT, false);
        ModeResolution inferredApproval = new ModeResolution(Mode.REQUIRE_APPROVAL, ModeSource.INFERRED_DEFAULT, false);
        ModeResolution tenantAllow = new ModeResolution(Mode.ALLOW, ModeSource.TENANT_DEFAULT, false);
        ModeResolution tenantApproval = new ModeResolution(Mode.REQUIRE_APPROVAL, ModeSource.TENANT_DEFAULT, false);
        ModeResolution driftedApproval = new ModeResolution(Mode.REQUIRE_APPROVAL, ModeSource.INFERRED_DEFAULT, true);

        for (PermissionMode p : PermissionMode.values()) {
            assertThat(Dispositions.decide(Effect.READ, inferredAllow, p)).isEqualTo(Disposition.RUN);
            assertThat(Dispositions.decide(Effect.READ, tenantApproval, p)).isEqualTo(Disposition.PROPOSE_AND_WAIT);
            assertThat(Dispositions.decide(Effect.MUTATE, tenantAllow, p)).isEqualTo(Disposition.PROPOSE_AND_APPLY);
            assertThat(Dispositions.decide(Effect.MUTATE, tenantApproval, p)).isEqualTo(Disposition.PROPOSE_AND_WAIT);
            assertThat(Dispositions.decide(Effect.MUTATE, driftedApproval, p)).isEqualTo(Disposition.PROPOSE_AND_WAIT);
            assertThat(Dispositions.decide(Effect.DESTRUCTIVE, tenantAllow, p)).isEqualTo(Disposition.PROPOSE_AND_WAIT);
            assertThat(Dispositions.decide(Effect.DESTRUCTIVE, inferredApproval, p)).isEqualTo(Disposition.PROPOSE_AND_WAIT);
        }
        assertThat(Dispositions.decide(Effect.MUTATE, inferredApproval, PermissionMode.APPROVE)).isEqualTo(Disposition.PROPOSE_AND_WAIT);
        assertThat(Dispositions.decide(Effect.MUTATE, inferredApproval, PermissionMode.AUTO)).isEqualTo(Disposition.PROPOSE_AND_APPLY);
    }

    @Test
    void theInferredDefaults() {
        assertThat(Dispositions.inferred(Effect.READ)).isEqualTo(Mode.ALLOW);
        assertThat(Dispositions.inferred(Effect.MUTATE)).isEqualTo(Mode.REQUIRE_APPROVAL);
        assertThat(Dispositions.inferred(Effect.DESTRUCTIVE)).isEqualTo(Mode.REQUIRE_APPROVAL);
    }
}
