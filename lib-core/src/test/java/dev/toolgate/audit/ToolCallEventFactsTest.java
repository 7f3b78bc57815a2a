package dev.toolgate.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.GateSettings;
import dev.toolgate.call.Proposal;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The facts listeners get beyond the outcome: session, mode and its source, the proposal time of a decision, budget refusals. */
class ToolCallEventFactsTest {

    private static final class StepClock extends Clock {
        volatile Instant now = Instant.parse("2026-11-27T05:00:00Z");

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    private final List<ToolCallEvent> events = new CopyOnWriteArrayList<>();
    private final List<BudgetRefusal> refusals = new CopyOnWriteArrayList<>();
    private final ToolCallListener listener = new ToolCallListener() {
        @Override
        public void onCall(ToolCallEvent event) {
            events.add(event);
        }

        @Override
        public void onBudgetRefused(BudgetRefusal refusal) {
            refusals.add(refusal);
        }
    };
    private final StepClock clock = new StepClock();
    private final Principal user = Principal.user("ann");
    private final Principal operator = Principal.user("ops", GateSettings.DEFAULT_APPROVER_RULE);
    private final CallContext ann = CallContext.of(user).withTenant("acme").withSession("s1").withTransport("mcp");
    private final CallContext ops = CallContext.of(operator).withTenant("acme").withTransport("console");

    private Toolgate gate(ToolBudget budget) {
        Tool<NoInput, ?> read = Tool.builder("read", NoInput.class).description("Reads").effect(Effect.READ)
                .execute((in, ctx) -> "r").build();
        Tool<NoInput, ?> write = Tool.builder("write", NoInput.class).description("Writes").effect(Effect.MUTATE)
                .dryRun((in, ctx) -> Preview.of("write")).execute((in, ctx) -> "w").build();
        return Toolgate.builder().discoverComponents(false).discoverTools(false).sweepInterval(Duration.ZERO)
                .store(new InMemoryStore(clock)).budget(budget).listener(listener).tools("n", read, write).build();
    }

    @Test
    void aDirectCallCarriesSessionAndModeButNoProposalTime() {
        try (Toolgate gate = gate(ToolBudget.unlimited())) {
            gate.call(ann, "n.read", "{}");
        }
        ToolCallEvent e = events.get(0);
        assertThat(e.status()).isEqualTo(CallStatus.EXECUTED);
        assertThat(e.sessionId()).isEqualTo("s1");
        assertThat(e.mode()).isEqualTo(Mode.ALLOW);
        assertThat(e.modeSource()).isEqualTo(ModeSource.INFERRED_DEFAULT);
        assertThat(e.proposedAt()).isNull();
    }

    @Test
    void decisionsOnAWaitingProposalCarryItsCreationTimeAndAPolicysApplyDoesNot() {
        try (Toolgate gate = gate(ToolBudget.unlimited())) {
            Instant proposedAt = clock.now;
            Proposal byToken = (Proposal) gate.call(ann, "n.write", "{}");
            Proposal approved = (Proposal) gate.call(ann.withSession("s2"), "n.write", "{}");
            Proposal rejected = (Proposal) gate.call(ann.withSession("s3"), "n.write", "{}");
            clock.now = clock.now.plusSeconds(30);
            gate.apply(ann, byToken.token());
            gate.approve(ops, approved.callId(), Approval.once());
            gate.reject(ops, rejected.callId(), "no");
            assertThat(events).filteredOn(e -> e.status() == CallStatus.PROPOSED)
                    .allSatisfy(e -> assertThat(e.proposedAt()).isNull());
            assertThat(events).filteredOn(e -> e.status() == CallStatus.APPLIED || e.status() == CallStatus.REJECTED)
                    .hasSize(3).allSatisfy(e -> assertThat(e.proposedAt()).isEqualTo(proposedAt));

            events.clear();
            gate.setMode(ops, OverrideScope.TENANT, "n.write", Mode.ALLOW);
            gate.call(ann, "n.write", "{}");
            assertThat(events).extracting(ToolCallEvent::status).containsExactly(CallStatus.PROPOSED, CallStatus.APPLIED);
            assertThat(events).allSatisfy(e -> {
                assertThat(e.proposedAt()).as("nobody waited").isNull();
                assertThat(e.modeSource()).isEqualTo(ModeSource.TENANT_DEFAULT);
            });
        }
    }

    @Test
    void aBudgetRefusalReachesListenersForACallAndForAnApply() {
        try (Toolgate gate = gate(ToolBudget.perPrincipal(1, Duration.ofHours(1)))) {
            Proposal proposal = (Proposal) gate.call(ann, "n.write", "{}");
            assertThatThrownBy(() -> gate.call(ann, "n.read", "{}")).isInstanceOf(BudgetExceededException.class);
            assertThatThrownBy(() -> gate.apply(ann, proposal.token())).isInstanceOf(BudgetExceededException.class);
        }
        assertThat(refusals).extracting(BudgetRefusal::toolName).containsExactly("n.read", "n.write");
        assertThat(refusals).allSatisfy(r -> {
            assertThat(r.principal()).isEqualTo(PrincipalRef.of(user));
            assertThat(r.transport()).isEqualTo("mcp");
            assertThat(r.sessionId()).isEqualTo("s1");
        });
        assertThat(refusals.get(0).mode()).isEqualTo(Mode.ALLOW);
        assertThat(refusals.get(1).mode()).isEqualTo(Mode.REQUIRE_APPROVAL);
        assertThat(events).extracting(ToolCallEvent::status).as("nothing else was recorded").containsExactly(CallStatus.PROPOSED);
    }

    @Test
    void theOldConstructorStillWorks() {
        ToolCallEvent e = new ToolCallEvent("c", "t", Effect.READ, CallStatus.EXECUTED, PrincipalRef.of(user), null, "java",
                Duration.ZERO);
        assertThat(e.mode()).isNull();
        assertThat(e.proposedAt()).isNull();
    }
}
