package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Denied;
import dev.toolgate.call.DuplicateCallException;
import dev.toolgate.call.Executed;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.PolicyDeniedException;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.Turn;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.tool.ToolValidationException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Policy: the mode cascade and its sources, DENY, AUTO mode, drift, the duplicate-call guard. */
public interface PolicyContract extends ContractCase {

    private CallContext operator() {
        return fx().ctx(fx().approver);
    }

    private CallRecord recordOf(CallResult result) {
        return fx().store.calls().find(result.callId()).orElseThrow();
    }

    @Test
    default void theCascadeRecordsEachModeWithItsSource() {
        Toolgate gate = fx().gate();
        CallContext ctx = fx().ctx(fx().writer).withAutomation("nightly");

        CallRecord inferred = recordOf(gate.call(ctx, "notes.list", "{}"));
        assertThat(inferred.mode()).isEqualTo(Mode.ALLOW);
        assertThat(inferred.modeSource()).isEqualTo(ModeSource.INFERRED_DEFAULT);

        gate.setMode(operator(), OverrideScope.TENANT, "notes.list", Mode.REQUIRE_APPROVAL);
        CallResult tenant = gate.call(ctx, "notes.list", "{}");
        assertThat(tenant).isInstanceOf(Proposal.class);
        assertThat(recordOf(tenant).modeSource()).isEqualTo(ModeSource.TENANT_DEFAULT);

        gate.setMode(operator().withAutomation("nightly"), OverrideScope.AUTOMATION, "notes.list", Mode.ALLOW);
        CallResult automation = gate.call(ctx, "notes.list", "{}");
        assertThat(automation).isInstanceOf(Executed.class);
        assertThat(recordOf(automation).mode()).isEqualTo(Mode.ALLOW);
        assertThat(recordOf(automation).modeSource()).isEqualTo(ModeSource.AUTOMATION_OVERRIDE);

        // another automation of the same tenant falls back to the tenant default
        assertThat(gate.call(ctx.withAutomation("other"), "notes.list", "{}")).isInstanceOf(Proposal.class);
        assertThat(gate.modes(OverrideScope.TENANT, "acme")).singleElement()
                .satisfies(o -> assertThat(o.setBy().key()).isEqualTo("user:approver"));
        assertThat(gate.clearMode(operator(), OverrideScope.TENANT, "notes.list")).isTrue();
        assertThat(gate.call(ctx.withAutomation("other"), "notes.list", "{}")).isInstanceOf(Executed.class);
    }

    @Test
    default void denyRecordsADeniedCallAndReturnsAStructuredRefusal() {
        Toolgate gate = fx().gate();
        gate.setMode(operator(), OverrideScope.TENANT, "notes.add", Mode.DENY);

        CallResult result = gate.call(fx().ctx(fx().writer), "notes.add", "{\"id\":\"n\",\"text\":\"x\"}");
        Denied denied = (Denied) result;
        assertThat(denied.reason()).isEqualTo("policy");
        assertThat(denied.mode().source()).isEqualTo(ModeSource.TENANT_DEFAULT);
        assertThat(denied.toJson().get("status").asString()).isEqualTo("denied");
        CallRecord record = recordOf(denied);
        assertThat(record.status()).isEqualTo(CallStatus.DENIED);
        assertThat(record.decisionReason()).isEqualTo("policy");
        assertThat(fx().notes.dryRuns).hasValue(0);
        assertThatThrownBy(() -> gate.propose(fx().ctx(fx().writer), "notes.add", "{\"id\":\"n\",\"text\":\"x\"}"))
                .isInstanceOf(PolicyDeniedException.class);
    }

