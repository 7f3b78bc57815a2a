package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.CallStore.Closure;
import dev.toolgate.spi.CallStore.Completion;
import dev.toolgate.spi.CallStore.ProposeResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The store contract on retention: purges of calls, proposals, sessions and budget rows.
 * It is one link of the chain of superclasses of {@link StoreContractTest}, so extending that
 * one class runs every part.
 */
abstract class StoreRetentionContract extends StoreLifecycleContract {

    // ------------------------------------------------------------------------------ retention

    @Test
    void purgeDeletesFinishedCallsAndClosedProposalsByTheirCompletionTime() {
        CallRecord oldRead = calls.record(executed("ann", "s1"));
        CallRecord oldRejected = proposed("s1");
        calls.close(oldRejected.id(), new Closure(CallStatus.REJECTED, OPS, "no", null));
        CallRecord oldApplied = proposed("s1");
        calls.claim(oldApplied.id(), claimBy(ANN), null);
        calls.complete(oldApplied.id(), new Completion(CallStatus.APPLIED, "1", null, 1L));
        CallRecord stillApplying = proposed("s1");
        calls.claim(stillApplying.id(), claimBy(ANN), null);
        CallRecord oldPending = calls.propose(proposal("s2"), Duration.ofDays(30), 100).record();
        clock.advance(Duration.ofDays(1));
        Instant cutoff = clock.instant();
        CallRecord newRead = calls.record(executed("ann", "s1"));
        CallRecord expiredNow = proposed("s1");
        clock.advance(TTL);
        calls.expireDue(100);

        assertThat(calls.purge(CallStore.Purge.CLOSED_PROPOSALS, cutoff, 100)).isEqualTo(1);
        assertThat(calls.find(oldRejected.id())).isEmpty();
        assertThat(calls.find(expiredNow.id())).as("closed after the cutoff").isPresent();
        assertThat(calls.find(oldRead.id())).as("a finished call is not a closed proposal").isPresent();

        assertThat(calls.purge(CallStore.Purge.FINISHED_CALLS, cutoff, 100)).isEqualTo(2);
        assertThat(calls.find(oldRead.id())).isEmpty();
        assertThat(calls.find(oldApplied.id())).isEmpty();
        assertThat(calls.find(newRead.id())).isPresent();
        assertThat(calls.find(stillApplying.id())).as("never while applying").isPresent();
        assertThat(calls.find(oldPending.id())).as("never while pending").isPresent();
        assertThat(calls.query(CallQuery.latest(100))).extracting(CallRecord::id)
                .containsExactlyInAnyOrder(newRead.id(), expiredNow.id(), stillApplying.id(), oldPending.id());
        assertThat(calls.purge(CallStore.Purge.FINISHED_CALLS, cutoff, 100)).isZero();
    }

