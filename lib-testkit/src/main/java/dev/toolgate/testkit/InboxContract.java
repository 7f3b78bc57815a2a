package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.Applied;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.PendingLimitException;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ProposalClosedException;
import dev.toolgate.call.SessionKind;
import dev.toolgate.call.UnknownProposalException;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.policy.OverrideScope;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The operator inbox: list, approve once or always, reject, edit, stale decisions, caps and expiries. */
public interface InboxContract extends ContractCase {

    private CallContext operator() {
        return fx().ctx(fx().approver);
    }

    private Proposal propose(CallContext ctx, String id) {
        return (Proposal) fx().gate().call(ctx, "notes.add", "{\"id\":\"" + id + "\",\"text\":\"hello\"}");
    }

    private CallRecord record(String callId) {
        return fx().store.calls().find(callId).orElseThrow();
    }

    @Test
    default void operatorsSeeTheTenantsPendingProposalsWithSummaryPayloadAndDiff() {
        fx().notes.put("n0", "old");
        Proposal add = propose(fx().ctx(fx().writer), "n1");
        Proposal edit = (Proposal) fx().gate().call(fx().ctx(fx().writer).withSession("session-2"), "notes.edit",
                "{\"id\":\"n0\",\"text\":\"new\"}");
        propose(fx().ctx(fx().writer).withTenant("globex"), "n9");

        assertThat(fx().gate().pending(operator(), null)).extracting(PendingProposal::callId)
                .containsExactlyInAnyOrder(add.callId(), edit.callId());
        assertThat(fx().gate().pending(operator(), "session-2")).singleElement().satisfies(p -> {
            assertThat(p.summary()).isEqualTo("Edit note n0");
            assertThat(p.payload().get("text").asString()).isEqualTo("new");
            assertThat(p.diff()).singleElement().satisfies(c -> assertThat(c.before().asString()).isEqualTo("old"));
            assertThat(p.proposer().key()).isEqualTo("user:writer");
        });
        // a member sees only their own proposals of one session
        assertThat(fx().gate().pending(fx().ctx(fx().reader), "session-1")).isEmpty();
        assertThat(fx().gate().pending(fx().ctx(fx().writer), "session-1")).extracting(PendingProposal::callId)
                .containsExactly(add.callId());
    }

    @Test
    default void approveOnceExecutesTheStoredPayloadExactlyOnceAndRecordsWhoAndWhy() {
        Proposal proposal = propose(fx().ctx(fx().writer), "n1");
        InboxResult result = fx().gate().approve(operator(), proposal.callId(), Approval.once("looks right"));

        Applied applied = ((InboxResult.Approved) result).applied();
        assertThat(applied.appliedBy().key()).isEqualTo("user:approver");
        assertThat(fx().notes.snapshot()).containsEntry("n1", "hello");
        CallRecord record = record(proposal.callId());
        assertThat(record.status()).isEqualTo(CallStatus.APPLIED);
        assertThat(record.decidedBy().key()).isEqualTo("user:approver");
        assertThat(record.decisionReason()).isEqualTo("looks right");
        assertThat(record.appliedAt()).isEqualTo(fx().clock.instant());

        assertThat(fx().gate().approve(operator(), proposal.callId(), Approval.once()))
                .isEqualTo(new InboxResult.NotPending(proposal.callId(), CallStatus.APPLIED));
        assertThat(fx().notes.mutations).hasValue(1);
        assertThat(fx().gate().pending(operator(), null)).isEmpty();
    }