    @Test
    default void autoModeAppliesAMutationInOneVisibleStep() {
        fx().notes.put("n1", "before");
        Applied applied = (Applied) fx().gate().call(fx().ctx(fx().writer).withPermissionMode(PermissionMode.AUTO),
                "notes.edit", "{\"id\":\"n1\",\"text\":\"after\"}");

        assertThat(applied.automatic()).isTrue();
        assertThat(applied.summary()).isEqualTo("Edit note n1");
        assertThat(applied.result().asString()).isEqualTo("edited n1");
        assertThat(applied.diff()).singleElement().satisfies(c -> assertThat(c.after().asString()).isEqualTo("after"));
        assertThat(applied.toJson().get("status").asString()).isEqualTo("applied");
        assertThat(fx().notes.snapshot()).containsEntry("n1", "after");
        CallRecord record = recordOf(applied);
        assertThat(record.status()).isEqualTo(CallStatus.APPLIED);
        assertThat(record.decisionReason()).isEqualTo("auto_mode");
        assertThat(record.payloadJson()).isNotNull();
    }

    @Test
    default void destructiveNeverAutoAppliesEvenUnderAnAllowOverride() {
        Toolgate gate = fx().gate();
        gate.setMode(operator(), OverrideScope.TENANT, "notes.purge", Mode.ALLOW);
        fx().notes.put("n1", "keep");
        for (PermissionMode permission : PermissionMode.values()) {
            CallResult result = gate.call(fx().ctx(fx().writer).withPermissionMode(permission), "notes.purge", "{\"id\":\"n1\"}");
            assertThat(result).as(permission.name()).isInstanceOf(Proposal.class);
        }
        assertThat(fx().notes.snapshot()).containsKey("n1");
        assertThat(fx().notes.mutations).hasValue(0);
    }

    @Test
    default void anOperatorsRequireApprovalIsNotWaivedByAutoMode() {
        Toolgate gate = fx().gate();
        gate.setMode(operator(), OverrideScope.TENANT, "notes.add", Mode.REQUIRE_APPROVAL);
        CallResult result = gate.call(fx().ctx(fx().writer).withPermissionMode(PermissionMode.AUTO), "notes.add",
                "{\"id\":\"n\",\"text\":\"x\"}");
        assertThat(result).isInstanceOf(Proposal.class);
        assertThat(fx().notes.mutations).hasValue(0);
    }

    @Test
    default void settingModesNeedsTheApproverRule() {
        assertThatThrownBy(() -> fx().gate().setMode(fx().ctx(fx().writer), OverrideScope.TENANT, "notes.add", Mode.ALLOW))
                .isInstanceOfSatisfying(ForbiddenException.class,
                        e -> assertThat(e.missingRules()).containsExactly(Fixture.APPROVER_RULE));
        assertThat(fx().gate().modes(OverrideScope.TENANT, "acme")).isEmpty();
    }

    /** A tool from a "dynamic source" whose schema can change under us. */
    record LookupV1(String query) {
    }

    record LookupV2(String query, Optional<Integer> limit) {
    }

    private static ToolProvider dynamic(Class<?> input, String description) {
        return ToolProvider.of("remote", Tool.builder("lookup", input).description(description).effect(Effect.READ)
                .requires(Notes.READ).dynamic(true).execute((in, ctx) -> "looked up").build());
    }

    private static void replace(Toolgate gate, ToolProvider provider) {
        gate.registry().unregisterPlugin("remote");
        gate.registry().register(provider);
    }

    @Test
    default void driftDowngradesAllowUntilAnOperatorReconfirms() {
        Toolgate gate = fx().gate(b -> b.provider(dynamic(LookupV1.class, "Look things up")));
        CallContext ctx = fx().ctx(fx().reader);
        assertThat(gate.call(ctx, "remote.lookup", "{\"query\":\"a\"}")).isInstanceOf(Executed.class);

        replace(gate, dynamic(LookupV1.class, "Look things up, now with a better description"));
        assertThat(gate.call(ctx, "remote.lookup", "{\"query\":\"a\"}")).as("description-only change").isInstanceOf(Executed.class);

        replace(gate, dynamic(LookupV2.class, "Look things up"));
        CallResult drifted = gate.call(ctx, "remote.lookup", "{\"query\":\"a\"}");
        assertThat(drifted).isInstanceOf(Proposal.class);
        assertThat(((Proposal) drifted).mode().drifted()).isTrue();
        assertThat(((Proposal) drifted).mode().mode()).isEqualTo(Mode.REQUIRE_APPROVAL);
        assertThat(gate.catalog(ctx).stream().filter(e -> e.descriptor().name().equals("remote.lookup")).findFirst()
                .orElseThrow().mode().drifted()).isTrue();

        gate.confirmSchema(operator(), "remote.lookup");
        assertThat(gate.call(ctx, "remote.lookup", "{\"query\":\"b\"}")).isInstanceOf(Executed.class);
    }

