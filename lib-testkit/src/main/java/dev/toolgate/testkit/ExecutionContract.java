package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionQuery;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.execution.Executions;
import dev.toolgate.execution.PendingAction;
import dev.toolgate.execution.Program;
import dev.toolgate.execution.RollbackResult;
import dev.toolgate.execution.UnknownExecutionException;
import dev.toolgate.execution.UnknownProgramException;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.call.PolicyDeniedException;
import dev.toolgate.call.RevertResult;
import dev.toolgate.call.SeparationOfDutiesException;
import dev.toolgate.call.StepOfExecutionException;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PermissionMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Durable executions: steps logged once, pauses for consent in the inbox, replay from the log after
 * an approval (nothing served from the log runs or is charged again), divergence, reject, rollback
 * newest first, expiry, takeover of a stalled run, and who may decide.
 */
public interface ExecutionContract extends ContractCase {

    /** Reads the book, adds two notes, reads again: three governed steps and a fourth. */
    Program JOURNAL = run -> {
        String prefix = run.input().path("prefix").asString("n");
        run.log("listing before");
        JsonNode before = run.call("notes.list", Map.of());
        run.call("notes.add", Map.of("id", prefix + "1", "text", "first"));
        run.call("notes.add", Map.of("id", prefix + "2", "text", "second"));
        JsonNode after = run.call("notes.list", Map.of());
        run.log("done");
        return Map.of("before", before.size(), "after", after.size());
    };

    private Toolgate gate() {
        return fx().gate(b -> b.program("notes.journal", JOURNAL));
    }

    private CallContext writer() {
        return fx().ctx(fx().writer);
    }

    private CallContext operator() {
        return fx().ctx(fx().approver);
    }

    private ExecutionRecord run(Toolgate gate, String id) {
        return gate.executions().find(id).orElseThrow();
    }