    @Test
    default void approveAlwaysAlsoAllowsTheToolFromNowOnAtTheChosenScope() {
        Proposal first = propose(fx().ctx(fx().writer), "n1");
        fx().gate().approve(operator(), first.callId(), Approval.always(OverrideScope.TENANT));

        assertThat(fx().gate().modes(OverrideScope.TENANT, "acme")).singleElement()
                .satisfies(o -> assertThat(o.mode()).isEqualTo(Mode.ALLOW));
        Applied next = (Applied) fx().gate().call(fx().ctx(fx().writer), "notes.add", "{\"id\":\"n2\",\"text\":\"x\"}");
        assertThat(next.automatic()).isTrue();
        assertThat(record(next.callId()).modeSource()).isEqualTo(ModeSource.TENANT_DEFAULT);
        assertThat(record(next.callId()).decisionReason()).isEqualTo("allow_policy");

        Proposal automated = propose(fx().ctx(fx().writer).withTenant("globex").withAutomation("nightly"), "n3");
        fx().gate().approve(fx().ctx(fx().approver).withTenant("globex"), automated.callId(),
                Approval.always(OverrideScope.AUTOMATION));
        assertThat(fx().gate().modes(OverrideScope.AUTOMATION, "nightly")).hasSize(1);
        assertThat(fx().gate().call(fx().ctx(fx().writer).withTenant("globex").withAutomation("nightly"), "notes.add",
                "{\"id\":\"n4\",\"text\":\"x\"}")).isInstanceOf(Applied.class);
        assertThat(fx().gate().call(fx().ctx(fx().writer).withTenant("globex"), "notes.add",
                "{\"id\":\"n5\",\"text\":\"x\"}")).as("only that automation").isInstanceOf(Proposal.class);
    }

