package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.conversation.Decision;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.call.Applied;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.StaleProposalException;
import dev.toolgate.policy.PermissionMode;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What is approved is what runs: a proposal whose preview was made from a state that no longer holds is
 * refused as {@code stale} on every path that runs it (a token, the inbox, AUTO mode, a durable run's
 * step), nothing runs, and the record, the operator and the conversation are told what changed. Of two
 * proposals made from the same state, one runs at a time; the other ends stale.
 */
public interface StaleContract extends ContractCase {

    private CallContext writer() {
        return fx().ctx(fx().writer);
    }

    private CallContext operator() {
        return fx().ctx(fx().approver);
    }

    private Proposal edit(Toolgate gate, String text) {
        return (Proposal) gate.call(writer(), "notes.edit", "{\"id\":\"n0\",\"text\":\"" + text + "\"}");
    }

    private CallRecord record(String callId) {
        return fx().store.calls().find(callId).orElseThrow();
    }

    @Test
    default void aProposalWhoseObjectChangedSinceItsPreviewIsRefusedOnApplyAndNothingRuns() {
        Toolgate gate = fx().gate();
        fx().notes.put("n0", "old");
        Proposal first = edit(gate, "first");
        Proposal second = edit(gate, "second");
        assertThat(record(second.callId()).precondition()).as("recorded without extra code: the diff's before").isNotNull();

        gate.apply(writer(), first.token());
        assertThat(fx().notes.snapshot()).containsEntry("n0", "first");

        assertThatThrownBy(() -> gate.apply(writer(), second.token()))
                .isInstanceOfSatisfying(StaleProposalException.class, e -> {
                    assertThat(e.code()).isEqualTo("stale");
                    assertThat(e.preconditionChanged()).isTrue();
                    assertThat(e.changes()).singleElement().satisfies(c -> {
                        assertThat(c.path()).isEqualTo("/before/text");
                        assertThat(c.before().asString()).isEqualTo("old");
                        assertThat(c.after().asString()).isEqualTo("first");
                    });
                    assertThat(e.getMessage()).contains("/before/text").contains("\"old\" -> \"first\"")
                            .contains("Propose again from the current state");
                });
        assertThat(fx().notes.snapshot()).as("the stale payload did not run").containsEntry("n0", "first");
        assertThat(fx().notes.mutations).hasValue(1);
        CallRecord stale = record(second.callId());
        assertThat(stale.status()).isEqualTo(CallStatus.STALE);
        assertThat(stale.error()).contains("\"old\" -> \"first\"");
        assertThatThrownBy(() -> gate.apply(writer(), second.token())).as("and it stays refused")
                .isInstanceOf(dev.toolgate.call.ProposeApplyException.class);
        assertThat(fx().notes.mutations).hasValue(1);
    }

    @Test
    default void anOperatorApprovingAStaleCardIsToldWhatChangedAndTheConversationToo() {
        Toolgate gate = fx().gate();
        fx().notes.put("n0", "old");
        Proposal rename = edit(gate, "renamed");
        Proposal other = edit(gate, "other");
        assertThat(gate.freshness(operator(), other.callId()).stale()).isFalse();
        assertThat(gate.approve(operator(), rename.callId(), Approval.once())).isInstanceOf(InboxResult.Approved.class);
        // the card shows it before anyone clicks, and looking changes nothing
        var freshness = gate.freshness(operator(), other.callId());
        assertThat(freshness.stale()).isTrue();
        assertThat(freshness.changes()).singleElement().satisfies(c -> assertThat(c.after().asString()).isEqualTo("renamed"));
        assertThat(gate.freshness(writer(), other.callId()).stale()).as("the proposer sees it too").isTrue();
        assertThat(record(other.callId()).status()).isEqualTo(CallStatus.PROPOSED);
        assertThatThrownBy(() -> gate.freshness(fx().ctx(fx().reader), other.callId()))
                .isInstanceOf(dev.toolgate.call.UnknownProposalException.class);
        assertThat(gate.freshness(operator(), rename.callId()).stale()).as("decided: nothing to check").isFalse();

        InboxResult result = gate.approve(operator(), other.callId(), Approval.once());

        assertThat(result).isInstanceOfSatisfying(InboxResult.Stale.class, s -> {
            assertThat(s.callId()).isEqualTo(other.callId());
            assertThat(s.message()).contains("\"old\" -> \"renamed\"");
            assertThat(s.changes()).hasSize(1);
        });
        assertThat(fx().notes.snapshot()).containsEntry("n0", "renamed");
        assertThat(gate.pending(operator(), null)).isEmpty();
        var told = gate.conversations().takeDecisions(writer()).decisions();
        assertThat(told).extracting(Decision::outcome).containsExactly(Decision.Outcome.APPLIED, Decision.Outcome.STALE);
        assertThat(told.get(1).reason()).contains("\"old\" -> \"renamed\"");
    }

