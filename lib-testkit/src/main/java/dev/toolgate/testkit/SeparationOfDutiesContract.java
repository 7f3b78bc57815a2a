package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.Applied;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.SeparationOfDutiesException;
import dev.toolgate.policy.PermissionMode;
import org.junit.jupiter.api.Test;

/**
 * Separation of duties ({@code requireDistinctApprover}): nobody decides on their own proposal, by
 * token or in the inbox; the inbox says why; policy's own consent is unaffected; off by default.
 */
public interface SeparationOfDutiesContract extends ContractCase {

    private Toolgate strict() {
        return fx().gate(b -> b.requireDistinctApprover(true));
    }

    private Principal secondOperator() {
        return Principal.user("approver2", Notes.READ, Notes.WRITE, Fixture.APPROVER_RULE);
    }

    private Proposal propose(Toolgate gate, Principal who, String id) {
        return (Proposal) gate.call(fx().ctx(who), "notes.add", "{\"id\":\"" + id + "\",\"text\":\"t\"}");
    }

    @Test
    default void theProposerCannotApplyTheirOwnTokenAnotherPrincipalCan() {
        Toolgate gate = strict();
        Proposal proposal = propose(gate, fx().writer, "n1");

        assertThatThrownBy(() -> gate.apply(fx().ctx(fx().writer), proposal.token()))
                .isInstanceOfSatisfying(SeparationOfDutiesException.class, e -> {
                    assertThat(e.code()).isEqualTo("separation_of_duties");
                    assertThat(e.getMessage()).contains("user:writer proposed notes.add").contains("another operator");
                    assertThat(e.toolName()).isEqualTo("notes.add");
                });
        assertThatThrownBy(() -> gate.inspect(fx().ctx(fx().writer), proposal.token()))
                .isInstanceOf(SeparationOfDutiesException.class);
        assertThat(fx().store.calls().find(proposal.callId()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(fx().notes.mutations).hasValue(0);

        Applied applied = gate.apply(fx().ctx(fx().approver), proposal.token());
        assertThat(applied.appliedBy().key()).isEqualTo("user:approver");
        assertThat(fx().notes.snapshot()).containsKey("n1");
    }

    @Test
    default void anOperatorCannotApproveOrEditTheirOwnProposalAndTheInboxSaysWhy() {
        Toolgate gate = strict();
        Proposal own = propose(gate, fx().approver, "n1");
        Proposal others = propose(gate, fx().writer, "n2");
        CallContext operator = fx().ctx(fx().approver);

        assertThat(gate.pending(operator, null)).satisfiesExactlyInAnyOrder(
                p -> {
                    assertThat(p.callId()).isEqualTo(own.callId());
                    assertThat(p.decidable()).isFalse();
                    assertThat(p.blockedReason()).contains("Separation of duties").contains("user:approver proposed");
                },
                p -> {
                    assertThat(p.callId()).isEqualTo(others.callId());
                    assertThat(p.decidable()).isTrue();
                });
        assertThatThrownBy(() -> gate.approve(operator, own.callId(), Approval.once()))
                .isInstanceOf(SeparationOfDutiesException.class);
        assertThatThrownBy(() -> gate.edit(operator, own.callId(), "{\"id\":\"n1\",\"text\":\"changed\"}"))
                .isInstanceOf(SeparationOfDutiesException.class);
        assertThat(fx().store.calls().find(own.callId()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(fx().notes.mutations).hasValue(0);

        assertThat(gate.approve(operator, others.callId(), Approval.once())).isInstanceOf(InboxResult.Approved.class);
        CallContext second = fx().ctx(secondOperator());
        assertThat(gate.pending(second, null)).singleElement().satisfies(p -> assertThat(p.decidable()).isTrue());
        assertThat(gate.approve(second, own.callId(), Approval.once())).isInstanceOf(InboxResult.Approved.class);
        assertThat(fx().notes.snapshot()).containsKeys("n1", "n2");
    }

    @Test
    default void aProposerMayStillWithdrawAndPolicyConsentStillApplies() {
        Toolgate gate = strict();
        Proposal own = propose(gate, fx().approver, "n1");
        assertThat(gate.reject(fx().ctx(fx().approver), own.callId(), "withdrawn")).isInstanceOf(InboxResult.Rejected.class);

        Object auto = gate.call(fx().ctx(fx().writer).withPermissionMode(PermissionMode.AUTO), "notes.add",
                "{\"id\":\"n2\",\"text\":\"t\"}");
        assertThat(auto).isInstanceOfSatisfying(Applied.class, a -> assertThat(a.automatic()).isTrue());
    }

    @Test
    default void withoutTheOptionTheProposerDecidesAsBefore() {
        Toolgate gate = fx().gate();
        Proposal own = propose(gate, fx().approver, "n1");
        assertThat(gate.pending(fx().ctx(fx().approver), null)).singleElement()
                .satisfies(p -> assertThat(p.blockedReason()).isNull());
        assertThat(gate.approve(fx().ctx(fx().approver), own.callId(), Approval.once())).isInstanceOf(InboxResult.Approved.class);
        Proposal mine = propose(gate, fx().writer, "n2");
        assertThat(gate.apply(fx().ctx(fx().writer), mine.token()).status()).isEqualTo("applied");
        Proposal waiting = propose(gate, fx().writer, "n3");
        assertThat(gate.pending(fx().ctx(fx().writer), "session-1")).singleElement().satisfies(p -> {
            assertThat(p.callId()).isEqualTo(waiting.callId());
            assertThat(p.decidable()).as("not an operator").isFalse();
            assertThat(p.blockedReason()).contains("approver rule " + Fixture.APPROVER_RULE);
        });
    }
}
