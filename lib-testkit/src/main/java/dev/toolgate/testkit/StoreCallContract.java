package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.spi.CallStore.Claim;
import dev.toolgate.spi.CallStore.ClaimResult;
import dev.toolgate.spi.CallStore.Closure;
import dev.toolgate.spi.CallStore.Completion;
import dev.toolgate.spi.CallStore.ProposeResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The store contract on calls: recording finished calls, proposing, and claiming a proposal once.
 * It is one link of the chain of superclasses of {@link StoreContractTest}, so extending that
 * one class runs every part.
 */
abstract class StoreCallContract extends StoreContractSupport {

    @Test
    void ofTwoProposalsMadeFromTheSameStateOneAppliesAtATime() {
        String state = "f".repeat(64);
        CallRecord first = calls.propose(proposal("s1").toBuilder().precondition(state).preconditionJson("{\"before\":{}}")
                .build(), TTL, 100).record();
        CallRecord second = calls.propose(proposal("s1").toBuilder().precondition(state).build(), TTL, 100).record();
        CallRecord unrelated = calls.propose(proposal("s1").toBuilder().precondition("e".repeat(64)).build(), TTL, 100).record();
        assertThat(calls.find(first.id()).orElseThrow().preconditionJson()).isEqualTo("{\"before\":{}}");

        assertThat(calls.claim(first.id(), claimBy(ANN), null).status()).isEqualTo(ClaimResult.Status.CLAIMED);
        assertThat(calls.claim(second.id(), claimBy(ANN), charge("ann", 10)).status()).isEqualTo(ClaimResult.Status.CONFLICT);
        assertThat(calls.find(second.id()).orElseThrow().status()).as("a conflict changes nothing").isEqualTo(CallStatus.PROPOSED);
        assertThat(calls.claim(unrelated.id(), claimBy(ANN), null).status()).isEqualTo(ClaimResult.Status.CLAIMED);

        assertThat(calls.complete(first.id(), new Completion(CallStatus.APPLIED, "{}", null, 1L))).isTrue();
        assertThat(calls.claim(second.id(), claimBy(ANN), null).status()).as("the first is done").isEqualTo(ClaimResult.Status.CLAIMED);
        assertThat(calls.complete(second.id(), new Completion(CallStatus.STALE, null, "the note changed", null))).isTrue();
        CallRecord stale = calls.find(second.id()).orElseThrow();
        assertThat(stale.status()).isEqualTo(CallStatus.STALE);
        assertThat(stale.error()).isEqualTo("the note changed");
        assertThat(stale.completedAt()).isNotNull();

        CallRecord third = calls.propose(proposal("s1").toBuilder().precondition(state).build(), TTL, 100).record();
        assertThat(calls.close(third.id(), new Closure(CallStatus.STALE, OPS, "another change was applying", null))).isTrue();
        assertThat(calls.find(third.id()).orElseThrow().status()).isEqualTo(CallStatus.STALE);
        CallRecord fourth = calls.propose(proposal("s1").toBuilder().precondition(state).build(), TTL, 100).record();
        assertThat(calls.claim(fourth.id(), claimBy(ANN), null).status()).as("a stale row holds nothing")
                .isEqualTo(ClaimResult.Status.CLAIMED);
    }

    // ------------------------------------------------------------------------------ record

    @Test
    void recordStoresEveryFieldAndStampsTheStoreTime() {
        CallRecord call = executed("ann", "s1").toBuilder().automationId("nightly").build();
        CallRecord stored = calls.record(call);

        assertThat(stored.createdAt()).isEqualTo(clock.instant());
        assertThat(stored.completedAt()).isEqualTo(clock.instant());
        assertThat(calls.find(call.id())).contains(stored);
        assertThat(stored.toBuilder().createdAt(null).completedAt(null).build()).isEqualTo(call);
        assertThat(calls.find(UUID.randomUUID().toString())).isEmpty();
    }

    @Test
    void recordKeepsTheAdmissionTimeAsCreatedAt() {
        Instant admitted = calls.admit(charge("ann", 5));
        clock.advance(Duration.ofMillis(250));
        CallRecord stored = calls.record(executed("ann", "s1").toBuilder().createdAt(admitted).build());

        assertThat(stored.createdAt()).isEqualTo(admitted);
        assertThat(stored.completedAt()).isEqualTo(admitted.plusMillis(250));
        assertThat(calls.find(stored.id()).orElseThrow().createdAt()).isEqualTo(admitted);
    }

    @Test
    void recordNeverCompletesACallBeforeItWasAdmitted() {
        Instant admitted = calls.admit(charge("ann", 5));
        clock.advance(Duration.ofSeconds(-1)); // the clock is stepped back between admission and record
        CallRecord stored = calls.record(executed("ann", "s1").toBuilder().createdAt(admitted).build());

        assertThat(stored.createdAt()).isEqualTo(admitted);
        assertThat(stored.completedAt()).isEqualTo(admitted);
        assertThat(calls.find(stored.id())).contains(stored);
    }

