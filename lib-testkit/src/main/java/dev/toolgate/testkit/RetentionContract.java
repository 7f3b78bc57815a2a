package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.PurgeResult;
import dev.toolgate.call.Retention;
import dev.toolgate.call.SweepResult;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Storage that shrinks: the sweeper purges finished calls after 90 days and closed proposals,
 * idle sessions and idle budget rows after 7 (by default), in batches; hosts may purge themselves;
 * pending proposals and calls still applying are never purged.
 */
public interface RetentionContract extends ContractCase {

    private Proposal propose(Toolgate gate, CallContext ctx, String id) {
        return (Proposal) gate.call(ctx, "notes.add", "{\"id\":\"" + id + "\",\"text\":\"t\"}");
    }

    private boolean exists(String id) {
        return fx().store.calls().find(id).isPresent();
    }

    @Test
    default void theSweeperPurgesByTheDefaultRetention() {
        Toolgate gate = fx().gate(b -> b.unattendedProposalTtl(Duration.ofDays(200)));
        CallContext ctx = fx().ctx(fx().writer);
        String read = gate.call(ctx, "notes.list", "{}").callId();
        Proposal rejected = propose(gate, ctx, "r1");
        gate.reject(fx().ctx(fx().approver), rejected.callId(), "no");
        Proposal applied = propose(gate, ctx, "a1");
        gate.apply(ctx, applied.token());
        Proposal waiting = propose(gate, ctx.withSession("long-running").withSessionKind(dev.toolgate.call.SessionKind.UNATTENDED), "w1");

        fx().clock.advance(Duration.ofDays(8));
        SweepResult week = gate.sweep();
        assertThat(week.purged().closedProposals()).isEqualTo(1);
        assertThat(week.purged().finishedCalls()).isZero();
        assertThat(exists(rejected.callId())).isFalse();
        assertThat(exists(read)).isTrue();
        assertThat(exists(applied.callId())).isTrue();

        fx().clock.advance(Duration.ofDays(83));
        SweepResult quarter = gate.sweep();
        assertThat(quarter.purged().finishedCalls()).as("the read and the applied call").isEqualTo(2);
        assertThat(exists(read)).isFalse();
        assertThat(exists(applied.callId())).isFalse();
        assertThat(exists(waiting.callId())).as("a pending proposal is never purged").isTrue();
        assertThat(gate.pending(fx().ctx(fx().approver), null)).extracting(p -> p.callId()).containsExactly(waiting.callId());
        assertThat(gate.approve(fx().ctx(fx().approver), waiting.callId(), Approval.once()).callId()).isEqualTo(waiting.callId());
        assertThat(fx().notes.snapshot()).containsKeys("a1", "w1");
    }

