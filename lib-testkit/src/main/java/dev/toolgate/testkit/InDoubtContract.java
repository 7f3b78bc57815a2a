package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ToolCallEvent;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.TokenAlreadyUsedException;
import dev.toolgate.call.UnknownProposalException;
import dev.toolgate.spi.CallStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A claimed call whose outcome never arrives (the instance applying it stopped) reads as applying
 * until its outcome is due, then as interrupted: in doubt, never as applied, never re-run. Operators
 * see it and resolve it.
 */
public interface InDoubtContract extends ContractCase {

    /** The executionTimeout of the gates here, and the grace the engine adds for recording an outcome. */
    Duration TIMEOUT = Duration.ofSeconds(5);
    Duration GRACE = Duration.ofSeconds(30);

    private Toolgate gate(List<ToolCallEvent> events) {
        return fx().gate(b -> b.executionTimeout(TIMEOUT).listener(events::add));
    }

    /** What an instance that died right after winning the claim leaves behind. */
    private Proposal claimedByADeadInstance(Toolgate gate, String note) {
        Proposal proposal = (Proposal) gate.call(fx().ctx(fx().writer), "notes.add", "{\"id\":\"" + note + "\",\"text\":\"t\"}");
        CallStore.ClaimResult claim = fx().store.calls().claim(proposal.callId(),
                new CallStore.Claim(PrincipalRef.of(fx().writer), null, null, TIMEOUT.plus(GRACE)), null);
        assertThat(claim.status()).isEqualTo(CallStore.ClaimResult.Status.CLAIMED);
        return proposal;
    }

    private CallRecord record(String id) {
        return fx().store.calls().find(id).orElseThrow();
    }

    @Test
    default void aCallWhoseOutcomeIsRunningReadsApplyingWithItsDueTimeNeverApplied() throws Exception {
        Toolgate gate = fx().gate(b -> b.executionTimeout(TIMEOUT));
        CallContext ctx = fx().ctx(fx().writer);
        Proposal proposal = (Proposal) gate.call(ctx, "notes.hold", "{\"id\":\"h1\"}");
        CompletableFuture<?> applying = CompletableFuture.runAsync(() -> gate.apply(ctx, proposal.token()));
        try {
            assertThat(fx().notes.held.tryAcquire(10, TimeUnit.SECONDS)).as("the tool started").isTrue();
            CallRecord running = record(proposal.callId());
            assertThat(running.status()).isEqualTo(CallStatus.APPLYING);
            assertThat(running.completedAt()).isNull();
            // notes.hold declares its own timeout of 20 s
            assertThat(running.outcomeDueAt()).isEqualTo(running.appliedAt().plus(Duration.ofSeconds(20)).plus(GRACE));
            assertThat(gate.sweep().interrupted()).as("not due").isZero();
        } finally {
            fx().notes.release.release();
        }
        applying.get(20, TimeUnit.SECONDS);
        assertThat(record(proposal.callId()).status()).isEqualTo(CallStatus.APPLIED);
        assertThat(record(proposal.callId()).outcomeDueAt()).isNotNull();
    }

    @Test
    default void anOverdueClaimIsMarkedInterruptedOnceWithAnEventAndIsNeverRunAgain() {
        List<ToolCallEvent> events = new CopyOnWriteArrayList<>();
        Toolgate gate = gate(events);
        Proposal proposal = claimedByADeadInstance(gate, "n1");
        CallRecord claimed = record(proposal.callId());
        assertThat(claimed.status()).isEqualTo(CallStatus.APPLYING);
        assertThat(claimed.outcomeDueAt()).isEqualTo(claimed.appliedAt().plus(TIMEOUT).plus(GRACE));

        fx().clock.advance(TIMEOUT.plus(GRACE).minusMillis(1));
        assertThat(gate.sweep().interrupted()).isZero();
        assertThat(record(proposal.callId()).status()).isEqualTo(CallStatus.APPLYING);
        fx().clock.advance(Duration.ofMillis(1));
        assertThat(gate.sweep().interrupted()).isEqualTo(1);
        assertThat(gate.sweep().interrupted()).isZero();

        CallRecord interrupted = record(proposal.callId());
        assertThat(interrupted.status()).isEqualTo(CallStatus.INTERRUPTED);
        assertThat(interrupted.completedAt()).isEqualTo(fx().clock.instant());
        assertThat(gate.findCalls(CallQuery.latest(10).status(CallStatus.INTERRUPTED))).extracting(CallRecord::id)
                .containsExactly(proposal.callId());
        assertThat(events).extracting(ToolCallEvent::status).containsExactly(CallStatus.PROPOSED, CallStatus.INTERRUPTED);
        ToolCallEvent event = events.get(1);
        assertThat(event.callId()).isEqualTo(proposal.callId());
        assertThat(event.principal().key()).isEqualTo("user:writer");
        assertThat(event.duration()).isEqualTo(TIMEOUT.plus(GRACE));

        // never re-run: not by sweeps, not by the token, not by an approval
        fx().clock.advance(Duration.ofHours(1));
        gate.sweep();
        assertThatThrownBy(() -> gate.apply(fx().ctx(fx().writer), proposal.token())).isInstanceOf(TokenAlreadyUsedException.class);
        assertThat(gate.approve(fx().ctx(fx().approver), proposal.callId(), Approval.once()))
                .isEqualTo(new InboxResult.NotPending(proposal.callId(), CallStatus.INTERRUPTED));
        assertThat(fx().notes.mutations).hasValue(0);
        assertThat(fx().notes.snapshot()).doesNotContainKey("n1");
    }

