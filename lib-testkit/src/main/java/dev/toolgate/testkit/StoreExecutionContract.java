package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionQuery;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.spi.StepTakenException;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.CallStore.ClaimResult;
import dev.toolgate.spi.CallStore.Closure;
import dev.toolgate.spi.CallStore.Completion;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The store contract on durable executions: runs, their steps, reverts and their purge.
 * It is one link of the chain of superclasses of {@link StoreContractTest}, so extending that
 * one class runs every part.
 */
abstract class StoreExecutionContract extends StoreRetentionContract {

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
}