    @Test
    default void readsRunAtOnceAndEveryStepIsAGovernedLoggedCall() {
        Toolgate gate = fx().gate(b -> b.program("notes.count", run -> {
            run.log("counting");
            return run.call("notes.list", Map.of()).size() + run.call("notes.list", Map.of("prefix", "x")).size();
        }));
        fx().notes.put("a", "1");
        ExecutionOutcome outcome = gate.executions().start(writer(), "notes.count", "{}");

        assertThat(outcome).isInstanceOfSatisfying(ExecutionOutcome.Completed.class, c -> {
            assertThat(c.result().asInt()).isEqualTo(1);
            assertThat(c.logs()).containsExactly("counting");
        });
        List<CallRecord> steps = gate.executions().steps(outcome.executionId());
        assertThat(steps).extracting(CallRecord::stepSeq).containsExactly(1, 2);
        assertThat(steps).allSatisfy(s -> {
            assertThat(s.status()).isEqualTo(CallStatus.EXECUTED);
            assertThat(s.executionId()).isEqualTo(outcome.executionId());
            assertThat(s.principal()).isEqualTo(PrincipalRef.of(fx().writer));
            assertThat(s.tenantId()).isEqualTo("acme");
        });
        ExecutionRecord run = run(gate, outcome.executionId());
        assertThat(run.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(run.program()).isEqualTo("notes.count");
        assertThat(run.resultJson()).isEqualTo("1");
        assertThat(run.logs()).containsExactly("counting");
        assertThat(run.completedAt()).isNotNull();
        assertThat(fx().notes.reads).hasValue(2);
    }

    @Test
    default void aStepThatNeedsConsentPausesTheRunAndWaitsInTheInbox() {
        Toolgate gate = gate();
        ExecutionOutcome outcome = gate.executions().start(writer(), "notes.journal", "{\"prefix\":\"j\"}");

        assertThat(outcome).isInstanceOfSatisfying(ExecutionOutcome.Paused.class, p -> assertThat(p.pending())
                .singleElement().satisfies(a -> {
                    assertThat(a.seq()).isEqualTo(2);
                    assertThat(a.tool()).isEqualTo("notes.add");
                    assertThat(a.summary()).isEqualTo("Add note j1");
                    assertThat(a.arguments().get("id").asString()).isEqualTo("j1");
                    assertThat(a.executionId()).isEqualTo(outcome.executionId());
                }));
        ExecutionRecord run = run(gate, outcome.executionId());
        assertThat(run.status()).isEqualTo(ExecutionStatus.PAUSED);
        assertThat(run.pendingSeq()).isEqualTo(2);
        assertThat(gate.pending(operator(), null)).singleElement().satisfies(p -> {
            assertThat(p.executionId()).isEqualTo(outcome.executionId());
            assertThat(p.stepSeq()).isEqualTo(2);
            assertThat(p.callId()).isEqualTo(run.pendingCallId());
        });
        assertThat(gate.executions().pending(operator())).extracting(PendingAction::callId).containsExactly(run.pendingCallId());
        assertThat(gate.executions().pending(writer())).as("the run's own principal sees it").hasSize(1);
        assertThat(gate.executions().pending(fx().ctx(fx().reader))).isEmpty();
        assertThat(fx().notes.mutations).hasValue(0);
        assertThat(fx().notes.reads).hasValue(1);
    }

    @Test
    default void everyAttemptSeesTheRunsStartTimeAndThePrincipalsToolsAndAProgramExceptionIsRecordedAsItsMessage() {
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        Toolgate gate = fx().gate(b -> b.program("notes.clocked", run -> {
            seen.add(run.startedAt() + " " + run.tools());
            run.call("notes.add", Map.of("id", "n1", "text", "at " + run.startedAt()));
            throw new dev.toolgate.execution.ProgramException("TypeError at 2:5: x is not a function");
        }).tools("admin", dev.toolgate.tool.Tool.builder("secret", dev.toolgate.tool.NoInput.class).description("An admin's read")
                .effect(dev.toolgate.tool.Effect.READ).requires("admin.secret.read").execute((in, ctx) -> "s").build()));
        java.time.Instant start = fx().clock.instant();
        String id = gate.executions().start(writer(), "notes.clocked", "{}").executionId();
        fx().clock.advance(Duration.ofMinutes(3));
        ExecutionOutcome done = gate.executions().approve(operator(), id);

        assertThat(seen).hasSize(2).allSatisfy(line -> assertThat(line).startsWith(start + " [")
                .contains("notes.add", "notes.list").doesNotContain("admin.secret"));
        assertThat(done).isInstanceOfSatisfying(ExecutionOutcome.Failed.class,
                f -> assertThat(f.error()).isEqualTo("TypeError at 2:5: x is not a function"));
        assertThat(fx().notes.snapshot()).containsEntry("n1", "at " + start);
    }

    @Test
    default void approvingReplaysFromTheLogRunsTheApprovedStepOnceAndGoesOnToTheNextPause() {
        // the writer's own steps take exactly 4 (read, proposal, proposal, read): a re-charged replay would fail
        Toolgate gate = fx().gate(b -> b.program("notes.journal", JOURNAL).budget(ToolBudget.perPrincipal(4, Duration.ofHours(1))));
        String id = gate.executions().start(writer(), "notes.journal", "{}").executionId();
        ExecutionOutcome second = gate.executions().approve(operator(), id);

        assertThat(second).isInstanceOfSatisfying(ExecutionOutcome.Paused.class,
                p -> assertThat(p.pending()).singleElement().satisfies(a -> assertThat(a.seq()).isEqualTo(3)));
        assertThat(fx().notes.snapshot()).containsOnlyKeys("n1");
        assertThat(fx().notes.reads).as("the read of step 1 was served from the log").hasValue(1);
        assertThat(fx().notes.mutations).hasValue(1);
        List<CallRecord> steps = gate.executions().steps(id);
        assertThat(steps).extracting(CallRecord::stepSeq).containsExactly(1, 2, 3);
        assertThat(steps.get(1).status()).isEqualTo(CallStatus.APPLIED);
        assertThat(steps.get(1).appliedBy()).isEqualTo(PrincipalRef.of(fx().approver));
        assertThat(steps.get(2).status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(run(gate, id).attempt()).isEqualTo(2);

        ExecutionOutcome done = gate.executions().approve(operator(), id);
        assertThat(done).isInstanceOfSatisfying(ExecutionOutcome.Completed.class, c -> {
            assertThat(c.result().get("before").asInt()).isZero();
            assertThat(c.result().get("after").asInt()).isEqualTo(2);
            assertThat(c.logs()).containsExactly("listing before", "done");
        });
        assertThat(fx().notes.mutations).as("each approved step ran once").hasValue(2);
        assertThat(fx().notes.reads).hasValue(2);
        assertThat(run(gate, id).status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(run(gate, id).attempt()).isEqualTo(3);
    }

    @Test
    default void approvingARunThatIsNotPausedIsASafeNoOp() {
        Toolgate gate = gate();
        String id = gate.executions().start(writer().withPermissionMode(PermissionMode.AUTO), "notes.journal", "{}").executionId();
        assertThat(run(gate, id).status()).isEqualTo(ExecutionStatus.COMPLETED);
        int mutations = fx().notes.mutations.get();

        assertThat(gate.executions().approve(operator(), id)).isEqualTo(new ExecutionOutcome.NotPaused(id, ExecutionStatus.COMPLETED));
        String rejected = gate.executions().start(writer().withSession("s-2"), "notes.journal", "{\"prefix\":\"r\"}").executionId();
        assertThat(gate.executions().reject(operator(), rejected, 2, "no")).isTrue();
        assertThat(gate.executions().approve(operator(), rejected))
                .isEqualTo(new ExecutionOutcome.NotPaused(rejected, ExecutionStatus.REJECTED));
        assertThat(fx().notes.mutations).hasValue(mutations);
        assertThat(gate.executions().steps(rejected)).extracting(CallRecord::status)
                .containsExactly(CallStatus.EXECUTED, CallStatus.REJECTED);
    }

    @Test
    default void ofSixteenConcurrentApprovesExactlyOneReplays() throws Exception {
        Toolgate gate = gate();
        String id = gate.executions().start(writer(), "notes.journal", "{}").executionId();
        List<String> outcomes = Together.run(16, t -> gate.executions().approve(operator(), id, 2).status());

        assertThat(outcomes).filteredOn("paused"::equals).hasSize(1);
        assertThat(outcomes).filteredOn("not_paused"::equals).hasSize(15);
        assertThat(fx().notes.mutations).hasValue(1);
        assertThat(gate.executions().steps(id)).extracting(CallRecord::stepSeq).containsExactly(1, 2, 3);
        assertThat(run(gate, id).attempt()).as("resumed once").isEqualTo(2);
    }

    @Test
    default void approvingAStepByItsNumberNeverApprovesALaterOne() {
        Toolgate gate = gate();
        String id = gate.executions().start(writer(), "notes.journal", "{}").executionId();
        assertThat(gate.executions().approve(operator(), id, 2).status()).isEqualTo("paused");
        assertThat(gate.executions().approve(operator(), id, 2)).as("the run waits at step 3 now")
                .isEqualTo(new ExecutionOutcome.NotPaused(id, ExecutionStatus.PAUSED));
        assertThat(fx().notes.mutations).hasValue(1);
        assertThat(gate.executions().approve(operator(), id).status()).as("without a step: whatever waits").isEqualTo("completed");
    }

    @Test
    default void aReplayThatDivergesFromTheLogRunsNothingAndFailsTheRun() {
        AtomicBoolean changed = new AtomicBoolean();
        Toolgate gate = fx().gate(b -> b.program("notes.fickle", run -> {
            run.call("notes.list", Map.of("prefix", changed.get() ? "other" : "n"));
            return run.call("notes.add", Map.of("id", "n1", "text", "t"));
        }));
        String id = gate.executions().start(writer(), "notes.fickle", "{}").executionId();
        String pendingCall = run(gate, id).pendingCallId();
        changed.set(true);

        ExecutionOutcome outcome = gate.executions().approve(operator(), id);
        assertThat(outcome).isInstanceOfSatisfying(ExecutionOutcome.Failed.class, f -> assertThat(f.error())
                .startsWith("replay diverged at step 1: the log holds notes.list").contains("nothing was run"));
        assertThat(fx().notes.mutations).hasValue(0);
        assertThat(fx().notes.reads).hasValue(1);
        ExecutionRecord run = run(gate, id);
        assertThat(run.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(run.error()).startsWith("replay diverged at step 1");
        assertThat(fx().store.calls().find(pendingCall).orElseThrow().status()).as("out of the inbox").isEqualTo(CallStatus.REJECTED);
        assertThat(gate.pending(operator(), null)).isEmpty();
    }

    @Test
    default void aDivergenceAtTheApprovedStepItselfRunsNothing() {
        AtomicInteger calls = new AtomicInteger();
        Toolgate gate = fx().gate(b -> b.program("notes.shifty", run ->
                run.call("notes.add", Map.of("id", "n" + calls.incrementAndGet(), "text", "t"))));
        String id = gate.executions().start(writer(), "notes.shifty", "{}").executionId();
        assertThat(gate.executions().approve(operator(), id)).isInstanceOfSatisfying(ExecutionOutcome.Failed.class,
                f -> assertThat(f.error()).startsWith("replay diverged at step 1: the log holds notes.add"));
        assertThat(fx().notes.mutations).hasValue(0);
    }

    @Test
    default void rejectEndsTheRunOnlyIfTheStepIsStillPendingAndUndoesNothing() {
        Toolgate gate = gate();
        String id = gate.executions().start(writer(), "notes.journal", "{}").executionId();
        gate.executions().approve(operator(), id); // n1 applied, paused at step 3

        assertThat(gate.executions().reject(operator(), id, 2, "wrong step")).isFalse();
        assertThat(gate.executions().reject(operator(), id, 3, "enough")).isTrue();
        assertThat(gate.executions().reject(operator(), id, 3, "again")).isFalse();
        ExecutionRecord run = run(gate, id);
        assertThat(run.status()).isEqualTo(ExecutionStatus.REJECTED);
        assertThat(run.error()).contains("step 3 rejected by user:approver").contains("enough");
        assertThat(fx().notes.snapshot()).containsOnlyKeys("n1");
        assertThat(gate.pending(operator(), null)).isEmpty();
    }

    @Test
    default void theInboxApprovesAndRejectsStepsThroughTheirRun() {
        Toolgate gate = gate();
        String id = gate.executions().start(writer(), "notes.journal", "{}").executionId();
        PendingProposal step = gate.pending(operator(), null).get(0);

        assertThat(gate.approve(operator(), step.callId(), Approval.once()))
                .isEqualTo(new InboxResult.Resumed(step.callId(), id, "paused"));
        PendingProposal next = gate.pending(operator(), null).get(0);
        assertThat(next.stepSeq()).isEqualTo(3);
        assertThatThrownBy(() -> gate.edit(operator(), next.callId(), "{\"id\":\"x\",\"text\":\"y\"}"))
                .isInstanceOf(StepOfExecutionException.class);
        assertThat(gate.reject(operator(), next.callId(), "stop")).isEqualTo(new InboxResult.Rejected(next.callId(), "stop"));
        assertThat(run(gate, id).status()).isEqualTo(ExecutionStatus.REJECTED);
        assertThat(gate.reject(operator(), next.callId(), "stop"))
                .isEqualTo(new InboxResult.NotPending(next.callId(), CallStatus.REJECTED));
    }

    @Test
    default void rollbackRevertsAppliedStepsNewestFirstOnceAndSkipsWhatCannotBeReverted() {
        Toolgate gate = fx().gate(b -> b.program("notes.many", run -> {
            run.call("notes.add", Map.of("id", "a", "text", "t"));
            run.call("notes.list", Map.of());
            run.call("notes.add", Map.of("id", "b", "text", "unrevertable"));
            run.call("notes.edit", Map.of("id", "a", "text", "changed"));
            run.call("notes.add", Map.of("id", "c", "text", "t"));
            return "ok";
        }));
        CallContext auto = writer().withPermissionMode(PermissionMode.AUTO);
        String id = gate.executions().start(auto, "notes.many", "{}").executionId();
        assertThat(run(gate, id).status()).isEqualTo(ExecutionStatus.COMPLETED);

        RollbackResult first = gate.executions().rollback(operator(), id);
        assertThat(first.status()).isEqualTo(ExecutionStatus.ROLLED_BACK);
        assertThat(first.reverts()).extracting(RevertResult::outcome).containsExactly(
                RevertResult.Outcome.REVERTED,   // step 5: add c
                RevertResult.Outcome.SKIPPED,    // step 4: edit has no revert
                RevertResult.Outcome.FAILED,     // step 3: add b, whose revert throws
                RevertResult.Outcome.REVERTED);  // step 1: add a
        assertThat(first.reverts().get(2).message()).contains("cannot take back b").doesNotContain("hunter2");
        assertThat(fx().notes.revertOrder).containsExactly("c", "b", "a");
        assertThat(fx().notes.snapshot()).containsOnlyKeys("b");
        List<CallRecord> steps = gate.executions().steps(id);
        assertThat(steps.get(0).revertedBy()).isNotNull();
        assertThat(steps.get(4).revertedBy()).isNotNull();
        assertThat(steps.get(2).revertedBy()).isNull();
        CallRecord revert = fx().store.calls().find(steps.get(0).revertedBy()).orElseThrow();
        assertThat(revert.reverts()).isEqualTo(steps.get(0).id());
        assertThat(revert.status()).isEqualTo(CallStatus.APPLIED);
        assertThat(revert.principal()).isEqualTo(PrincipalRef.of(fx().approver));

        RollbackResult second = gate.executions().rollback(operator(), id);
        assertThat(second.reverted()).as("a second rollback reverts nothing").isZero();
        assertThat(fx().notes.reverts).hasValue(3);
    }

    @Test
    default void rollingBackAPausedRunRejectsItsPendingStepFirst() {
        Toolgate gate = gate();
        String id = gate.executions().start(writer(), "notes.journal", "{}").executionId();
        gate.executions().approve(operator(), id);
        String pending = run(gate, id).pendingCallId();

        RollbackResult result = gate.executions().rollback(writer(), id);
        assertThat(result.reverted()).isEqualTo(1);
        assertThat(fx().notes.snapshot()).isEmpty();
        assertThat(fx().store.calls().find(pending).orElseThrow().status()).isEqualTo(CallStatus.REJECTED);
        assertThat(gate.executions().approve(operator(), id)).isEqualTo(new ExecutionOutcome.NotPaused(id, ExecutionStatus.ROLLED_BACK));
        assertThat(fx().notes.mutations).hasValue(1);
    }

    @Test
    default void aDeniedStepThrowsTheTypedDenialIntoTheProgramWhichMayCatchItAlsoOnReplay() {
        Toolgate gate = fx().gate(b -> b.program("notes.careful", run -> {
            String purge;
            try {
                purge = run.call("notes.purge", Map.of("id", "x")).asString();
            } catch (PolicyDeniedException e) {
                purge = "denied: " + e.denied().reason();
            }
            run.call("notes.add", Map.of("id", "n1", "text", "t"));
            return purge;
        }));
        gate.setMode(operator(), OverrideScope.TENANT, "notes.purge", Mode.DENY);
        String id = gate.executions().start(writer(), "notes.careful", "{}").executionId();
        assertThat(gate.executions().steps(id).get(0).status()).isEqualTo(CallStatus.DENIED);

        ExecutionOutcome done = gate.executions().approve(operator(), id);
        assertThat(done).isInstanceOfSatisfying(ExecutionOutcome.Completed.class,
                c -> assertThat(c.result().asString()).isEqualTo("denied: policy"));
        assertThat(gate.executions().steps(id)).extracting(CallRecord::status).containsExactly(CallStatus.DENIED, CallStatus.APPLIED);
    }

    @Test
    default void aProgramThatThrowsOrAStepRefusedBeforeItIsLoggedFailsTheRun() {
        Toolgate gate = fx().gate(b -> b.program("notes.broken", run -> {
            run.call("notes.list", Map.of());
            throw new IllegalStateException("bad program, token=abc123");
        }).program("notes.forbidden", run -> {
            run.call("admin.secret", Map.of());
            return "unreachable";
        }).program("notes.badargs", run -> {
            try {
                run.call("notes.add", Map.of("id", "n1"));
            } catch (RuntimeException swallowed) {
                // a program cannot go on past a refused step
            }
            return run.call("notes.list", Map.of());
        }));
        ExecutionOutcome broken = gate.executions().start(writer(), "notes.broken", "{}");
        assertThat(broken).isInstanceOfSatisfying(ExecutionOutcome.Failed.class, f -> assertThat(f.error()).as("for a model: "
                + "no class name, no secret").startsWith("bad program").doesNotContain("abc123").doesNotContain("Exception"));
        assertThat(run(gate, broken.executionId()).error()).startsWith("IllegalStateException: bad program");
        assertThat(gate.executions().start(writer(), "notes.forbidden", "{}"))
                .isInstanceOfSatisfying(ExecutionOutcome.Failed.class, f -> assertThat(f.error()).startsWith("step 1 was refused"));
        ExecutionOutcome badArgs = gate.executions().start(writer(), "notes.badargs", "{}");
        assertThat(badArgs).isInstanceOfSatisfying(ExecutionOutcome.Failed.class,
                f -> assertThat(f.error()).startsWith("step 1 was refused: Invalid input for notes.add"));
        assertThat(gate.executions().steps(badArgs.executionId())).as("nothing was logged for the refused step").isEmpty();
        assertThat(run(gate, broken.executionId()).status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(gate.executions().executions(ExecutionQuery.latest(10).status(ExecutionStatus.FAILED))).hasSize(3);
    }

    @Test
    default void aPausedRunWhoseStepExpiresEndsExpired() {
        Toolgate gate = gate();
        String id = gate.executions().start(writer(), "notes.journal", "{}").executionId();
        fx().clock.advance(Duration.ofHours(24));
        gate.sweep();

        assertThat(run(gate, id).status()).isEqualTo(ExecutionStatus.EXPIRED);
        assertThat(run(gate, id).error()).contains("step 2 expired");
        assertThat(gate.executions().approve(operator(), id)).isEqualTo(new ExecutionOutcome.NotPaused(id, ExecutionStatus.EXPIRED));
        assertThat(fx().notes.mutations).hasValue(0);
    }

    @Test
    default void onlyTheRunsPrincipalOrAnOperatorDecidesWithSeparationOfDutiesWhenAsked() {
        Toolgate gate = gate();
        String id = gate.executions().start(writer(), "notes.journal", "{}").executionId();
        Principal stranger = Principal.user("stranger", Notes.READ, Notes.WRITE);

        assertThatThrownBy(() -> gate.executions().approve(fx().ctx(stranger), id)).isInstanceOf(ForbiddenException.class);
        assertThatThrownBy(() -> gate.executions().reject(fx().ctx(stranger), id, 2, null)).isInstanceOf(ForbiddenException.class);
        assertThatThrownBy(() -> gate.executions().rollback(fx().ctx(stranger), id)).isInstanceOf(ForbiddenException.class);
        assertThatThrownBy(() -> gate.executions().approve(operator().withTenant("globex"), id))
                .isInstanceOf(UnknownExecutionException.class);
        assertThatThrownBy(() -> gate.executions().start(writer(), "no.such", "{}")).isInstanceOf(UnknownProgramException.class);
        assertThat(run(gate, id).status()).isEqualTo(ExecutionStatus.PAUSED);
        assertThat(gate.executions().approve(writer(), id).status()).as("the run's own principal consents").isEqualTo("paused");

        Toolgate strict = fx().gate(b -> b.program("notes.journal", JOURNAL).requireDistinctApprover(true));
        String mine = strict.executions().start(writer().withSession("s-3"), "notes.journal", "{\"prefix\":\"m\"}").executionId();
        assertThatThrownBy(() -> strict.executions().approve(writer(), mine)).isInstanceOf(SeparationOfDutiesException.class);
        assertThat(strict.executions().find(mine).orElseThrow().status()).isEqualTo(ExecutionStatus.PAUSED);
        assertThat(strict.executions().approve(operator(), mine).status()).isEqualTo("paused");
    }

    @Test
    default void aRunWhoseInstanceStoppedBetweenStepsIsTakenOverAndReplayed() {
        AtomicBoolean crash = new AtomicBoolean(true);
        Toolgate gate = fx().gate(b -> b.program("notes.crashy", run -> {
            JsonNode first = run.call("notes.list", Map.of());
            if (crash.get()) {
                throw new OutOfMemoryError("simulated: the instance dies here");
            }
            run.call("notes.list", Map.of("prefix", "n"));
            return first.size();
        }).executionTimeout(Duration.ofSeconds(5)));
        assertThatThrownBy(() -> gate.executions().start(writer(), "notes.crashy", "{}")).isInstanceOf(OutOfMemoryError.class);
        ExecutionRecord stalled = gate.executions().executions(ExecutionQuery.latest(1)).get(0);
        assertThat(stalled.status()).isEqualTo(ExecutionStatus.RUNNING);
        crash.set(false);

        gate.sweep();
        assertThat(run(gate, stalled.id()).status()).as("not quiet long enough yet").isEqualTo(ExecutionStatus.RUNNING);
        fx().clock.advance(Duration.ofMinutes(2)); // past the longest tool timeout (20 s) and the grace
        gate.sweep();

        ExecutionRecord done = run(gate, stalled.id());
        assertThat(done.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(fx().notes.reads).as("step 1 was served from the log").hasValue(2);
        assertThat(gate.executions().steps(stalled.id())).extracting(CallRecord::stepSeq).containsExactly(1, 2);
    }

    @Test
    default void aRunWhoseStepIsInDoubtEndsInterruptedAndNothingIsReRun() {
        Toolgate gate = fx().gate(b -> b.program("notes.held", run -> run.call("notes.add", Map.of("id", "h", "text", "t")))
                .executionTimeout(Duration.ofSeconds(5)));
        String id = gate.executions().start(writer().withPermissionMode(PermissionMode.APPROVE), "notes.held", "{}").executionId();
        ExecutionRecord paused = run(gate, id);
        // an approval that died right after claiming the step
        fx().store.executions().resume(id, paused.pendingCallId());
        fx().store.calls().claim(paused.pendingCallId(), new dev.toolgate.spi.CallStore.Claim(PrincipalRef.of(fx().approver),
                null, null, Duration.ofSeconds(35)), null);
        fx().clock.advance(Duration.ofMinutes(5));
        gate.sweep();
        fx().clock.advance(Duration.ofMinutes(5));
        gate.sweep();

        ExecutionRecord run = run(gate, id);
        assertThat(run.status()).isEqualTo(ExecutionStatus.INTERRUPTED);
        assertThat(run.error()).contains("step 1").contains("in doubt");
        assertThat(fx().notes.mutations).hasValue(0);
    }

    @Test
    default void everyStepIsLoggedOnceAndTheRunRecordKeepsWhatAReplayNeeds() {
        Toolgate gate = gate();
        Executions executions = gate.executions();
        String id = executions.start(writer().withAutomation("nightly"), "notes.journal", "{\"prefix\":\"p\"}").executionId();
        ExecutionRecord run = run(gate, id);
        assertThat(run.inputJson()).isEqualTo("{\"prefix\":\"p\"}");
        assertThat(run.principal()).isEqualTo(PrincipalRef.of(fx().writer));
        assertThat(run.principalRules()).containsExactlyInAnyOrder(Notes.READ, Notes.WRITE);
        assertThat(run.automationId()).isEqualTo("nightly");
        assertThatThrownBy(() -> fx().store.calls().record(executions.steps(id).get(0).toBuilder().id("another").build()))
                .isInstanceOf(dev.toolgate.spi.StepTakenException.class);
        assertThat(executions.programs()).containsExactly("notes.journal");
    }
}