    @Test
    default void driftNeverUpgradesADeniedTool() {
        Toolgate gate = fx().gate(b -> b.provider(dynamic(LookupV1.class, "Look things up")));
        gate.setMode(operator(), OverrideScope.TENANT, "remote.lookup", Mode.DENY);
        replace(gate, dynamic(LookupV2.class, "Look things up"));

        CallResult result = gate.call(fx().ctx(fx().reader), "remote.lookup", "{\"query\":\"a\"}");
        assertThat(result).isInstanceOf(Denied.class);
        assertThat(((Denied) result).mode().drifted()).isTrue();
    }

    @Test
    default void anIdenticalSuccessfulCallInOneTurnIsFlaggedButAFailedAttemptIsNot() {
        Toolgate gate = fx().gate();
        Turn turn = Turn.start();
        CallContext ctx = fx().ctx(fx().writer).withTurn(turn);

        assertThatThrownBy(() -> gate.call(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"forbidden\"}"))
                .isInstanceOf(ToolValidationException.class);
        assertThatThrownBy(() -> gate.call(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"forbidden\"}"))
                .as("a failed attempt is not remembered").isInstanceOf(ToolValidationException.class);
        assertThat(gate.call(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"fine\"}")).isInstanceOf(Proposal.class);
        assertThatThrownBy(() -> gate.call(ctx, "notes.add", "{\"text\":\"fine\",\"id\":\"n1\"}"))
                .isInstanceOfSatisfying(DuplicateCallException.class,
                        e -> assertThat(e.feedback().kind().wireName()).isEqualTo("duplicate"));
        assertThat(gate.call(ctx, "notes.add", "{\"id\":\"n2\",\"text\":\"fine\"}")).isInstanceOf(Proposal.class);
        assertThat(gate.call(ctx.withTurn(Turn.start()), "notes.add", "{\"id\":\"n1\",\"text\":\"fine\"}"))
                .isInstanceOf(Proposal.class);
        gate.call(ctx, "notes.list", "{}");
        assertThatThrownBy(() -> gate.call(ctx, "notes.list", "{}")).isInstanceOf(DuplicateCallException.class);
    }

    @Test
    default void theSameCallRunningAtOnceInOneTurnMakesOneProposal() throws Exception {
        Toolgate gate = fx().gate();
        Turn turn = Turn.start();
        CallContext ctx = fx().ctx(fx().writer).withTurn(turn);
        java.util.List<Object> outcomes = Together.run(12, thread -> {
            try {
                return gate.call(ctx, "notes.add", "{\"id\":\"same\",\"text\":\"once\"}");
            } catch (DuplicateCallException e) {
                return e;
            }
        });
        assertThat(outcomes).filteredOn(Proposal.class::isInstance).hasSize(1);
        assertThat(outcomes).filteredOn(DuplicateCallException.class::isInstance).hasSize(11);
        assertThat(fx().records()).filteredOn(r -> r.toolName().equals("notes.add")).hasSize(1);
        assertThat(fx().notes.dryRuns).as("one dry-run").hasValue(1);
        String made = outcomes.stream().filter(Proposal.class::isInstance).map(p -> ((Proposal) p).callId()).findFirst().orElseThrow();
        assertThat(turn.proposed(made)).as("the turn knows its proposal").isTrue();
        assertThat(Turn.start().proposed(made)).isFalse();
    }

    @Test
    default void aToolWithNoArgumentsAcceptsAnEmptyCall() {
        Toolgate gate = fx().gate(b -> b.provider(ToolProvider.of("misc", Tool.builder("ping", NoInput.class)
                .description("ping").effect(Effect.READ).execute((in, ctx) -> "pong").build())));
        assertThat(((Executed) gate.call(fx().ctx(fx().reader), "misc.ping", (String) null)).result().asString()).isEqualTo("pong");
    }
}