    @Test
    void purgeWorksInBatchesOldestFirst() {
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 7; i++) {
            ids.add(calls.record(executed("ann", "s1")).id());
            clock.advance(Duration.ofMillis(1));
        }
        Instant cutoff = clock.instant();
        assertThat(calls.purge(CallStore.Purge.FINISHED_CALLS, cutoff, 3)).isEqualTo(3);
        assertThat(ids.subList(0, 3)).allSatisfy(id -> assertThat(calls.find(id)).isEmpty());
        assertThat(ids.subList(3, 7)).allSatisfy(id -> assertThat(calls.find(id)).isPresent());
        assertThat(calls.purge(CallStore.Purge.FINISHED_CALLS, cutoff, 3)).isEqualTo(3);
        assertThat(calls.purge(CallStore.Purge.FINISHED_CALLS, cutoff, 3)).isEqualTo(1);
        assertThat(calls.purge(CallStore.Purge.FINISHED_CALLS, cutoff, 3)).isZero();
    }

    @Test
    void idleSessionsArePurgedAndTheirCapStillHoldsAfterwards() throws Exception {
        CallRecord closed = proposed("idle");
        calls.close(closed.id(), new Closure(CallStatus.REJECTED, OPS, null, null));
        calls.propose(proposal("busy"), Duration.ofDays(30), 100);
        clock.advance(Duration.ofDays(2));
        CallRecord recentClosed = calls.find(proposed("recent").id()).orElseThrow();
        calls.close(recentClosed.id(), new Closure(CallStatus.REJECTED, OPS, null, null));

        assertThat(calls.purge(CallStore.Purge.IDLE_SESSIONS, clock.instant().minus(Duration.ofDays(1)), 100))
                .as("only the idle session: 'busy' has a pending proposal, 'recent' proposed after the cutoff")
                .isEqualTo(1);
        assertThat(calls.purge(CallStore.Purge.IDLE_SESSIONS, clock.instant().minus(Duration.ofDays(1)), 100)).isZero();
        assertThat(calls.countPending("busy")).isEqualTo(1);

        // a purged session's cap is exact again from its first new proposal
        List<ProposeResult.Status> results = Together.run(12, t -> calls.propose(proposal("idle"), TTL, 3).status());
        assertThat(results).filteredOn(st -> st == ProposeResult.Status.PROPOSED).hasSize(3);
        assertThat(calls.countPending("idle")).isEqualTo(3);
    }

    @Test
    void aSessionThatEndsLosesItsRowOnlyWhenNothingIsPending() {
        CallRecord pending = proposed("chat-1");
        assertThat(calls.endSession("chat-1")).as("a pending proposal keeps it").isFalse();
        assertThat(calls.countPending("chat-1")).isEqualTo(1);
        calls.close(pending.id(), new Closure(CallStatus.REJECTED, OPS, null, null));
        assertThat(calls.endSession("chat-1")).isTrue();
        assertThat(calls.endSession("chat-1")).isFalse();
        assertThat(calls.endSession("never-seen")).isFalse();
        assertThat(calls.find(pending.id())).as("the audit trail stays").isPresent();
        assertThat(calls.propose(proposal("chat-1"), TTL, 1).status()).isEqualTo(ProposeResult.Status.PROPOSED);
        assertThat(calls.propose(proposal("chat-1"), TTL, 1).status()).isEqualTo(ProposeResult.Status.PENDING_LIMIT);
    }

    @Test
    void idleBudgetRowsArePurgedAndActiveOnesKept() {
        calls.admit(charge("idle", 2));
        clock.advance(Duration.ofDays(2));
        calls.admit(charge("active", 2));
        Instant cutoff = clock.instant().minus(Duration.ofDays(1));

        assertThat(calls.purge(CallStore.Purge.IDLE_BUDGETS, cutoff, 100)).isEqualTo(1);
        assertThat(calls.purge(CallStore.Purge.IDLE_BUDGETS, cutoff, 100)).isZero();
        calls.admit(charge("active", 2));
        assertThatThrownBy(() -> calls.admit(charge("active", 2))).as("the active principal's window survived")
                .isInstanceOf(BudgetExceededException.class);
        calls.admit(charge("idle", 2));
        calls.admit(charge("idle", 2));
    }

    @Test
    void aBudgetRowThatAdmitsWhileItIsPurgedKeepsItsAdmission() throws Exception {
        for (int round = 0; round < 20; round++) {
            String principal = "racer" + round;
            calls.admit(charge(principal, 1));
            clock.advance(Duration.ofHours(2));
            Instant cutoff = clock.instant().minus(Duration.ofHours(1));
            List<Boolean> admitted = Together.run(9, t -> {
                if (t == 0) {
                    calls.purge(CallStore.Purge.IDLE_BUDGETS, cutoff, 100);
                    return false;
                }
                try {
                    calls.admit(charge(principal, 1));
                    return true;
                } catch (BudgetExceededException e) {
                    return false;
                }
            });
            assertThat(admitted).as("round %d: a purge racing admissions never lets a second call into the window", round)
                    .filteredOn(Boolean::booleanValue).hasSize(1);
            assertThatThrownBy(() -> calls.admit(charge(principal, 1))).isInstanceOf(BudgetExceededException.class);
        }
    }

    @Test
    void purgeRejectsNonsense() {
        assertThatThrownBy(() -> calls.purge(CallStore.Purge.FINISHED_CALLS, clock.instant(), 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> calls.purge(null, clock.instant(), 10)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> calls.purge(CallStore.Purge.FINISHED_CALLS, null, 10)).isInstanceOf(NullPointerException.class);
    }
}
