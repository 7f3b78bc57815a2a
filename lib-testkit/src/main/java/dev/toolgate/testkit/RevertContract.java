package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.conversation.Decision;
import dev.toolgate.execution.RollbackResult;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.RevertResult;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.spi.CallStore;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What a revert leaves in the audit trail: the call it undid reads {@code reverted} (never
 * {@code applied} any more) and names its revert; the revert is its own {@code applied} call naming the
 * call it undid. A second rollback reverts nothing; a conversation not yet told of a change undone
 * before it was told learns it as reverted; an in-doubt revert an operator resolves as applied marks
 * the call it undid.
 */
public interface RevertContract extends ContractCase {

    private Toolgate gate() {
        return fx().gate(b -> b.program("notes.journal", ExecutionContract.JOURNAL).executionTimeout(Duration.ofSeconds(5)));
    }

    private CallContext writer() {
        return fx().ctx(fx().writer);
    }

    private CallContext operator() {
        return fx().ctx(fx().approver);
    }

    @Test
    default void aRolledBackStepReadsRevertedNamingItsRevertAndNeverReadsAppliedAgain() {
        Toolgate gate = gate();
        String run = gate.executions().start(writer().withPermissionMode(PermissionMode.AUTO), "notes.journal", "{}")
                .executionId();
        List<String> adds = gate.executions().steps(run).stream().filter(s -> s.toolName().equals("notes.add"))
                .map(CallRecord::id).toList();
        assertThat(adds).hasSize(2);

        RollbackResult first = gate.executions().rollback(operator(), run);
        assertThat(first.reverted()).isEqualTo(2);
        for (String id : adds) {
            CallRecord undone = gate.findCall(id).orElseThrow();
            assertThat(undone.status()).as("the undone call").isEqualTo(CallStatus.REVERTED);
            assertThat(undone.status().wireName()).isEqualTo("reverted");
            CallRecord revert = gate.findCall(undone.revertedBy()).orElseThrow();
            assertThat(revert.status()).as("the revert itself ran").isEqualTo(CallStatus.APPLIED);
            assertThat(revert.reverts()).isEqualTo(id);
            assertThat(revert.revertedBy()).isNull();
            assertThat(revert.summary()).startsWith("Revert: ");
        }
        assertThat(gate.findCalls(CallQuery.latest(100).status(CallStatus.REVERTED))).extracting(CallRecord::id)
                .containsExactlyInAnyOrderElementsOf(adds);
        assertThat(gate.findCalls(CallQuery.latest(100).status(CallStatus.APPLIED)))
                .as("applied: the reverts only, never a call that was undone")
                .allSatisfy(r -> assertThat(r.reverts()).isIn(adds));

        RollbackResult second = gate.executions().rollback(operator(), run);
        assertThat(second.reverted()).as("a second rollback reverts nothing").isZero();
        assertThat(second.reverts()).extracting(RevertResult::outcome)
                .containsExactly(RevertResult.Outcome.ALREADY_REVERTED, RevertResult.Outcome.ALREADY_REVERTED);
        assertThat(fx().notes.reverts).hasValue(2);
        assertThat(gate.findCalls(CallQuery.latest(100).status(CallStatus.REVERTED))).hasSize(2);
    }

    @Test
    default void aConversationToldOfAChangeOnlyAfterItWasUndoneLearnsItWasReverted() {
        Toolgate gate = gate();
        String run = gate.executions().start(writer(), "notes.journal", "{}").executionId();
        String added = gate.executions().find(run).orElseThrow().pendingCallId();
        assertThat(gate.approve(operator(), added, Approval.once())).isInstanceOf(InboxResult.Resumed.class);
        String next = gate.executions().find(run).orElseThrow().pendingCallId();
        fx().clock.advance(Duration.ofSeconds(1));

        RollbackResult rollback = gate.executions().rollback(operator(), run);
        assertThat(rollback.status()).isEqualTo(ExecutionStatus.ROLLED_BACK);

        List<Decision> told = gate.conversations().takeDecisions(writer()).decisions();
        assertThat(told).extracting(Decision::proposalId).containsExactly(added, next);
        Decision reverted = told.get(0);
        assertThat(reverted.outcome()).isEqualTo(Decision.Outcome.REVERTED);
        assertThat(reverted.outcome().wireName()).isEqualTo("reverted");
        assertThat(reverted.result().asString()).as("what it returned when it ran").isEqualTo("added n1");
        assertThat(reverted.toJson(null).get("next").asString()).contains("undone");
        assertThat(told.get(1).outcome()).isEqualTo(Decision.Outcome.DECLINED);
        assertThat(gate.conversations().takeDecisions(writer()).isEmpty()).as("told once").isTrue();
    }

