package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionQuery;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.spi.StepTakenException;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.BudgetLimit;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeOverride;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PolicyView;
import dev.toolgate.policy.ToolReview;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.CallStore.Claim;
import dev.toolgate.spi.CallStore.ClaimResult;
import dev.toolgate.spi.CallStore.Closure;
import dev.toolgate.spi.CallStore.Completion;
import dev.toolgate.spi.CallStore.ProposeResult;
import dev.toolgate.spi.PolicyStore;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.tool.Effect;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The storage SPI's semantics, operation by operation, on one store implementation: every store
 * must pass it. Extend it and open a fresh, empty store that takes all its time from the clock.
 */
public abstract class StoreContractTest {

    private static final PrincipalRef ANN = new PrincipalRef(PrincipalKind.USER, "ann");
    private static final PrincipalRef OPS = new PrincipalRef(PrincipalKind.USER, "ops");
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration OUTCOME_WITHIN = Duration.ofSeconds(40);

    protected MutableClock clock;
    protected ToolgateStore store;
    protected CallStore calls;
    protected PolicyStore policies;

    /** A fresh, empty store that uses {@code clock} for every timestamp and check. */
    protected abstract ToolgateStore openStore(Clock clock);

    /** Releases a store opened by {@link #openStore}. */
    protected void closeStore(ToolgateStore store) {
        store.close();
    }

    @BeforeEach
    void open() {
        clock = new MutableClock();
        store = openStore(clock);
        calls = store.calls();
        policies = store.policies();
    }

    @AfterEach
    void close() {
        closeStore(store);
    }

    /** The store's runs of durable executions. */
    protected dev.toolgate.spi.ExecutionStore runs() {
        return store.executions();
    }

    /** A finished call of {@code principal} in {@code session}, not yet stored. */
    protected static CallRecord executed(String principal, String session) {
        return CallRecord.builder()
                .id(UUID.randomUUID().toString())
                .toolName("notes.list")
                .effect(Effect.READ)
                .principal(new PrincipalRef(PrincipalKind.USER, principal))
                .tenantId("acme")
                .sessionId(session)
                .transport("java")
                .status(CallStatus.EXECUTED)
                .mode(Mode.ALLOW)
                .modeSource(ModeSource.INFERRED_DEFAULT)
                .argumentsHash("a".repeat(64))
                .resultJson("{\"ok\":true}")
                .durationMillis(3L)
                .build();
    }

    /** A proposal in {@code session}, not yet stored. */
    protected static CallRecord proposal(String session) {
        return executed("ann", session).toBuilder().toolName("notes.add").effect(Effect.MUTATE).status(CallStatus.PROPOSED)
                .mode(Mode.REQUIRE_APPROVAL).resultJson(null).summary("Add a note").payloadJson("{\"id\":\"n1\"}")
                .diffJson("[]").tokenDigest("d".repeat(64)).build();
    }

    private CallRecord proposed(String session) {
        ProposeResult result = calls.propose(proposal(session), TTL, 100);
        assertThat(result.status()).isEqualTo(ProposeResult.Status.PROPOSED);
        return result.record();
    }

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

    private static Claim claimBy(PrincipalRef principal) {
        return new Claim(principal, null, null, OUTCOME_WITHIN);
    }

    private static BudgetCharge charge(String principal, int cap) {
        return new BudgetCharge("user:" + principal, BudgetLimit.of(cap, Duration.ofSeconds(60)));
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

    // ------------------------------------------------------------------------------ budget

    @Test
    void theBudgetAdmitsExactlyTheCapUnderConcurrency() throws Exception {
        List<Integer> admitted = Together.run(24, t -> {
            int mine = 0;
            for (int i = 0; i < 5; i++) {
                try {
                    assertThat(calls.admit(charge("ann", 40))).isEqualTo(clock.instant());
                    mine++;
                } catch (BudgetExceededException e) {
                    assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(60));
                }
            }
            return mine;
        });
        assertThat(admitted.stream().mapToInt(Integer::intValue).sum()).isEqualTo(40);
    }

