package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.CallStore.ClaimResult;
import dev.toolgate.spi.CallStore.Closure;
import dev.toolgate.spi.CallStore.Completion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The store contract on how pending and applying calls end: closed, expired by the sweeper, interrupted when in doubt.
 * It is one link of the chain of superclasses of {@link StoreContractTest}, so extending that
 * one class runs every part.
 */
abstract class StoreLifecycleContract extends StoreBudgetContract {

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
}