    @Test
    default void aChangeAppliedAndToldBeforeItWasUndoneIsNotToldAgainAndItsTokenStaysUsed() {
        Toolgate gate = gate();
        Proposal proposal = (Proposal) gate.call(writer(), "notes.add", "{\"id\":\"t1\",\"text\":\"x\"}");
        gate.apply(writer(), proposal.token());
        assertThat(gate.conversations().takeDecisions(writer()).decisions()).extracting(Decision::outcome)
                .containsExactly(Decision.Outcome.APPLIED);
        CallRecord revert = revertInDoubt(gate, proposal.callId());
        assertThat(gate.resolve(operator(), revert.id(), true, "checked: the note is gone"))
                .isEqualTo(new InboxResult.Resolved(revert.id(), CallStatus.APPLIED));

        CallRecord undone = gate.findCall(proposal.callId()).orElseThrow();
        assertThat(undone.status()).as("an in-doubt revert resolved as applied undid its call").isEqualTo(CallStatus.REVERTED);
        assertThat(undone.revertedBy()).isEqualTo(revert.id());
        assertThat(gate.conversations().takeDecisions(writer()).isEmpty()).as("told once, when it was applied").isTrue();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> gate.apply(writer(), proposal.token()))
                .isInstanceOf(dev.toolgate.call.TokenAlreadyUsedException.class);
    }

    @Test
    default void anInDoubtRevertResolvedAsNotAppliedLeavesItsCallApplied() {
        Toolgate gate = gate();
        Proposal proposal = (Proposal) gate.call(writer(), "notes.add", "{\"id\":\"t2\",\"text\":\"x\"}");
        gate.apply(writer(), proposal.token());
        CallRecord revert = revertInDoubt(gate, proposal.callId());
        gate.resolve(operator(), revert.id(), false, "the note is still there");

        CallRecord kept = gate.findCall(proposal.callId()).orElseThrow();
        assertThat(kept.status()).isEqualTo(CallStatus.APPLIED);
        assertThat(kept.revertedBy()).isNull();
    }

    /** The revert of {@code callId} as an instance that died while the tool's revert ran leaves it: interrupted. */
    private CallRecord revertInDoubt(Toolgate gate, String callId) {
        CallRecord applied = fx().store.calls().find(callId).orElseThrow();
        CallRecord draft = CallRecord.builder().id(UUID.randomUUID().toString()).toolName(applied.toolName())
                .effect(applied.effect()).principal(applied.principal()).tenantId(applied.tenantId())
                .sessionId(applied.sessionId()).transport("java").status(CallStatus.APPLYING).mode(applied.mode())
                .modeSource(applied.modeSource()).argumentsHash(applied.argumentsHash()).summary("Revert: " + applied.summary())
                .appliedBy(applied.principal()).decisionReason("rollback").reverts(applied.id()).build();
        CallStore.ClaimResult claim = fx().store.calls().claimRevert(draft, Duration.ofSeconds(35));
        assertThat(claim.status()).isEqualTo(CallStore.ClaimResult.Status.CLAIMED);
        fx().clock.advance(Duration.ofMinutes(1));
        gate.sweep();
        assertThat(fx().store.calls().find(draft.id()).orElseThrow().status()).isEqualTo(CallStatus.INTERRUPTED);
        assertThat(fx().store.calls().find(callId).orElseThrow().status()).as("in doubt: not yet reverted")
                .isEqualTo(CallStatus.APPLIED);
        return fx().store.calls().find(draft.id()).orElseThrow();
    }
}
