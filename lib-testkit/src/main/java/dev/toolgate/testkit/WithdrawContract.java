package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.conversation.Decision;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ProposalClosedException;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.call.UnknownProposalException;
import dev.toolgate.Toolgate;
import dev.toolgate.audit.ExecutionStatus;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A proposer withdraws its own pending proposal ({@link dev.toolgate.Toolgate#withdraw}): what an MCP
 * client's {@code tasks/cancel} and a user's "no" in the client do. Nobody else can withdraw it, it
 * is final, and the conversation reads it as declined by the user.
 */
public interface WithdrawContract extends ContractCase {

    private Proposal propose(CallContext ctx, String id) {
        return (Proposal) fx().gate().call(ctx, "notes.add", "{\"id\":\"" + id + "\",\"text\":\"hello\"}");
    }

    private CallRecord record(String callId) {
        return fx().store.calls().find(callId).orElseThrow();
    }

    @Test
    default void theProposerWithdrawsItsOwnPendingProposalWithoutTheApproverRule() {
        CallContext writer = fx().ctx(fx().writer);
        Proposal proposal = propose(writer, "n1");

        assertThat(fx().gate().withdraw(writer, proposal.callId(), "cancelled by the client"))
                .isEqualTo(new InboxResult.Rejected(proposal.callId(), "cancelled by the client"));

        CallRecord record = record(proposal.callId());
        assertThat(record.status()).isEqualTo(CallStatus.REJECTED);
        assertThat(record.decidedBy().key()).isEqualTo("user:writer");
        assertThat(record.decisionReason()).isEqualTo("cancelled by the client");
        // final: the token no longer applies, an operator cannot revive it, nothing ran
        assertThatThrownBy(() -> fx().gate().apply(writer, proposal.token())).isInstanceOf(ProposalClosedException.class);
        assertThat(fx().gate().approve(fx().ctx(fx().approver), proposal.callId(), Approval.once()))
                .isEqualTo(new InboxResult.NotPending(proposal.callId(), CallStatus.REJECTED));
        assertThat(fx().gate().withdraw(writer, proposal.callId(), "again"))
                .isEqualTo(new InboxResult.NotPending(proposal.callId(), CallStatus.REJECTED));
        assertThat(fx().notes.mutations).hasValue(0);
        // the conversation reads it as the user's own decline, as often as it asks
        for (int i = 0; i < 2; i++) {
            Decision decision = fx().gate().conversations().decisionOn(record, PrincipalRef.of(fx().writer)).orElseThrow();
            assertThat(decision.outcome()).isEqualTo(Decision.Outcome.DECLINED);
            assertThat(decision.decidedBy()).isEqualTo(Decision.Decider.USER);
            assertThat(decision.reason()).isEqualTo("cancelled by the client");
        }
    }

    @Test
    default void anotherPrincipalsProposalAnswersAsUnknownAndStaysPending() {
        Proposal proposal = propose(fx().ctx(fx().writer), "n1");
        // not even an operator withdraws someone else's proposal (operators reject it, on the record)
        for (CallContext other : new CallContext[] {fx().ctx(fx().approver), fx().ctx(fx().reader),
                fx().ctx(fx().writer).withTenant("globex")}) {
            assertThatThrownBy(() -> fx().gate().withdraw(other, proposal.callId(), "mine now"))
                    .as("%s", other.principal().key()).isInstanceOf(UnknownProposalException.class);
        }
        assertThatThrownBy(() -> fx().gate().withdraw(fx().ctx(fx().writer), "no-such-call", null))
                .isInstanceOf(UnknownProposalException.class);
        assertThat(record(proposal.callId()).status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(fx().gate().conversations().decisionOn(record(proposal.callId()), PrincipalRef.of(fx().writer))).isEmpty();
    }

    @Test
    default void aDecidedOrExpiredProposalIsASafeNoOp() {
        CallContext writer = fx().ctx(fx().writer);
        Proposal applied = propose(writer, "n1");
        fx().gate().apply(writer, applied.token());
        assertThat(fx().gate().withdraw(writer, applied.callId(), "too late"))
                .isEqualTo(new InboxResult.NotPending(applied.callId(), CallStatus.APPLIED));
        assertThat(record(applied.callId()).status()).isEqualTo(CallStatus.APPLIED);

        Proposal expired = propose(writer, "n2");
        fx().clock.advance(Duration.ofMinutes(11));
        assertThat(fx().gate().withdraw(writer, expired.callId(), "too late"))
                .isEqualTo(new InboxResult.NotPending(expired.callId(), CallStatus.EXPIRED));
        assertThat(fx().notes.mutations).hasValue(1);
    }

    @Test
    default void theRunsPrincipalWithdrawsItsPendingStepWhichEndsTheRunAndUndoesNothing() {
        Toolgate gate = fx().gate(b -> b.program("notes.journal", ExecutionContract.JOURNAL));
        CallContext writer = fx().ctx(fx().writer);
        String id = gate.executions().start(writer, "notes.journal", "{}").executionId();
        PendingProposal step = gate.pending(fx().ctx(fx().approver), null).get(0);
        assertThatThrownBy(() -> gate.withdraw(fx().ctx(fx().reader), step.callId(), "not yours"))
                .as("another principal").isInstanceOf(RuntimeException.class);
        assertThat(gate.executions().find(id).orElseThrow().status()).isEqualTo(ExecutionStatus.PAUSED);

        assertThat(gate.withdraw(writer, step.callId(), "cancelled by the client"))
                .isEqualTo(new InboxResult.Rejected(step.callId(), "cancelled by the client"));
        assertThat(gate.executions().find(id).orElseThrow().status()).isEqualTo(ExecutionStatus.REJECTED);
        assertThat(record(step.callId()).decidedBy().key()).isEqualTo("user:writer");
        assertThat(gate.withdraw(writer, step.callId(), "again")).isInstanceOf(InboxResult.NotPending.class);
        assertThat(fx().notes.mutations).hasValue(0);
    }
}
