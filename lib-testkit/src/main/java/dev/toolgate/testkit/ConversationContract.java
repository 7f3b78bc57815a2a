package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.conversation.Decision;
import dev.toolgate.conversation.DecisionNotes;
import dev.toolgate.conversation.Repeat;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.policy.PermissionMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a conversation learns of its proposals ({@code Toolgate.conversations()}): every decision (applied
 * with its result, failed, declined with its reason, expired, edited) reaches the conversation that
 * made the proposal exactly once, without a token; undecided proposals and policy's own applies produce
 * nothing; a released delivery is told again; a model's repeat of a pending or declined proposal is
 * recognised.
 */
public interface ConversationContract extends ContractCase {

    private CallContext conversation() {
        return fx().ctx(fx().writer);
    }

    private CallContext operator() {
        return fx().ctx(fx().approver);
    }

    private Proposal add(CallContext ctx, String id, String text) {
        return (Proposal) fx().gate().call(ctx, "notes.add", "{\"id\":\"" + id + "\",\"text\":\"" + text + "\"}");
    }

    private DecisionNotes take(CallContext ctx) {
        return fx().gate().conversations().takeDecisions(ctx);
    }

    @Test
    default void eachDecisionReachesTheConversationOnceWithWhoDecidedTheReasonAndTheResult() {
        Toolgate gate = fx().gate();
        Proposal approved = add(conversation(), "a1", "first");
        Proposal declined = add(conversation(), "a2", "second");
        Proposal applied = add(conversation(), "a3", "third");
        Proposal waiting = add(conversation(), "a4", "fourth");
        assertThat(take(conversation()).isEmpty()).as("nothing decided yet").isTrue();

        gate.approve(operator(), approved.callId(), Approval.once());
        fx().clock.advance(Duration.ofSeconds(1));
        gate.reject(operator(), declined.callId(), "a duplicate of a0");
        fx().clock.advance(Duration.ofSeconds(1));
        gate.apply(conversation(), applied.token());

        DecisionNotes notes = take(conversation());
        assertThat(notes.decisions()).extracting(Decision::proposalId)
                .containsExactly(approved.callId(), declined.callId(), applied.callId());
        Decision first = notes.decisions().get(0);
        assertThat(first.outcome()).isEqualTo(Decision.Outcome.APPLIED);
        assertThat(first.decidedBy()).isEqualTo(Decision.Decider.OPERATOR);
        assertThat(first.result().asString()).isEqualTo("added a1");
        assertThat(first.summary()).isEqualTo("Add note a1");
        Decision second = notes.decisions().get(1);
        assertThat(second.outcome()).isEqualTo(Decision.Outcome.DECLINED);
        assertThat(second.reason()).isEqualTo("a duplicate of a0");
        assertThat(second.result()).isNull();
        assertThat(notes.decisions().get(2).decidedBy()).as("the user applied their own token").isEqualTo(Decision.Decider.USER);
        String text = notes.text(name -> name.replace(".", "__"));
        assertThat(text).startsWith(DecisionNotes.HEADER).contains("\"tool\":\"notes__add\"").contains("a duplicate of a0")
                .doesNotContain("propose:").doesNotContain(waiting.callId()).doesNotContain("user:approver");
        for (Proposal p : List.of(approved, declined, applied)) {
            assertThat(text).doesNotContain(p.token());
        }

        assertThat(take(conversation()).isEmpty()).as("told once").isTrue();
        assertThat(gate.findCall(waiting.callId()).orElseThrow().status().wireName()).isEqualTo("proposed");
    }

    @Test
    default void anExpiryIsToldWithoutTheSweeperAndAFailureWithItsRedactedError() {
        Toolgate gate = fx().gate();
        Proposal lapsing = add(conversation(), "e1", "late");
        Proposal failing = add(conversation(), "e2", "explode now");
        assertThatThrownBy(() -> gate.approve(operator(), failing.callId(), Approval.once()))
                .isInstanceOf(ToolExecutionException.class);
        fx().clock.advance(Duration.ofHours(2));

        List<Decision> told = take(conversation()).decisions();

        assertThat(told).extracting(Decision::proposalId).containsExactly(failing.callId(), lapsing.callId());
        assertThat(told.get(0).outcome()).isEqualTo(Decision.Outcome.FAILED);
        assertThat(told.get(0).error()).contains("refused").doesNotContain("hunter2");
        assertThat(told.get(1).outcome()).isEqualTo(Decision.Outcome.EXPIRED);
        assertThat(told.get(1).decidedBy()).isEqualTo(Decision.Decider.NOBODY);
        gate.sweep(); // the sweeper now marks it expired: not told again
        assertThat(take(conversation()).isEmpty()).isTrue();
    }

    @Test
    default void anEditIsToldWithItsReplacementWhichIsToldWhenDecided() {
        Toolgate gate = fx().gate();
        Proposal original = add(conversation(), "d1", "draft");
        InboxResult edited = gate.edit(operator(), original.callId(), "{\"id\":\"d1\",\"text\":\"edited\"}");
        String replacement = ((Proposal) ((InboxResult.Edited) edited).replacement()).callId();

        Decision edit = take(conversation()).decisions().get(0);
        assertThat(edit.outcome()).isEqualTo(Decision.Outcome.EDITED);
        assertThat(edit.replacedBy()).isEqualTo(replacement);

        gate.approve(fx().ctx(fx().admin), replacement, Approval.once("looks right"));
        Decision applied = take(conversation()).decisions().get(0);
        assertThat(applied.proposalId()).as("the edited proposal, made by the operator, still answers this conversation")
                .isEqualTo(replacement);
        assertThat(applied.outcome()).isEqualTo(Decision.Outcome.APPLIED);
        assertThat(applied.decidedBy()).isEqualTo(Decision.Decider.OPERATOR);
        assertThat(applied.reason()).isEqualTo("looks right");
        assertThat(fx().notes.snapshot()).containsEntry("d1", "edited");
    }