    @Test
    default void approveAlwaysAtAScopeTheProposalLacksIsRefusedWithoutChangingAnything() {
        Proposal proposal = propose(fx().ctx(fx().writer), "n1");
        assertThatThrownBy(() -> fx().gate().approve(operator(), proposal.callId(), Approval.always(OverrideScope.AUTOMATION)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("automation");
        assertThat(record(proposal.callId()).status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(fx().gate().modes(OverrideScope.AUTOMATION, "nightly")).isEmpty();
    }

    @Test
    default void rejectionIsRecordedAndFinal() {
        Proposal proposal = propose(fx().ctx(fx().writer), "n1");
        assertThat(fx().gate().reject(operator(), proposal.callId(), "not today"))
                .isEqualTo(new InboxResult.Rejected(proposal.callId(), "not today"));

        CallRecord record = record(proposal.callId());
        assertThat(record.status()).isEqualTo(CallStatus.REJECTED);
        assertThat(record.decidedBy().key()).isEqualTo("user:approver");
        assertThat(record.decisionReason()).isEqualTo("not today");
        assertThatThrownBy(() -> fx().gate().apply(fx().ctx(fx().writer), proposal.token()))
                .isInstanceOf(ProposalClosedException.class).hasMessageContaining("rejected");
        assertThat(fx().gate().approve(operator(), proposal.callId(), Approval.once()))
                .isEqualTo(new InboxResult.NotPending(proposal.callId(), CallStatus.REJECTED));
        assertThat(fx().gate().reject(operator(), proposal.callId(), "again"))
                .isEqualTo(new InboxResult.NotPending(proposal.callId(), CallStatus.REJECTED));
        assertThat(fx().notes.mutations).hasValue(0);
    }

    @Test
    default void approvingAnExpiredProposalIsASafeNoOpThatNeverRevivesIt() {
        Proposal proposal = propose(fx().ctx(fx().writer), "n1");
        fx().clock.advance(Duration.ofMinutes(11));

        assertThat(fx().gate().approve(operator(), proposal.callId(), Approval.once()))
                .isEqualTo(new InboxResult.NotPending(proposal.callId(), CallStatus.EXPIRED));
        fx().gate().sweep().expired();
        assertThat(fx().gate().approve(operator(), proposal.callId(), Approval.always(OverrideScope.TENANT)))
                .isEqualTo(new InboxResult.NotPending(proposal.callId(), CallStatus.EXPIRED));
        assertThat(fx().gate().modes(OverrideScope.TENANT, "acme")).isEmpty();
        assertThat(fx().notes.mutations).hasValue(0);
    }

    @Test
    default void decidingNeedsTheApproverRule() {
        Proposal proposal = propose(fx().ctx(fx().writer), "n1");
        CallContext member = fx().ctx(fx().writer);
        assertThatThrownBy(() -> fx().gate().approve(member, proposal.callId(), Approval.once()))
                .isInstanceOfSatisfying(ForbiddenException.class, e -> {
                    assertThat(e.missingRules()).containsExactly(Fixture.APPROVER_RULE);
                    assertThat(e).hasMessageContaining("missing permission: toolgate.approvals.manage");
                });
        assertThatThrownBy(() -> fx().gate().reject(member, proposal.callId(), "no")).isInstanceOf(ForbiddenException.class);
        assertThatThrownBy(() -> fx().gate().edit(member, proposal.callId(), "{}")).isInstanceOf(ForbiddenException.class);
        assertThat(record(proposal.callId()).status()).isEqualTo(CallStatus.PROPOSED);
    }

    @Test
    default void anotherTenantsProposalDoesNotExistForAnOperator() {
        Proposal proposal = propose(fx().ctx(fx().writer).withTenant("globex"), "n1");
        assertThatThrownBy(() -> fx().gate().approve(operator(), proposal.callId(), Approval.once()))
                .isInstanceOf(UnknownProposalException.class);
        assertThat(record(proposal.callId()).status()).isEqualTo(CallStatus.PROPOSED);
    }

    @Test
    default void aSessionHoldsAtMostTheConfiguredNumberOfPendingProposals() {
        Toolgate gate = fx().gate(b -> b.maxPendingPerSession(3));
        CallContext ctx = fx().ctx(fx().writer);
        for (int i = 0; i < 3; i++) {
            gate.call(ctx, "notes.add", "{\"id\":\"n" + i + "\",\"text\":\"x\"}");
        }
        int records = fx().records().size();

        assertThatThrownBy(() -> gate.call(ctx, "notes.add", "{\"id\":\"n9\",\"text\":\"x\"}"))
                .isInstanceOfSatisfying(PendingLimitException.class, e -> assertThat(e.code()).isEqualTo("pending_limit"));
        assertThat(fx().records()).hasSize(records);
        assertThat(gate.call(ctx.withSession("session-2"), "notes.add", "{\"id\":\"n9\",\"text\":\"x\"}"))
                .isInstanceOf(Proposal.class);
        gate.reject(operator(), gate.pending(operator(), "session-1").get(0).callId(), "make room");
        assertThat(gate.call(ctx, "notes.add", "{\"id\":\"n9\",\"text\":\"x\"}")).isInstanceOf(Proposal.class);
    }

    /**
     * Without a budget to meter it, a proposal is not counted against the session's cap before its
     * dry-run: the store's insert refuses it, and a refused proposal still records nothing.
     */
    @Test
    default void aFullSessionRefusesAnUnmeteredProposalAndRecordsNothing() {
        Toolgate gate = fx().gate(b -> b.maxPendingPerSession(2).budget(dev.toolgate.budget.ToolBudget.unlimited()));
        CallContext ctx = fx().ctx(fx().writer);
        Proposal first = (Proposal) gate.call(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"x\"}");
        gate.call(ctx, "notes.add", "{\"id\":\"n2\",\"text\":\"x\"}");
        int records = fx().records().size();

        assertThatThrownBy(() -> gate.call(ctx, "notes.add", "{\"id\":\"n3\",\"text\":\"x\"}"))
                .isInstanceOf(PendingLimitException.class);
        assertThatThrownBy(() -> gate.propose(ctx, "notes.add", "{\"id\":\"n3\",\"text\":\"x\"}"))
                .isInstanceOf(PendingLimitException.class);
        assertThat(fx().records()).hasSize(records);
        assertThat(fx().notes.mutations).hasValue(0);

        gate.apply(ctx, first.token());
        assertThat(gate.call(ctx, "notes.add", "{\"id\":\"n3\",\"text\":\"x\"}")).isInstanceOf(Proposal.class);
        assertThat(fx().store.calls().countPending("session-1")).isEqualTo(2);
    }

    @Test
    default void expiryDependsOnTheSessionKind() {
        Proposal interactive = propose(fx().ctx(fx().writer), "n1");
        Proposal unattended = propose(fx().ctx(fx().writer).withSessionKind(SessionKind.UNATTENDED), "n2");

        assertThat(interactive.expiresAt()).isEqualTo(fx().clock.instant().plus(Duration.ofMinutes(10)));
        assertThat(unattended.expiresAt()).isEqualTo(fx().clock.instant().plus(Duration.ofHours(24)));
        fx().clock.advance(Duration.ofHours(1));
        assertThat(fx().gate().pending(operator(), null)).extracting(PendingProposal::callId)
                .containsExactly(unattended.callId());
    }

    @Test
    default void editingCreatesANewProposalThatSupersedesTheOldOne() {
        Proposal original = propose(fx().ctx(fx().writer), "n1");
        InboxResult result = fx().gate().edit(operator(), original.callId(), "{\"id\":\"n1\",\"text\":\"edited by ops\"}");

        Proposal replacement = (Proposal) ((InboxResult.Edited) result).replacement();
        assertThat(replacement.callId()).isNotEqualTo(original.callId());
        assertThat(replacement.token()).isNotEqualTo(original.token());
        assertThat(replacement.payload().get("text").asString()).isEqualTo("edited by ops");
        assertThat(fx().notes.dryRuns).hasValue(2);
        CallRecord old = record(original.callId());
        assertThat(old.status()).isEqualTo(CallStatus.SUPERSEDED);
        assertThat(old.supersededBy()).isEqualTo(replacement.callId());
        assertThat(record(replacement.callId()).supersedes()).isEqualTo(original.callId());
        assertThatThrownBy(() -> fx().gate().apply(fx().ctx(fx().writer), original.token()))
                .isInstanceOf(ProposalClosedException.class);

        InboxResult.Approved approved = (InboxResult.Approved) fx().gate().approve(operator(), replacement.callId(), Approval.once());
        assertThat(approved.applied().supersedes()).isEqualTo(original.callId());
        assertThat(fx().notes.snapshot()).containsEntry("n1", "edited by ops");
        assertThat(fx().gate().outcomeOf(original.callId()).orElseThrow().id()).isEqualTo(replacement.callId());
        assertThat(fx().gate().outcomeOf(original.callId()).orElseThrow().status()).isEqualTo(CallStatus.APPLIED);
    }

    @Test
    default void anInvalidEditChangesNothing() {
        Proposal original = propose(fx().ctx(fx().writer), "n1");
        assertThatThrownBy(() -> fx().gate().edit(operator(), original.callId(), "{\"id\":\"n1\"}"))
                .isInstanceOf(dev.toolgate.tool.ToolValidationException.class);
        assertThat(record(original.callId()).status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(fx().records()).hasSize(1);
    }

    @Test
    default void anEditTheDryRunRefusesLeavesTheOriginalPending() {
        Proposal original = propose(fx().ctx(fx().writer), "n1");
        assertThatThrownBy(() -> fx().gate().edit(operator(), original.callId(), "{\"id\":\"n1\",\"text\":\"forbidden\"}"))
                .isInstanceOf(dev.toolgate.tool.ToolValidationException.class);
        CallRecord kept = record(original.callId());
        assertThat(kept.status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(kept.supersededBy()).isNull();
        assertThat(fx().records()).extracting(CallRecord::status).containsExactlyInAnyOrder(CallStatus.PROPOSED, CallStatus.INVALID);
        assertThat(fx().records()).filteredOn(r -> r.status() == CallStatus.INVALID).extracting(CallRecord::supersedes)
                .containsOnlyNulls();
        assertThat(fx().gate().apply(fx().ctx(fx().writer), original.token()).status()).isEqualTo("applied");
    }
}