    @Test
    default void aConfiguredRetentionAndKeepForeverAreHonoured() {
        Toolgate shortLived = fx().gate(b -> b.retention(Retention.defaults().withFinishedCalls(Duration.ofHours(1))));
        Toolgate forever = fx().gate(b -> b.retention(Retention.keepForever()));
        String read = shortLived.call(fx().ctx(fx().reader), "notes.list", "{}").callId();
        fx().clock.advance(Duration.ofDays(3650));

        assertThat(forever.sweep().purged()).isEqualTo(PurgeResult.NONE);
        assertThat(exists(read)).isTrue();
        assertThat(shortLived.sweep().purged().finishedCalls()).isEqualTo(1);
        assertThat(exists(read)).isFalse();
        assertThatThrownBy(() -> Retention.defaults().withIdleBudgets(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Retention.defaults().withFinishedCalls(Duration.ofDays(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    default void scheduledPurgingRunsAtMostEveryFiveMinutesOfStoreTime() {
        Toolgate gate = fx().gate();
        String first = gate.call(fx().ctx(fx().reader), "notes.list", "{}").callId();
        fx().clock.advance(Duration.ofMinutes(3));
        String second = gate.call(fx().ctx(fx().reader), "notes.list", "{}").callId();
        fx().clock.advance(Duration.ofDays(90).minusMinutes(2));

        assertThat(gate.sweep().purged().finishedCalls()).isEqualTo(1);
        assertThat(exists(first)).isFalse();
        fx().clock.advance(Duration.ofMinutes(3));
        assertThat(gate.sweep().purged()).as("the second call is due, but the last purge was 3 minutes ago")
                .isEqualTo(PurgeResult.NONE);
        assertThat(exists(second)).isTrue();
        fx().clock.advance(Duration.ofMinutes(2));
        assertThat(gate.sweep().purged().finishedCalls()).isEqualTo(1);
        assertThat(exists(second)).isFalse();
    }

    @Test
    default void aHostPurgesItselfEverythingThatClosedBeforeAnInstant() {
        Toolgate gate = fx().gate(b -> b.retention(Retention.keepForever()).budget(ToolBudget.unlimited()));
        CallContext ctx = fx().ctx(fx().writer);
        for (int i = 0; i < 1_203; i++) { // more than two of the engine's batches
            gate.call(ctx, "notes.list", "{}");
        }
        Proposal rejected = propose(gate, ctx, "r1");
        gate.reject(fx().ctx(fx().approver), rejected.callId(), null);
        Proposal pending = propose(gate, ctx, "p1");
        fx().clock.advance(Duration.ofSeconds(1));
        Instant cutoff = fx().clock.instant();
        String later = gate.call(ctx, "notes.list", "{}").callId();

        PurgeResult purged = gate.purge(cutoff);
        assertThat(purged.finishedCalls()).isEqualTo(1_203);
        assertThat(purged.closedProposals()).isEqualTo(1);
        assertThat(fx().records()).extracting(CallRecord::id).containsExactlyInAnyOrder(pending.callId(), later);
        assertThat(gate.purge(cutoff)).isEqualTo(PurgeResult.NONE);
        assertThatThrownBy(() -> gate.purge(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    default void aPurgeNeverForgetsAdmissionsInsideABudgetWindow() {
        Toolgate gate = fx().gate(b -> b.budget(ToolBudget.perPrincipal(2, Duration.ofHours(1))));
        CallContext ctx = fx().ctx(fx().reader);
        gate.call(ctx, "notes.list", "{}");
        gate.call(ctx, "notes.list", "{}");
        fx().clock.advance(Duration.ofMinutes(1));

        PurgeResult purged = gate.purge(fx().clock.instant());
        assertThat(purged.finishedCalls()).isEqualTo(2);
        assertThat(purged.idleBudgets()).as("idle budget rows go only after the retention's budget age").isZero();
        assertThatThrownBy(() -> gate.call(ctx, "notes.list", "{}")).isInstanceOf(BudgetExceededException.class);

        fx().clock.advance(Duration.ofDays(8));
        assertThat(gate.purge(fx().clock.instant()).idleBudgets()).isEqualTo(1);
        assertThat(gate.call(ctx, "notes.list", "{}").status()).isEqualTo("executed");
    }

    @Test
    default void anEndedSessionLosesItsBookkeepingAndItsCapWorksAfterwards() {
        Toolgate gate = fx().gate(b -> b.maxPendingPerSession(1));
        CallContext ctx = fx().ctx(fx().writer).withSession("chat-7");
        Proposal proposal = propose(gate, ctx, "n1");
        assertThat(gate.endSession("chat-7")).as("a pending proposal keeps it").isFalse();
        gate.apply(ctx, proposal.token());
        assertThat(gate.endSession("chat-7")).isTrue();
        assertThat(gate.endSession("chat-7")).isFalse();
        assertThat(fx().store.calls().find(proposal.callId()).orElseThrow().status()).isEqualTo(CallStatus.APPLIED);

        propose(gate, ctx, "n2");
        assertThatThrownBy(() -> propose(gate, ctx, "n3")).isInstanceOf(dev.toolgate.call.PendingLimitException.class);
        assertThatThrownBy(() -> gate.endSession(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    default void theSweeperPurgesIdleSessionsAfterTheirRetention() {
        Toolgate gate = fx().gate(b -> b.maxPendingPerSession(1));
        CallContext ctx = fx().ctx(fx().writer).withSession("chat-8");
        Proposal proposal = propose(gate, ctx, "n1");
        gate.reject(fx().ctx(fx().approver), proposal.callId(), null);
        fx().clock.advance(Duration.ofDays(6));
        assertThat(gate.sweep().purged().idleSessions()).isZero();
        fx().clock.advance(Duration.ofDays(2));
        assertThat(gate.sweep().purged().idleSessions()).isEqualTo(1);
        propose(gate, ctx, "n2");
        assertThatThrownBy(() -> propose(gate, ctx, "n3")).isInstanceOf(dev.toolgate.call.PendingLimitException.class);
    }
}