    @Test
    default void readsPolicysOwnAppliesAndOtherConversationsAreNeverTold() {
        Toolgate gate = fx().gate();
        gate.call(conversation(), "notes.list", "{}");
        gate.call(conversation().withPermissionMode(PermissionMode.AUTO), "notes.add", "{\"id\":\"auto\",\"text\":\"x\"}");
        Proposal elsewhere = add(conversation().withSession("session-2"), "s2", "other");
        Proposal otherTenant = add(fx().ctx(fx().writer).withTenant("globex"), "g1", "other");
        Proposal admins = add(fx().ctx(fx().admin), "ad", "other");
        for (Proposal p : List.of(elsewhere, otherTenant, admins)) {
            gate.reject(fx().ctx(fx().admin).withTenant(p == otherTenant ? "globex" : "acme"), p.callId(), "no");
        }

        assertThat(take(conversation()).isEmpty()).isTrue();
        assertThat(take(CallContext.of(fx().writer).withTenant("acme")).isEmpty()).as("no session, no conversation").isTrue();
        assertThat(take(conversation().withSession("session-2")).decisions()).extracting(Decision::proposalId)
                .containsExactly(elsewhere.callId());
    }

    @Test
    default void aReleasedDeliveryIsToldAgainOnTheNextTurn() {
        Proposal p = add(conversation(), "r1", "x");
        fx().gate().reject(operator(), p.callId(), "not now");

        DecisionNotes failedTurn = take(conversation());
        assertThat(failedTurn.decisions()).hasSize(1);
        assertThat(take(conversation()).isEmpty()).as("taken by the turn in flight").isTrue();
        failedTurn.release();
        failedTurn.release();

        DecisionNotes next = take(conversation());
        assertThat(next.decisions()).extracting(Decision::proposalId).containsExactly(p.callId());
        next.release();
        assertThat(take(conversation()).decisions()).hasSize(1);
        assertThat(take(conversation()).isEmpty()).isTrue();
    }

    @Test
    default void concurrentTurnsOfOneConversationTellEachDecisionExactlyOnce() throws Exception {
        Toolgate gate = fx().gate();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            Proposal p = add(conversation(), "c" + i, "x");
            gate.reject(operator(), p.callId(), "no " + i);
            expected.add(p.callId());
        }
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<Decision>>> turns = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                turns.add(pool.submit(() -> {
                    start.await();
                    return take(conversation()).decisions();
                }));
            }
            start.countDown();
            List<String> told = Collections.synchronizedList(new ArrayList<>());
            for (Future<List<Decision>> turn : turns) {
                turn.get(30, TimeUnit.SECONDS).forEach(d -> told.add(d.proposalId()));
            }
            assertThat(told).containsExactlyInAnyOrderElementsOf(expected);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    default void aRepeatOfAPendingOrDeclinedProposalIsRecognisedWithinItsTimeToLive() {
        Toolgate gate = fx().gate();
        var conversations = gate.conversations();
        String args = "{\"text\":\"x\",\"id\":\"p1\"}";
        assertThat(conversations.repeatOf(conversation(), "notes.add", args)).isEmpty();
        Proposal p = add(conversation(), "p1", "x");

        assertThat(conversations.repeatOf(conversation(), "notes.add", args)).get()
                .isInstanceOfSatisfying(Repeat.Pending.class, r -> assertThat(r.proposalId()).isEqualTo(p.callId()));
        assertThat(conversations.repeatOf(conversation(), "notes.add", "{\"id\":\"p1\",\"text\":\"y\"}")).isEmpty();
        assertThat(conversations.repeatOf(conversation().withSession("session-9"), "notes.add", args)).isEmpty();
        assertThat(conversations.repeatOf(fx().ctx(fx().approver), "notes.add", args)).as("another principal").isEmpty();
        assertThat(conversations.repeatOf(conversation(), "notes.add", "{not json")).isEmpty();

        gate.reject(operator(), p.callId(), "we already have p0");
        assertThat(conversations.repeatOf(conversation(), "notes.add", args)).get()
                .isInstanceOfSatisfying(Repeat.Declined.class, r -> {
                    assertThat(r.decision().reason()).isEqualTo("we already have p0");
                    assertThat(r.decision().outcome()).isEqualTo(Decision.Outcome.DECLINED);
                });

        fx().clock.advance(Duration.ofHours(2));
        assertThat(conversations.repeatOf(conversation(), "notes.add", args)).as("past its time to live").isEmpty();
    }

    @Test
    default void anAppliedProposalRepeatsNothing() {
        Proposal p = add(conversation(), "q1", "x");
        fx().gate().apply(conversation(), p.token());
        assertThat(fx().gate().conversations().repeatOf(conversation(), "notes.add", "{\"id\":\"q1\",\"text\":\"x\"}"))
                .isEmpty();
    }
}