    @Test
    default void operatorsSeeInterruptedCallsOfTheirTenantAndResolveThem() {
        Toolgate gate = gate(new CopyOnWriteArrayList<>());
        Proposal lost = claimedByADeadInstance(gate, "n1");
        Proposal done = claimedByADeadInstance(gate, "n2");
        fx().clock.advance(TIMEOUT.plus(GRACE));
        assertThat(gate.sweep().interrupted()).isEqualTo(2);

        CallContext operator = fx().ctx(fx().approver);
        assertThat(gate.interrupted(operator)).extracting(CallRecord::id).containsExactlyInAnyOrder(lost.callId(), done.callId());
        assertThat(gate.interrupted(operator.withTenant("globex"))).isEmpty();
        assertThatThrownBy(() -> gate.interrupted(fx().ctx(fx().writer))).isInstanceOf(ForbiddenException.class);
        assertThatThrownBy(() -> gate.resolve(fx().ctx(fx().writer), lost.callId(), false, null))
                .isInstanceOf(ForbiddenException.class);
        assertThatThrownBy(() -> gate.resolve(operator.withTenant("globex"), lost.callId(), false, null))
                .isInstanceOf(UnknownProposalException.class);

        assertThat(gate.resolve(operator, lost.callId(), false, "no note n1 in the book; password=hunter2"))
                .isEqualTo(new InboxResult.Resolved(lost.callId(), CallStatus.FAILED));
        assertThat(gate.resolve(operator, done.callId(), true, null))
                .isEqualTo(new InboxResult.Resolved(done.callId(), CallStatus.APPLIED));
        assertThat(gate.resolve(operator, done.callId(), false, null))
                .isEqualTo(new InboxResult.NotPending(done.callId(), CallStatus.APPLIED));

        CallRecord resolved = record(lost.callId());
        assertThat(resolved.status()).isEqualTo(CallStatus.FAILED);
        assertThat(resolved.error()).contains("user:approver").contains("not applied").contains("no note n1")
                .doesNotContain("hunter2");
        assertThat(gate.interrupted(operator)).isEmpty();
        assertThat(fx().notes.mutations).hasValue(0);
    }

    @Test
    default void anOutcomeThatArrivesAfterTheCallWasMarkedInterruptedStillCounts() throws Exception {
        Toolgate gate = fx().gate(b -> b.executionTimeout(TIMEOUT));
        CallContext ctx = fx().ctx(fx().writer);
        Proposal proposal = (Proposal) gate.call(ctx, "notes.hold", "{\"id\":\"h1\"}");
        CompletableFuture<?> applying = CompletableFuture.runAsync(() -> gate.apply(ctx, proposal.token()));
        try {
            assertThat(fx().notes.held.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            fx().clock.advance(Duration.ofMinutes(5)); // a stalled instance: its outcome is overdue
            assertThat(gate.sweep().interrupted()).isEqualTo(1);
            assertThat(record(proposal.callId()).status()).isEqualTo(CallStatus.INTERRUPTED);
        } finally {
            fx().notes.release.release();
        }
        applying.get(20, TimeUnit.SECONDS);
        CallRecord late = record(proposal.callId());
        assertThat(late.status()).isEqualTo(CallStatus.APPLIED);
        assertThat(late.resultJson()).contains("held h1");
        assertThat(fx().notes.mutations).hasValue(1);
    }
}