    @Test
    default void aProposalMadeFromTheSameStateAsOneApplyingNowEndsStale() throws Exception {
        Toolgate gate = fx().gate();
        fx().notes.put("h1", "x");
        Proposal first = (Proposal) gate.call(writer(), "notes.hold", "{\"id\":\"h1\"}");
        Proposal second = (Proposal) gate.call(writer(), "notes.hold", "{\"id\":\"h1\"}");
        assertThat(record(first.callId()).precondition()).isEqualTo(record(second.callId()).precondition());

        CompletableFuture<Applied> applying = CompletableFuture.supplyAsync(() -> gate.apply(writer(), first.token()));
        try {
            assertThat(fx().notes.held.tryAcquire(10, TimeUnit.SECONDS)).as("the first is running").isTrue();
            assertThatThrownBy(() -> gate.apply(writer(), second.token()))
                    .isInstanceOfSatisfying(StaleProposalException.class,
                            e -> assertThat(e.getMessage()).contains("another change made from the same state"));
            assertThat(record(second.callId()).status()).isEqualTo(CallStatus.STALE);
        } finally {
            fx().notes.release.release();
        }
        assertThat(applying.get(20, TimeUnit.SECONDS).status()).isEqualTo("applied");
        assertThat(fx().notes.mutations).as("only the first ran").hasValue(1);
    }

    @Test
    default void autoModeRefusesAChangeFromAStateAnotherChangeIsApplyingTo() throws Exception {
        Toolgate gate = fx().gate();
        fx().notes.put("h2", "x");
        CallContext auto = writer().withPermissionMode(PermissionMode.AUTO);
        CompletableFuture<Object> first = CompletableFuture.supplyAsync(() -> gate.call(auto, "notes.hold", "{\"id\":\"h2\"}"));
        try {
            assertThat(fx().notes.held.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> gate.call(auto.withSession("session-2"), "notes.hold", "{\"id\":\"h2\"}"))
                    .isInstanceOf(StaleProposalException.class);
        } finally {
            fx().notes.release.release();
        }
        assertThat(first.get(20, TimeUnit.SECONDS)).isInstanceOf(Applied.class);
        assertThat(fx().notes.mutations).hasValue(1);
        assertThat(fx().records()).filteredOn(r -> r.toolName().equals("notes.hold")).extracting(CallRecord::status)
                .containsExactlyInAnyOrder(CallStatus.APPLIED, CallStatus.STALE);
    }

    @Test
    default void aDurableRunsStepApprovedAfterItsObjectChangedEndsTheRunAndRunsNothing() {
        Toolgate gate = fx().gate(b -> b.program("notes.retitle", run -> run.call("notes.edit", Map.of("id", "n0", "text", "from run"))));
        fx().notes.put("n0", "old");
        String id = gate.executions().start(writer(), "notes.retitle", "{}").executionId();
        assertThat(gate.executions().find(id).orElseThrow().status()).isEqualTo(ExecutionStatus.PAUSED);
        fx().notes.put("n0", "changed elsewhere");

        assertThat(gate.executions().approve(operator(), id)).as("the approver is told why, with what changed")
                .isInstanceOfSatisfying(ExecutionOutcome.Failed.class, f -> assertThat(f.error()).contains("stale")
                        .contains("\"old\" -> \"changed elsewhere\""));

        var run = gate.executions().find(id).orElseThrow();
        assertThat(run.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(run.error()).contains("stale").contains("\"old\" -> \"changed elsewhere\"");
        assertThat(fx().notes.snapshot()).containsEntry("n0", "changed elsewhere");
        assertThat(fx().notes.mutations).hasValue(0);
        assertThat(gate.executions().steps(id)).extracting(CallRecord::status).containsExactly(CallStatus.STALE);
    }

    @Test
    default void aDryRunThatNowRefusesTheStoredPayloadMakesTheProposalStale() {
        Toolgate gate = fx().gate();
        fx().notes.put("n0", "old");
        Proposal edit = edit(gate, "new");
        fx().notes.remove("n0"); // the note goes away: the dry-run refuses an edit of a missing note

        assertThatThrownBy(() -> gate.apply(writer(), edit.token()))
                .isInstanceOfSatisfying(StaleProposalException.class,
                        e -> assertThat(e.getMessage()).contains("refuses the stored payload").contains("no note 'n0'"));
        assertThat(fx().notes.mutations).hasValue(0);
        assertThat(fx().notes.snapshot()).doesNotContainKey("n0");
    }

    @Test
    default void aProposalWithoutAPreconditionIsNotRecheckedAndAFreshOneRuns() {
        Toolgate gate = fx().gate();
        fx().notes.put("n0", "old");
        Proposal add = (Proposal) gate.call(writer(), "notes.add", "{\"id\":\"a1\",\"text\":\"x\"}");
        assertThat(record(add.callId()).precondition()).as("a create previews no state").isNull();
        Proposal edit = edit(gate, "fresh");
        int dryRuns = fx().notes.dryRuns.get();

        gate.apply(writer(), add.token());
        assertThat(fx().notes.dryRuns).as("no precondition, no second dry-run").hasValue(dryRuns);
        gate.apply(writer(), edit.token());
        assertThat(fx().notes.dryRuns).as("checked once more just before it ran").hasValue(dryRuns + 1);
        assertThat(fx().notes.snapshot()).containsEntry("n0", "fresh").containsEntry("a1", "x");
    }
}
