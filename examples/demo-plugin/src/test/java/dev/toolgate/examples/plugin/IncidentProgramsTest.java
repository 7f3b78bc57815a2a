package dev.toolgate.examples.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.execution.RollbackResult;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.RevertResult;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.spi.InMemoryStore;
import java.util.List;
import org.junit.jupiter.api.Test;

class IncidentProgramsTest {

    private final DemoData data = new DemoData();
    private final Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
            .provider(new IncidentPlugin(data)).provider(new CatalogPlugin(data))
            .programs(new IncidentPrograms()).build();
    private final CallContext carol = CallContext.of(Principal.user("carol", IncidentPlugin.READ, IncidentPlugin.MANAGE,
            "catalog.system.read")).withTenant("acme");
    private final CallContext alice = CallContext.of(Principal.user("alice", Principal.ALL)).withTenant("acme");

    @Test
    void escalatePausesAtTheIncidentReplaysAfterApprovalAndRollsBackNewestFirst() {
        gate.setMode(alice, OverrideScope.TENANT, "incident.update", Mode.ALLOW);
        ExecutionOutcome started = gate.executions().start(carol, "incident.escalate",
                "{\"systemId\":\"billing\",\"title\":\"Card payments failing\",\"severity\":\"HIGH\"}");
        assertThat(started).isInstanceOfSatisfying(ExecutionOutcome.Paused.class, p -> assertThat(p.pending())
                .singleElement().satisfies(a -> {
                    assertThat(a.seq()).isEqualTo(2);
                    assertThat(a.summary()).isEqualTo("Open HIGH incident \"Card payments failing\" on Billing service");
                }));
        assertThat(data.incidents()).hasSize(1);

        ExecutionOutcome done = gate.executions().approve(alice, started.executionId());
        assertThat(done).isInstanceOfSatisfying(ExecutionOutcome.Completed.class, c -> {
            assertThat(c.result().get("owner").asString()).isEqualTo("payments-team");
            assertThat(c.result().get("severity").asString()).isEqualTo("CRITICAL");
            assertThat(c.logs()).hasSize(2);
        });
        String incident = done instanceof ExecutionOutcome.Completed c ? c.result().get("incident").asString() : null;
        assertThat(data.incident(incident)).get().satisfies(i -> assertThat(i.severity()).isEqualTo(Severity.CRITICAL));
        List<CallRecord> steps = gate.executions().steps(started.executionId());
        assertThat(steps).extracting(CallRecord::status).containsExactly(CallStatus.EXECUTED, CallStatus.APPLIED, CallStatus.APPLIED);

        RollbackResult rollback = gate.executions().rollback(alice, started.executionId());
        assertThat(rollback.reverts()).extracting(RevertResult::callId).containsExactly(steps.get(2).id(), steps.get(1).id());
        assertThat(rollback.reverts()).extracting(RevertResult::outcome).containsOnly(RevertResult.Outcome.REVERTED);
        assertThat(rollback.status()).isEqualTo(ExecutionStatus.ROLLED_BACK);
        assertThat(data.incident(incident)).isEmpty();
        assertThat(data.incidents()).hasSize(1);
    }

    @Test
    void undoingAnUpdateNeverOverwritesALaterChange() {
        String id = data.incidents().get(0).id();
        Incident updated = data.replace(data.incident(id).orElseThrow().with("t1", Severity.LOW, IncidentStatus.OPEN));
        data.replace(updated.with("t2", Severity.LOW, IncidentStatus.OPEN));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> data.undoUpdate(updated))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("changed since");
    }
}