    @Test
    void theWindowIsRollingAndRetryAfterPointsAtTheNextFreeSlot() {
        calls.admit(charge("ann", 2));   // t = 0
        clock.advance(Duration.ofSeconds(45));
        calls.admit(charge("ann", 2));   // t = 45
        assertThatThrownBy(() -> calls.admit(charge("ann", 2)))
                .isInstanceOfSatisfying(BudgetExceededException.class,
                        e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(15)));
        clock.advance(Duration.ofSeconds(15));   // t = 60: the first admission left the window
        calls.admit(charge("ann", 2));
        assertThatThrownBy(() -> calls.admit(charge("ann", 2)))
                .isInstanceOfSatisfying(BudgetExceededException.class,
                        e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(45)));
        calls.admit(charge("bob", 2));   // another principal is unaffected
    }

    @Test
    void aChangedCapAppliesToAdmissionsAlreadyMade() {
        for (int i = 0; i < 5; i++) {
            calls.admit(charge("ann", 10));
        }
        assertThatThrownBy(() -> calls.admit(charge("ann", 3))).isInstanceOf(BudgetExceededException.class);
        calls.admit(charge("ann", 6));
        assertThatThrownBy(() -> calls.admit(charge("ann", 6))).isInstanceOf(BudgetExceededException.class);
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

    // ------------------------------------------------------------------------------ close / expire

    @Test
    void findWithTimeReadsTheRecordWithTheStoresOwnTime() {
        CallRecord proposal = proposed("s1");
        clock.advance(Duration.ofSeconds(3));

        CallStore.FoundCall found = calls.findWithTime(proposal.id()).orElseThrow();
        assertThat(found.record()).isEqualTo(calls.find(proposal.id()).orElseThrow());
        assertThat(found.storeTime()).isEqualTo(calls.now()).isEqualTo(clock.instant());
        assertThat(found.record().pendingAt(found.storeTime())).isTrue();
        clock.advance(TTL);
        assertThat(calls.findWithTime(proposal.id()).orElseThrow().record().pendingAt(calls.findWithTime(proposal.id())
                .orElseThrow().storeTime())).as("expired by the store's clock").isFalse();
        assertThat(calls.findWithTime("no-such-call")).isEmpty();
        assertThat(calls.findWithTime(null)).isEmpty();
    }

    @Test
    void onlyAPendingProposalCanBeClosed() {
        CallRecord proposal = proposed("s1");
        assertThat(calls.close(proposal.id(), new Closure(CallStatus.REJECTED, OPS, "no", null))).isTrue();
        assertThat(calls.close(proposal.id(), new Closure(CallStatus.REJECTED, OPS, "again", null))).isFalse();
        CallRecord rejected = calls.find(proposal.id()).orElseThrow();
        assertThat(rejected.status()).isEqualTo(CallStatus.REJECTED);
        assertThat(rejected.decidedBy()).isEqualTo(OPS);
        assertThat(rejected.decisionReason()).isEqualTo("no");
        assertThat(calls.claim(proposal.id(), claimBy(ANN), null).status()).isEqualTo(ClaimResult.Status.NOT_PENDING);

        CallRecord edited = proposed("s1");
        assertThat(calls.close(edited.id(), new Closure(CallStatus.SUPERSEDED, OPS, "edited", "next-id"))).isTrue();
        assertThat(calls.find(edited.id()).orElseThrow().supersededBy()).isEqualTo("next-id");

        CallRecord late = proposed("s1");
        clock.advance(TTL);
        assertThat(calls.close(late.id(), new Closure(CallStatus.REJECTED, OPS, "too late", null))).isFalse();
    }

    @Test
    void theSweeperExpiresOnlyDueProposalsAndIsSafeToRunConcurrently() throws Exception {
        CallRecord due = proposed("s1");
        clock.advance(Duration.ofMinutes(5));
        CallRecord notDue = proposed("s1");
        CallRecord applied = proposed("s1");
        calls.claim(applied.id(), claimBy(ANN), null);
        clock.advance(Duration.ofMinutes(5));

        List<List<CallRecord>> expired = Together.run(6, t -> calls.expireDue(100));
        assertThat(expired.stream().mapToInt(List::size).sum()).as("each due proposal is expired by exactly one sweeper")
                .isEqualTo(1);
        CallRecord returned = expired.stream().flatMap(List::stream).findFirst().orElseThrow();
        assertThat(returned.id()).isEqualTo(due.id());
        assertThat(returned.status()).as("returned as it is now").isEqualTo(CallStatus.EXPIRED);
        assertThat(returned.completedAt()).isEqualTo(clock.instant());
        assertThat(calls.find(due.id())).contains(returned);
        assertThat(calls.find(notDue.id()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(calls.find(applied.id()).orElseThrow().status()).isEqualTo(CallStatus.APPLYING);
        assertThat(calls.expireDue(100)).isEmpty();
        assertThat(calls.claim(due.id(), claimBy(ANN), null).status()).isEqualTo(ClaimResult.Status.EXPIRED);
    }

    @Test
    void expireDueExpiresAtMostTheLimitAndEachDueProposalOnceAcrossConcurrentSweepers() throws Exception {
        List<String> due = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            due.add(proposed("s" + (i % 4)).id());
        }
        CallRecord decided = proposed("s9");
        assertThat(calls.close(decided.id(), new Closure(CallStatus.REJECTED, OPS, "no", null))).isTrue();
        clock.advance(TTL);
        assertThat(calls.expireDue(0)).as("a limit below 1 expires nothing").isEmpty();
        List<CallRecord> first = calls.expireDue(3);
        assertThat(first).hasSize(3);

        List<List<CallRecord>> batches = Together.run(6, t -> {
            List<CallRecord> mine = new ArrayList<>();
            List<CallRecord> batch;
            do {
                batch = calls.expireDue(2);
                assertThat(batch.size()).isLessThanOrEqualTo(2);
                mine.addAll(batch);
            } while (!batch.isEmpty());
            return mine;
        });
        List<CallRecord> rest = batches.stream().flatMap(List::stream).toList();
        assertThat(rest).as("the 37 left, each by exactly one sweeper").extracting(CallRecord::id)
                .hasSize(37).doesNotHaveDuplicates().doesNotContainAnyElementsOf(first.stream().map(CallRecord::id).toList());
        assertThat(rest).allSatisfy(r -> assertThat(r.status()).isEqualTo(CallStatus.EXPIRED));
        assertThat(calls.query(CallQuery.latest(100).status(CallStatus.EXPIRED))).extracting(CallRecord::id)
                .containsExactlyInAnyOrderElementsOf(due);
        assertThat(calls.find(decided.id()).orElseThrow().status()).as("a decided proposal is never expired")
                .isEqualTo(CallStatus.REJECTED);
        assertThat(calls.expireDue(100)).isEmpty();
    }

    // ------------------------------------------------------------------------------ interrupted (in doubt)

    @Test
    void aClaimWithoutAnOutcomeIsInterruptedOnceDueAndNeverBefore() throws Exception {
        CallRecord proposal = proposed("s1");
        calls.claim(proposal.id(), claimBy(ANN), null);
        CallRecord finished = proposed("s1");
        calls.claim(finished.id(), claimBy(ANN), null);
        calls.complete(finished.id(), new Completion(CallStatus.APPLIED, "1", null, 1L));
        CallRecord pending = proposed("s1");

        clock.advance(OUTCOME_WITHIN.minusMillis(1));
        assertThat(calls.interruptOverdue(100)).as("not due yet").isEmpty();
        clock.advance(Duration.ofMillis(1));

        List<List<CallRecord>> marked = Together.run(6, t -> calls.interruptOverdue(100));
        assertThat(marked.stream().mapToInt(List::size).sum()).as("each overdue call is marked by exactly one sweeper").isEqualTo(1);
        CallRecord interrupted = marked.stream().flatMap(List::stream).findFirst().orElseThrow();
        assertThat(interrupted.id()).isEqualTo(proposal.id());
        assertThat(interrupted.status()).isEqualTo(CallStatus.INTERRUPTED);
        assertThat(interrupted.appliedBy()).isEqualTo(ANN);
        assertThat(interrupted.completedAt()).isEqualTo(clock.instant());
        assertThat(calls.find(proposal.id())).contains(interrupted);
        assertThat(calls.find(finished.id()).orElseThrow().status()).isEqualTo(CallStatus.APPLIED);
        assertThat(calls.find(pending.id()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(calls.query(CallQuery.latest(10).status(CallStatus.INTERRUPTED))).extracting(CallRecord::id)
                .containsExactly(proposal.id());
        assertThat(calls.claim(proposal.id(), claimBy(ANN), null).status()).as("never claimable again")
                .isEqualTo(ClaimResult.Status.NOT_PENDING);
    }

    @Test
    void interruptOverdueMarksAtMostTheLimit() {
        for (int i = 0; i < 5; i++) {
            calls.claim(proposed("s1").id(), claimBy(ANN), null);
        }
        clock.advance(OUTCOME_WITHIN);
        assertThat(calls.interruptOverdue(2)).hasSize(2);
        assertThat(calls.interruptOverdue(10)).hasSize(3);
        assertThat(calls.interruptOverdue(10)).isEmpty();
    }

    @Test
    void aLateOutcomeReplacesInterruptedButNotAnOperatorsResolution() {
        CallRecord late = proposed("s1");
        calls.claim(late.id(), claimBy(ANN), null);
        CallRecord resolved = proposed("s1");
        calls.claim(resolved.id(), claimBy(ANN), null);
        clock.advance(OUTCOME_WITHIN);
        assertThat(calls.interruptOverdue(10)).hasSize(2);

        assertThat(calls.complete(late.id(), new Completion(CallStatus.APPLIED, "\"late\"", null, 50_000L))).isTrue();
        CallRecord completed = calls.find(late.id()).orElseThrow();
        assertThat(completed.status()).isEqualTo(CallStatus.APPLIED);
        assertThat(completed.resultJson()).isEqualTo("\"late\"");

        assertThat(calls.resolve(resolved.id(), new CallStore.Resolution(CallStatus.FAILED, OPS, "no row in the CRM"))).isTrue();
        assertThat(calls.resolve(resolved.id(), new CallStore.Resolution(CallStatus.APPLIED, OPS, "again"))).isFalse();
        assertThat(calls.complete(resolved.id(), new Completion(CallStatus.APPLIED, "1", null, 1L))).isFalse();
        CallRecord after = calls.find(resolved.id()).orElseThrow();
        assertThat(after.status()).isEqualTo(CallStatus.FAILED);
        assertThat(after.error()).contains("user:ops").contains("not applied").contains("no row in the CRM");
        assertThat(after.completedAt()).isEqualTo(clock.instant());
        assertThat(calls.resolve(late.id(), new CallStore.Resolution(CallStatus.FAILED, OPS, null)))
                .as("only an interrupted call resolves").isFalse();
        assertThat(calls.resolve(UUID.randomUUID().toString(), new CallStore.Resolution(CallStatus.FAILED, OPS, null))).isFalse();
    }

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

    // ------------------------------------------------------------------------------ durable executions

    /** A new run of {@code program} for ann in acme. */
    protected static ExecutionRecord newRun(String program) {
        return new ExecutionRecord(UUID.randomUUID().toString(), program, ANN, java.util.Set.of("notes.note.write"), "acme",
                "s1", null, "java", false, "{\"x\":1}", ExecutionStatus.RUNNING, 1, null, null, null, null, null, null, null,
                List.of());
    }

    /** A finished step {@code seq} of {@code run}, not yet stored. */
    protected static CallRecord step(String run, int seq) {
        return executed("ann", "s1").toBuilder().executionId(run).stepSeq(seq).build();
    }

    @Test
    void runsAreStoredFoundAndQueriedNewestFirst() {
        ExecutionRecord first = runs().create(newRun("notes.journal"));
        assertThat(first.status()).isEqualTo(ExecutionStatus.RUNNING);
        assertThat(first.attempt()).isEqualTo(1);
        assertThat(first.createdAt()).isEqualTo(clock.instant());
        assertThat(first.updatedAt()).isEqualTo(clock.instant());
        assertThat(first.principalRules()).containsExactly("notes.note.write");
        assertThat(first.inputJson()).isEqualTo("{\"x\":1}");
        assertThat(runs().find(first.id())).contains(first);
        clock.advance(Duration.ofMillis(1));
        ExecutionRecord second = runs().create(newRun("notes.other"));

        assertThat(runs().query(ExecutionQuery.latest(10))).extracting(ExecutionRecord::id).containsExactly(second.id(), first.id());
        assertThat(runs().query(ExecutionQuery.latest(10).program("notes.journal"))).extracting(ExecutionRecord::id)
                .containsExactly(first.id());
        assertThat(runs().query(ExecutionQuery.latest(10).tenant("globex"))).isEmpty();
        assertThat(runs().query(ExecutionQuery.latest(10).principal("user:ann").status(ExecutionStatus.RUNNING))).hasSize(2);
        assertThat(runs().find(UUID.randomUUID().toString())).isEmpty();
        assertThatThrownBy(() -> runs().create(newRun("x").withState(ExecutionStatus.PAUSED, 1, 1, "c")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRunMovesOnlyFromTheStateAndAttemptItIsIn() {
        ExecutionRecord run = runs().create(newRun("notes.journal"));
        assertThat(runs().pause(run.id(), 2, 3, "call-3")).as("not that attempt").isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(runs().pause(run.id(), 1, 3, "call-3")).isTrue();
        assertThat(runs().pause(run.id(), 1, 3, "call-3")).as("not running any more").isFalse();
        ExecutionRecord paused = runs().find(run.id()).orElseThrow();
        assertThat(paused.status()).isEqualTo(ExecutionStatus.PAUSED);
        assertThat(paused.pendingSeq()).isEqualTo(3);
        assertThat(paused.pendingCallId()).isEqualTo("call-3");
        assertThat(paused.updatedAt()).isEqualTo(clock.instant());

        assertThat(runs().resume(run.id(), "call-2")).as("paused on another step").isEmpty();
        ExecutionRecord resumed = runs().resume(run.id(), "call-3").orElseThrow();
        assertThat(resumed.status()).isEqualTo(ExecutionStatus.RUNNING);
        assertThat(resumed.attempt()).isEqualTo(2);
        assertThat(resumed.pendingSeq()).isNull();
        assertThat(runs().finish(run.id(), 1, ExecutionStatus.COMPLETED, "1", null, List.of())).as("a stale attempt").isFalse();
        ExecutionRecord taken = runs().takeOver(run.id(), 2).orElseThrow();
        assertThat(taken.attempt()).isEqualTo(3);
        assertThat(runs().takeOver(run.id(), 2)).isEmpty();

        clock.advance(Duration.ofSeconds(1));
        assertThat(runs().finish(run.id(), 3, ExecutionStatus.COMPLETED, "{\"ok\":true}", null, List.of("a", "b"))).isTrue();
        ExecutionRecord done = runs().find(run.id()).orElseThrow();
        assertThat(done.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(done.resultJson()).isEqualTo("{\"ok\":true}");
        assertThat(done.logs()).containsExactly("a", "b");
        assertThat(done.completedAt()).isEqualTo(clock.instant());
        assertThat(runs().finish(run.id(), 3, ExecutionStatus.FAILED, null, "x", List.of())).isFalse();
        assertThatThrownBy(() -> runs().finish(run.id(), 3, ExecutionStatus.PAUSED, null, null, List.of()))
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(runs().close(run.id(), java.util.Set.of(ExecutionStatus.PAUSED), ExecutionStatus.REJECTED, "no")).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(runs().close(run.id(), java.util.Set.of(ExecutionStatus.COMPLETED), ExecutionStatus.ROLLED_BACK, null)).isTrue();
        ExecutionRecord rolledBack = runs().find(run.id()).orElseThrow();
        assertThat(rolledBack.status()).isEqualTo(ExecutionStatus.ROLLED_BACK);
        assertThat(rolledBack.completedAt()).as("kept from when it finished").isEqualTo(done.completedAt());
        assertThat(rolledBack.resultJson()).isEqualTo("{\"ok\":true}");
    }

    @Test
    void ofConcurrentResumesAndTakeoversExactlyOneWins() throws Exception {
        ExecutionRecord run = runs().create(newRun("notes.journal"));
        runs().pause(run.id(), 1, 2, "call-2");
        List<Boolean> resumed = Together.run(16, t -> runs().resume(run.id(), "call-2").isPresent());
        assertThat(resumed).filteredOn(Boolean::booleanValue).hasSize(1);

        List<Boolean> taken = Together.run(16, t -> runs().takeOver(run.id(), 2).isPresent());
        assertThat(taken).filteredOn(Boolean::booleanValue).hasSize(1);
        List<Boolean> finished = Together.run(16, t -> runs().finish(run.id(), 3, ExecutionStatus.COMPLETED, "1", null, List.of()));
        assertThat(finished).filteredOn(Boolean::booleanValue).hasSize(1);
        assertThat(runs().find(run.id()).orElseThrow().attempt()).isEqualTo(3);
    }

    @Test
    void aStepIsLoggedOnceAndTheStepsOfARunComeInOrder() throws Exception {
        ExecutionRecord run = runs().create(newRun("notes.journal"));
        calls.record(step(run.id(), 2));
        calls.record(step(run.id(), 1));
        assertThatThrownBy(() -> calls.record(step(run.id(), 1)))
                .isInstanceOfSatisfying(StepTakenException.class, e -> {
                    assertThat(e.executionId()).isEqualTo(run.id());
                    assertThat(e.stepSeq()).isEqualTo(1);
                });
        CallRecord proposalStep = proposal("s1").toBuilder().executionId(run.id()).stepSeq(3).build();
        calls.propose(proposalStep, TTL, 100);
        assertThatThrownBy(() -> calls.propose(proposal("s1").toBuilder().executionId(run.id()).stepSeq(3).build(), TTL, 100))
                .isInstanceOf(StepTakenException.class);
        assertThatThrownBy(() -> calls.record(step(run.id(), 3))).isInstanceOf(StepTakenException.class);

        List<Boolean> logged = Together.run(8, t -> {
            try {
                calls.record(step(run.id(), 4));
                return true;
            } catch (StepTakenException e) {
                return false;
            }
        });
        assertThat(logged).filteredOn(Boolean::booleanValue).hasSize(1);
        calls.record(step("another-run", 1));

        List<CallRecord> steps = calls.query(CallQuery.latest(100).execution(run.id()));
        assertThat(steps).extracting(CallRecord::stepSeq).containsExactly(1, 2, 3, 4);
        assertThat(steps).allSatisfy(s -> assertThat(s.executionId()).isEqualTo(run.id()));
        assertThat(calls.find(proposalStep.id()).orElseThrow().stepSeq()).isEqualTo(3);
        assertThatThrownBy(() -> executed("ann", "s1").toBuilder().executionId(run.id()).build())
                .as("a step needs its seq").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCallIsRevertedOnceAcrossConcurrentRollbacks() throws Exception {
        CallRecord applied = proposed("s1");
        calls.claim(applied.id(), claimBy(ANN), null);
        calls.complete(applied.id(), new Completion(CallStatus.APPLIED, "\"done\"", null, 1L));

        List<ClaimResult> claims = Together.run(8, t -> calls.claimRevert(executed("ops", "s1").toBuilder()
                .id(UUID.randomUUID().toString()).status(CallStatus.APPLYING).reverts(applied.id()).resultJson(null)
                .build(), OUTCOME_WITHIN));
        assertThat(claims).filteredOn(c -> c.status() == ClaimResult.Status.CLAIMED).hasSize(1);
        CallRecord revert = claims.stream().filter(c -> c.status() == ClaimResult.Status.CLAIMED).findFirst().orElseThrow().record();
        assertThat(claims).filteredOn(c -> c.status() == ClaimResult.Status.NOT_PENDING)
                .allSatisfy(c -> assertThat(c.record().id()).isEqualTo(revert.id()));
        assertThat(revert.status()).isEqualTo(CallStatus.APPLYING);
        assertThat(revert.appliedAt()).isEqualTo(clock.instant());
        assertThat(revert.outcomeDueAt()).isEqualTo(clock.instant().plus(OUTCOME_WITHIN));
        assertThat(revert.reverts()).isEqualTo(applied.id());
        assertThat(calls.complete(revert.id(), new Completion(CallStatus.APPLIED, "null", null, 1L))).isTrue();

        assertThat(calls.markReverted(applied.id(), revert.id())).isTrue();
        assertThat(calls.markReverted(applied.id(), "another")).isFalse();
        assertThat(calls.find(applied.id()).orElseThrow().revertedBy()).isEqualTo(revert.id());
        assertThat(calls.find(applied.id()).orElseThrow().status()).as("never applied again").isEqualTo(CallStatus.REVERTED);
        CallRecord read = calls.record(executed("ann", "s1"));
        assertThat(calls.markReverted(read.id(), revert.id())).as("only an applied call").isFalse();
    }

    @Test
    void stalledRunsAreQuietRunningRunsWithNoStepApplying() {
        ExecutionRecord quiet = runs().create(newRun("p"));
        calls.record(step(quiet.id(), 1));
        ExecutionRecord applying = runs().create(newRun("p"));
        CallRecord claimed = calls.propose(proposal("s1").toBuilder().executionId(applying.id()).stepSeq(1).build(), TTL, 100)
                .record();
        calls.claim(claimed.id(), claimBy(ANN), null);
        ExecutionRecord paused = runs().create(newRun("p"));
        runs().pause(paused.id(), 1, 1, "c");
        clock.advance(Duration.ofMinutes(1));
        ExecutionRecord busy = runs().create(newRun("p"));
        ExecutionRecord recentStep = runs().create(newRun("p"));
        clock.advance(Duration.ofMinutes(1));
        calls.record(step(recentStep.id(), 1));
        Instant quietSince = clock.instant().minus(Duration.ofSeconds(30));

        assertThat(runs().stalled(quietSince, 10)).extracting(ExecutionRecord::id).containsExactly(quiet.id(), busy.id());
        assertThat(runs().stalled(quietSince, 1)).extracting(ExecutionRecord::id).containsExactly(quiet.id());
    }

    @Test
    void pausedRunsOnClosedStepsAreFound() {
        ExecutionRecord open = runs().create(newRun("p"));
        CallRecord openStep = calls.propose(proposal("s1").toBuilder().executionId(open.id()).stepSeq(1).build(), TTL, 100).record();
        runs().pause(open.id(), 1, 1, openStep.id());
        ExecutionRecord rejected = runs().create(newRun("p"));
        CallRecord rejectedStep = calls.propose(proposal("s1").toBuilder().executionId(rejected.id()).stepSeq(1).build(), TTL, 100)
                .record();
        runs().pause(rejected.id(), 1, 1, rejectedStep.id());
        calls.close(rejectedStep.id(), new Closure(CallStatus.REJECTED, OPS, null, null));
        assertThat(runs().pausedOnClosedSteps(10)).extracting(ExecutionRecord::id).containsExactly(rejected.id());

        clock.advance(TTL);
        assertThat(runs().pausedOnClosedSteps(10)).extracting(ExecutionRecord::id)
                .containsExactlyInAnyOrder(rejected.id(), open.id());
        assertThat(runs().pausedOnClosedSteps(1)).hasSize(1);
    }

    @Test
    void finishedRunsArePurgedAndTheStepsOfActiveRunsNever() {
        ExecutionRecord done = runs().create(newRun("p"));
        CallRecord doneStep = calls.record(step(done.id(), 1));
        runs().finish(done.id(), 1, ExecutionStatus.COMPLETED, "1", null, List.of());
        ExecutionRecord active = runs().create(newRun("p"));
        CallRecord activeStep = calls.record(step(active.id(), 1));
        runs().pause(active.id(), 1, 2, "c");
        clock.advance(Duration.ofDays(1));
        Instant cutoff = clock.instant();

        assertThat(runs().purge(cutoff, 10)).isEqualTo(1);
        assertThat(runs().find(done.id())).isEmpty();
        assertThat(runs().find(active.id())).isPresent();
        assertThat(runs().purge(cutoff, 10)).isZero();
        assertThat(calls.purge(CallStore.Purge.FINISHED_CALLS, cutoff, 100)).isEqualTo(1);
        assertThat(calls.find(doneStep.id())).isEmpty();
        assertThat(calls.find(activeStep.id())).as("its run may still replay").isPresent();
    }

    // ------------------------------------------------------------------------------ queries

    @Test
    void queriesFilterAndReturnNewestFirst() {
        CallRecord first = calls.record(executed("ann", "s1"));
        clock.advance(Duration.ofMillis(1));
        CallRecord second = calls.record(executed("bob", "s2").toBuilder().status(CallStatus.FAILED).build());
        clock.advance(Duration.ofMillis(1));
        CallRecord third = calls.record(executed("ann", "s2").toBuilder().tenantId("globex").toolName("notes.get")
                .status(CallStatus.DENIED).build());

        assertThat(calls.query(CallQuery.latest(10))).extracting(CallRecord::id).containsExactly(third.id(), second.id(), first.id());
        assertThat(calls.query(CallQuery.latest(2))).extracting(CallRecord::id).containsExactly(third.id(), second.id());
        assertThat(calls.query(CallQuery.latest(10).principal("user:ann"))).extracting(CallRecord::id)
                .containsExactly(third.id(), first.id());
        assertThat(calls.query(CallQuery.latest(10).session("s2").tenant("acme"))).extracting(CallRecord::id)
                .containsExactly(second.id());
        assertThat(calls.query(CallQuery.latest(10).tool("notes.get"))).extracting(CallRecord::id).containsExactly(third.id());
        assertThat(calls.query(CallQuery.latest(10).status(CallStatus.EXECUTED))).extracting(CallRecord::id)
                .containsExactly(first.id());
    }

    @Test
    void aPrincipalFilterWithoutAKindFindsThatIdUnderEveryKindInTheQueryItself() {
        CallRecord user = calls.record(executed("carol", "s1"));
        clock.advance(Duration.ofMillis(1));
        CallRecord app = calls.record(executed("carol", "s1").toBuilder()
                .principal(new PrincipalRef(PrincipalKind.APPLICATION, "carol")).build());
        clock.advance(Duration.ofMillis(1));
        calls.record(executed("caroline", "s1"));
        calls.record(executed("user:carol", "s1")); // an id that looks like a key (user:user:carol): not user carol
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofMillis(1));
            calls.record(executed("dave", "s1"));
        }

        assertThat(calls.query(CallQuery.latest(10).principal("carol"))).extracting(CallRecord::id)
                .containsExactly(app.id(), user.id());
        assertThat(calls.query(CallQuery.latest(10).principal("user:carol"))).extracting(CallRecord::id)
                .containsExactly(user.id());
        assertThat(calls.query(CallQuery.latest(10).principal("application:carol"))).extracting(CallRecord::id)
                .containsExactly(app.id());
        assertThat(calls.query(CallQuery.latest(1).principal("carol"))).as("the limit counts matches, not rows read")
                .extracting(CallRecord::id).containsExactly(app.id());
        assertThat(ids(pages(CallQuery.latest(1).principal("carol")))).containsExactly(app.id(), user.id());
        assertThat(calls.query(CallQuery.latest(10).principal("carol").status(CallStatus.EXECUTED).tenant("acme")))
                .hasSize(2);
        assertThat(calls.query(CallQuery.latest(10).principal("Carol"))).as("ids are exact").isEmpty();
        assertThat(calls.query(CallQuery.latest(10).principal("service:carol"))).isEmpty();
    }

    /** Every page of {@code query}, following each full page's last record as the cursor. */
    private List<List<CallRecord>> pages(CallQuery query) {
        List<List<CallRecord>> pages = new java.util.ArrayList<>();
        CallQuery next = query;
        for (int i = 0; i < 1_000; i++) {
            List<CallRecord> page = calls.query(next);
            assertThat(page.size()).as("a page holds at most the limit").isLessThanOrEqualTo(query.limit());
            if (!page.isEmpty()) {
                pages.add(page);
            }
            if (page.size() < query.limit()) {
                return pages;
            }
            // through the text form, as a client sends it back
            next = next.after(CallQuery.Cursor.decode(CallQuery.Cursor.of(page.get(page.size() - 1)).encode()));
        }
        throw new AssertionError("paging did not end: " + pages.size() + " pages");
    }

    private static List<String> ids(List<List<CallRecord>> pages) {
        return pages.stream().flatMap(List::stream).map(CallRecord::id).toList();
    }

    /** 25 calls in three bursts that share their time (10, 5, 10), ann's and bob's alternating. */
    private List<CallRecord> bursts() {
        List<CallRecord> stored = new java.util.ArrayList<>();
        int[] bursts = {10, 5, 10};
        for (int burst : bursts) {
            for (int i = 0; i < burst; i++) {
                stored.add(calls.record(executed(stored.size() % 2 == 0 ? "ann" : "bob", "s" + (stored.size() % 3))));
            }
            clock.advance(Duration.ofMillis(1));
        }
        return stored;
    }

    @Test
    void pagingWithACursorVisitsEveryCallOnceEvenWhenTimesAreEqual() {
        List<CallRecord> stored = bursts();
        List<CallRecord> all = calls.query(CallQuery.latest(100));
        assertThat(all).extracting(CallRecord::id).containsExactlyInAnyOrderElementsOf(stored.stream().map(CallRecord::id).toList());
        for (int i = 1; i < all.size(); i++) {
            CallRecord newer = all.get(i - 1);
            CallRecord older = all.get(i);
            assertThat(older.createdAt()).as("newest first").isBeforeOrEqualTo(newer.createdAt());
            if (older.createdAt().equals(newer.createdAt())) {
                assertThat(older.id()).as("equal times: by id").isGreaterThan(newer.id());
            }
        }
        assertThat(all.stream().map(CallRecord::createdAt).distinct()).as("three distinct times").hasSize(3);

        List<List<CallRecord>> single = pages(CallQuery.latest(1));
        assertThat(single).as("limit 1 walks all 25, one by one").hasSize(25);
        assertThat(ids(single)).containsExactlyElementsOf(all.stream().map(CallRecord::id).toList());
        for (int limit : new int[] {2, 3, 4, 7, 10, 24, 25, 26}) {
            List<List<CallRecord>> pages = pages(CallQuery.latest(limit));
            assertThat(ids(pages)).as("limit " + limit).containsExactlyElementsOf(all.stream().map(CallRecord::id).toList());
            assertThat(pages).as("limit " + limit).hasSize((25 + limit - 1) / limit);
        }
    }

    @Test
    void aCursorCombinesWithFiltersAndTimeBounds() {
        bursts();
        List<CallRecord> anns = calls.query(CallQuery.latest(100).principal("user:ann"));
        assertThat(anns).hasSize(13).allMatch(r -> r.principal().key().equals("user:ann"));
        assertThat(ids(pages(CallQuery.latest(2).principal("user:ann")))).containsExactlyElementsOf(anns.stream().map(CallRecord::id).toList());
        assertThat(ids(pages(CallQuery.latest(1).principal("user:bob").session("s1"))))
                .containsExactlyElementsOf(calls.query(CallQuery.latest(100).principal("user:bob").session("s1"))
                        .stream().map(CallRecord::id).toList())
                .isNotEmpty();

        List<CallRecord> all = calls.query(CallQuery.latest(100));
        Instant oldest = all.get(all.size() - 1).createdAt();
        Instant middle = oldest.plusMillis(1);
        List<CallRecord> middleBurst = calls.query(CallQuery.latest(100).from(middle).until(middle.plusMillis(1)));
        assertThat(middleBurst).hasSize(5).allMatch(r -> r.createdAt().equals(middle));
        assertThat(ids(pages(CallQuery.latest(2).from(middle).until(middle.plusMillis(1)))))
                .containsExactlyElementsOf(middleBurst.stream().map(CallRecord::id).toList());
        List<CallRecord> annsFromMiddle = calls.query(CallQuery.latest(100).principal("user:ann").from(middle));
        assertThat(annsFromMiddle).hasSize(8);
        assertThat(ids(pages(CallQuery.latest(3).principal("user:ann").from(middle))))
                .containsExactlyElementsOf(annsFromMiddle.stream().map(CallRecord::id).toList());
    }

    @Test
    void fromIsInclusiveAndUntilExclusive() {
        CallRecord first = calls.record(executed("ann", "s1"));
        clock.advance(Duration.ofMillis(1));
        CallRecord second = calls.record(executed("ann", "s1"));
        clock.advance(Duration.ofMillis(1));
        CallRecord third = calls.record(executed("ann", "s1"));
        List<CallRecord> all = calls.query(CallQuery.latest(10));
        assertThat(all).extracting(CallRecord::id).containsExactly(third.id(), second.id(), first.id());
        Instant t2 = all.get(1).createdAt();

        assertThat(calls.query(CallQuery.latest(10).from(t2))).extracting(CallRecord::id).containsExactly(third.id(), second.id());
        assertThat(calls.query(CallQuery.latest(10).from(t2.plusNanos(1000)))).extracting(CallRecord::id).containsExactly(third.id());
        assertThat(calls.query(CallQuery.latest(10).until(t2))).extracting(CallRecord::id).containsExactly(first.id());
        assertThat(calls.query(CallQuery.latest(10).until(t2.plusNanos(1000)))).extracting(CallRecord::id)
                .containsExactly(second.id(), first.id());
        assertThat(calls.query(CallQuery.latest(10).from(t2).until(t2.plusMillis(1)))).extracting(CallRecord::id)
                .containsExactly(second.id());
        assertThat(calls.query(CallQuery.latest(10).from(t2).until(t2))).as("an empty range").isEmpty();
        assertThat(calls.query(CallQuery.latest(10).from(CallQuery.MIN_TIME).until(CallQuery.MAX_TIME))).hasSize(3);
        assertThat(calls.query(CallQuery.latest(10).status(CallStatus.EXECUTED).from(t2).until(t2.plusMillis(1))))
                .extracting(CallRecord::id).containsExactly(second.id());
    }

    @Test
    void aCursorNeedNotBeAStoredCall() {
        bursts();
        List<CallRecord> all = calls.query(CallQuery.latest(100));
        assertThat(calls.query(CallQuery.latest(100).after(new CallQuery.Cursor(CallQuery.MAX_TIME, "z"))))
                .as("a cursor after every call: everything").hasSize(25);
        assertThat(calls.query(CallQuery.latest(100).after(new CallQuery.Cursor(Instant.EPOCH, "a"))))
                .as("a cursor before every call: nothing").isEmpty();
        Instant newest = all.get(0).createdAt();
        assertThat(calls.query(CallQuery.latest(100).after(new CallQuery.Cursor(newest, "0"))))
                .as("'0' sorts before every UUID: everything").hasSize(25);
        assertThat(calls.query(CallQuery.latest(100).after(new CallQuery.Cursor(newest, "g"))))
                .as("'g' sorts after every UUID: the older bursts only").hasSize(15);
        CallRecord gone = all.get(3);
        assertThat(calls.query(CallQuery.latest(100).after(new CallQuery.Cursor(gone.createdAt(), gone.id() + "0"))))
                .extracting(CallRecord::id).containsExactlyElementsOf(all.subList(4, 25).stream().map(CallRecord::id).toList());
    }

    @Test
    void theStoreClockIsTheOneClock() {
        Instant before = calls.now();
        clock.advance(Duration.ofSeconds(7));
        assertThat(Duration.between(before, calls.now())).isEqualTo(Duration.ofSeconds(7));
    }

    // ------------------------------------------------------------------------------ policy store

    @Test
    void overridesAreStoredPerScopeAndReadTogether() {
        policies.putOverride(new ModeOverride(OverrideScope.TENANT, "acme", "notes.add", Mode.ALLOW, OPS, null));
        policies.putOverride(new ModeOverride(OverrideScope.AUTOMATION, "nightly", "notes.add", Mode.DENY, OPS, null));
        policies.putOverride(new ModeOverride(OverrideScope.TENANT, "acme", "notes.add", Mode.REQUIRE_APPROVAL, ANN, null));
        policies.putOverride(new ModeOverride(OverrideScope.TENANT, "acme", "notes.edit", Mode.DENY, OPS, null));

        PolicyView view = policies.view("notes.add", "acme", "nightly");
        assertThat(view.automationOverride()).get().satisfies(o -> assertThat(o.mode()).isEqualTo(Mode.DENY));
        assertThat(view.tenantOverride()).get().satisfies(o -> {
            assertThat(o.mode()).isEqualTo(Mode.REQUIRE_APPROVAL);
            assertThat(o.setBy()).isEqualTo(ANN);
            assertThat(o.setAt()).isEqualTo(clock.instant());
        });
        assertThat(policies.view("notes.add", "globex", null)).isEqualTo(PolicyView.EMPTY);
        assertThat(policies.view("notes.add", null, null)).isEqualTo(PolicyView.EMPTY);
        assertThat(policies.overrides(OverrideScope.TENANT, "acme")).extracting(ModeOverride::toolName)
                .containsExactly("notes.add", "notes.edit");
        assertThat(policies.removeOverride(OverrideScope.TENANT, "acme", "notes.add")).isTrue();
        assertThat(policies.removeOverride(OverrideScope.TENANT, "acme", "notes.add")).isFalse();
        assertThat(policies.view("notes.add", "acme", null).tenantOverride()).isEmpty();
    }

    @Test
    void aFirstSeenReviewIsKeptAndAnOperatorsReviewReplacesIt() {
        ToolReview first = policies.reviewIfAbsent(new ToolReview("acme", "remote.lookup", "f1", ANN, null));
        assertThat(first.reviewedAt()).isEqualTo(clock.instant());
        assertThat(policies.reviewIfAbsent(new ToolReview("acme", "remote.lookup", "f2", ANN, null)).fingerprint()).isEqualTo("f1");
        assertThat(policies.view("remote.lookup", "acme", null).review()).get()
                .satisfies(r -> assertThat(r.fingerprint()).isEqualTo("f1"));

        policies.putReview(new ToolReview("acme", "remote.lookup", "f2", OPS, null));
        assertThat(policies.view("remote.lookup", "acme", null).review()).get().satisfies(r -> {
            assertThat(r.fingerprint()).isEqualTo("f2");
            assertThat(r.reviewedBy()).isEqualTo(OPS);
        });
        policies.reviewIfAbsent(new ToolReview("", "remote.lookup", "g1", ANN, null));
        assertThat(policies.view("remote.lookup", null, null).review()).get()
                .satisfies(r -> assertThat(r.fingerprint()).isEqualTo("g1"));
    }
}