    @Test
    void recordTakesOnlyFinishedCalls() {
        assertThatThrownBy(() -> calls.record(proposal("s1"))).isInstanceOf(IllegalArgumentException.class);
        for (CallStatus finished : List.of(CallStatus.FAILED, CallStatus.INVALID, CallStatus.DENIED)) {
            CallRecord stored = calls.record(executed("ann", "s1").toBuilder().status(finished).resultJson(null)
                    .error("why").decisionReason(finished == CallStatus.DENIED ? "policy" : null).build());
            assertThat(calls.find(stored.id()).orElseThrow().status()).isEqualTo(finished);
        }
    }

    // ------------------------------------------------------------------------------ propose / claim

    @Test
    void proposeStoresTheProposalWithItsExpiry() {
        CallRecord proposal = proposed("s1");
        assertThat(proposal.status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(proposal.expiresAt()).isEqualTo(clock.instant().plus(TTL));
        assertThat(proposal.summary()).isEqualTo("Add a note");
        assertThat(proposal.payloadJson()).isEqualTo("{\"id\":\"n1\"}");
        assertThat(proposal.diffJson()).isEqualTo("[]");
        assertThat(proposal.tokenDigest()).isEqualTo("d".repeat(64));
        assertThat(calls.find(proposal.id())).contains(proposal);
        assertThat(calls.countPending("s1")).isEqualTo(1);
        assertThatThrownBy(() -> calls.propose(executed("ann", "s1"), TTL, 100)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void thePendingCapHoldsUnderConcurrency() throws Exception {
        List<ProposeResult.Status> results = Together.run(16, t -> calls.propose(proposal("capped"), TTL, 5).status());
        assertThat(results).filteredOn(s -> s == ProposeResult.Status.PROPOSED).hasSize(5);
        assertThat(results).filteredOn(s -> s == ProposeResult.Status.PENDING_LIMIT).hasSize(11);
        assertThat(calls.countPending("capped")).isEqualTo(5);
        clock.advance(TTL);
        assertThat(calls.countPending("capped")).as("expired proposals do not count").isZero();
    }

    @Test
    void ofManyConcurrentClaimsExactlyOneWins() throws Exception {
        CallRecord proposal = proposed("s1");
        List<ClaimResult.Status> results = Together.run(32, t -> calls.claim(proposal.id(), claimBy(ANN), null).status());

        assertThat(results).filteredOn(s -> s == ClaimResult.Status.CLAIMED).hasSize(1);
        assertThat(results).filteredOn(s -> s == ClaimResult.Status.NOT_PENDING).hasSize(31);
        CallRecord claimed = calls.find(proposal.id()).orElseThrow();
        assertThat(claimed.status()).isEqualTo(CallStatus.APPLYING);
        assertThat(claimed.appliedBy()).isEqualTo(ANN);
        assertThat(claimed.appliedAt()).isEqualTo(clock.instant());
        assertThat(claimed.outcomeDueAt()).isEqualTo(clock.instant().plus(OUTCOME_WITHIN));
        assertThat(claimed.completedAt()).isNull();
        assertThat(calls.countPending("s1")).isZero();
    }

    @Test
    void aClaimRecordsTheOperatorsDecisionAndTheApplyOutcomeCompletesIt() {
        CallRecord proposal = proposed("s1");
        ClaimResult claim = calls.claim(proposal.id(), new Claim(OPS, OPS, "checked", OUTCOME_WITHIN), null);
        assertThat(claim.record().status()).isEqualTo(CallStatus.APPLYING);
        assertThat(claim.record().decidedBy()).isEqualTo(OPS);
        assertThat(claim.record().decisionReason()).isEqualTo("checked");

        assertThat(calls.complete(proposal.id(), new Completion(CallStatus.APPLIED, "\"done\"", null, 3L))).isTrue();
        assertThat(calls.complete(proposal.id(), new Completion(CallStatus.FAILED, null, "x", 3L))).isFalse();
        CallRecord done = calls.find(proposal.id()).orElseThrow();
        assertThat(done.status()).isEqualTo(CallStatus.APPLIED);
        assertThat(done.resultJson()).isEqualTo("\"done\"");
        assertThat(done.completedAt()).isNotNull();

        CallRecord unclaimed = proposed("s1");
        assertThat(calls.complete(unclaimed.id(), new Completion(CallStatus.APPLIED, null, null, 1L))).as("not claimed").isFalse();
        assertThat(calls.complete(UUID.randomUUID().toString(), new Completion(CallStatus.FAILED, null, "x", 1L))).isFalse();
        CallRecord failing = proposed("s1");
        calls.claim(failing.id(), claimBy(ANN), null);
        assertThat(calls.complete(failing.id(), new Completion(CallStatus.FAILED, null, "boom", 2L))).isTrue();
        assertThat(calls.find(failing.id()).orElseThrow().error()).isEqualTo("boom");
    }

    @Test
    void aClaimOfAHeldProposalReturnsExactlyWhatTheStoreNowHolds() {
        CallRecord proposal = proposed("s1");
        ClaimResult claim = calls.claim(proposal, new Claim(ANN, OPS, "checked", OUTCOME_WITHIN), null);
        assertThat(claim.status()).isEqualTo(ClaimResult.Status.CLAIMED);
        assertThat(claim.record().status()).isEqualTo(CallStatus.APPLYING);
        assertThat(claim.record().appliedAt()).isEqualTo(clock.instant());
        assertThat(claim.record().outcomeDueAt()).isEqualTo(clock.instant().plus(OUTCOME_WITHIN));
        assertThat(claim.record().decisionReason()).isEqualTo("checked");
        assertThat(calls.find(proposal.id())).contains(claim.record());

        CallRecord charged = proposed("s1");
        clock.advance(Duration.ofMillis(3));
        ClaimResult chargedClaim = calls.claim(charged, claimBy(ANN), charge("ann", 2));
        assertThat(chargedClaim.status()).isEqualTo(ClaimResult.Status.CLAIMED);
        assertThat(chargedClaim.record().appliedAt()).isEqualTo(clock.instant());
        assertThat(calls.find(charged.id())).contains(chargedClaim.record());
    }

    @Test
    void aClaimOfAHeldProposalIsStillSingleUseAndExplainsWhyItLost() throws Exception {
        CallRecord proposal = proposed("s1");
        List<ClaimResult.Status> results = Together.run(16, t -> calls.claim(proposal, claimBy(ANN), null).status());
        assertThat(results).filteredOn(s -> s == ClaimResult.Status.CLAIMED).hasSize(1);
        assertThat(results).filteredOn(s -> s == ClaimResult.Status.NOT_PENDING).hasSize(15);
        ClaimResult again = calls.claim(proposal, claimBy(ANN), null);
        assertThat(again.status()).isEqualTo(ClaimResult.Status.NOT_PENDING);
        assertThat(again.record()).as("the row as it is, not the record held").isEqualTo(calls.find(proposal.id()).orElseThrow());
        assertThat(again.record().status()).isEqualTo(CallStatus.APPLYING);

        CallRecord rejected = proposed("s1");
        assertThat(calls.close(rejected.id(), new Closure(CallStatus.REJECTED, OPS, "no", null))).isTrue();
        assertThat(calls.claim(rejected, claimBy(ANN), null).status()).isEqualTo(ClaimResult.Status.NOT_PENDING);
        assertThat(calls.find(rejected.id()).orElseThrow().status()).isEqualTo(CallStatus.REJECTED);

        CallRecord due = proposed("s1");
        clock.advance(TTL);
        ClaimResult expired = calls.claim(due, claimBy(ANN), null);
        assertThat(expired.status()).isEqualTo(ClaimResult.Status.EXPIRED);
        assertThat(calls.find(due.id()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
    }

    @Test
    void anOverBudgetClaimOfAHeldProposalChangesNothing() throws Exception {
        CallRecord proposal = proposed("s1");
        calls.admit(charge("ann", 1));
        assertThatThrownBy(() -> calls.claim(proposal, claimBy(ANN), charge("ann", 1)))
                .isInstanceOf(BudgetExceededException.class);
        assertThat(calls.find(proposal.id())).contains(proposal);

        CallRecord contested = proposed("s1");
        Together.run(8, t -> calls.claim(contested, claimBy(ANN), charge("bob", 2)).status());
        calls.admit(charge("bob", 2));
        assertThatThrownBy(() -> calls.admit(charge("bob", 2))).as("the losing claims spent nothing")
                .isInstanceOf(BudgetExceededException.class);
    }

    @Test
    void aClaimExplainsWhyItLost() {
        CallRecord proposal = proposed("s1");
        assertThat(calls.claim(UUID.randomUUID().toString(), claimBy(ANN), null).status())
                .isEqualTo(ClaimResult.Status.NOT_FOUND);
        clock.advance(TTL);
        ClaimResult expired = calls.claim(proposal.id(), claimBy(ANN), null);
        assertThat(expired.status()).isEqualTo(ClaimResult.Status.EXPIRED);
        assertThat(expired.record().status()).isEqualTo(CallStatus.PROPOSED);

        CallRecord fresh = proposed("s1");
        calls.claim(fresh.id(), claimBy(ANN), null);
        assertThat(calls.claim(fresh.id(), claimBy(ANN), null).status()).isEqualTo(ClaimResult.Status.NOT_PENDING);
    }

    @Test
    void anOverBudgetClaimChangesNothing() {
        CallRecord proposal = proposed("s1");
        calls.admit(charge("ann", 1));

        assertThatThrownBy(() -> calls.claim(proposal.id(), claimBy(ANN), charge("ann", 1)))
                .isInstanceOf(BudgetExceededException.class);
        assertThat(calls.find(proposal.id()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(calls.claim(proposal.id(), claimBy(ANN), charge("ann", 2)).status())
                .isEqualTo(ClaimResult.Status.CLAIMED);
    }

    @Test
    void aLosingClaimDoesNotSpendTheBudget() throws Exception {
        CallRecord proposal = proposed("s1");
        Together.run(8, t -> calls.claim(proposal.id(), claimBy(ANN), charge("ann", 2)).status());
        calls.admit(charge("ann", 2));
        assertThatThrownBy(() -> calls.admit(charge("ann", 2))).isInstanceOf(BudgetExceededException.class);
    }
}
