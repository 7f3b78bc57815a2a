package dev.toolgate.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionQuery;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.BudgetLimit;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.spi.CallStore.Claim;
import dev.toolgate.spi.CallStore.ClaimResult;
import dev.toolgate.spi.CallStore.Closure;
import dev.toolgate.spi.CallStore.Completion;
import dev.toolgate.spi.CallStore.ProposeResult;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The in-memory store's bounds: what it evicts, in which order, and what it never evicts. */
class InMemoryStoreBoundsTest {

    private static final PrincipalRef ANN = new PrincipalRef(PrincipalKind.USER, "ann");
    private static final PrincipalRef OPS = new PrincipalRef(PrincipalKind.USER, "ops");
    private static final Duration LONG_TTL = Duration.ofDays(30);
    private static final Duration OUTCOME_WITHIN = Duration.ofSeconds(40);

    private final TestClock clock = new TestClock();

    private InMemoryStore store(int maxFinishedCalls) {
        return InMemoryStore.builder().clock(clock).maxFinishedCalls(maxFinishedCalls).build();
    }

    // ------------------------------------------------------------------------------ configuration

    @Test
    void theBoundsHaveDefaultsAndComeFromTheBuilderOrTheSettings() {
        assertThat(new InMemoryStore().maxFinishedCalls()).isEqualTo(InMemoryStore.DEFAULT_MAX_FINISHED_CALLS).isEqualTo(50_000);
        assertThat(new InMemoryStore(clock).maxFinishedExecutions()).isEqualTo(InMemoryStore.DEFAULT_MAX_FINISHED_EXECUTIONS);
        InMemoryStore built = InMemoryStore.builder().maxFinishedCalls(7).maxFinishedExecutions(3).build();
        assertThat(built.maxFinishedCalls()).isEqualTo(7);
        assertThat(built.maxFinishedExecutions()).isEqualTo(3);
        InMemoryStore fromSettings = InMemoryStore.builder().settings(StoreSettings.only(Map.of(
                InMemoryStore.MAX_FINISHED_CALLS, "1234", InMemoryStore.MAX_FINISHED_EXECUTIONS, "56"))).build();
        assertThat(fromSettings.maxFinishedCalls()).isEqualTo(1234);
        assertThat(fromSettings.maxFinishedExecutions()).isEqualTo(56);
        assertThat(InMemoryStore.builder().maxFinishedCalls(9).settings(StoreSettings.only(Map.of())).build().maxFinishedCalls())
                .as("unset keys keep what the builder has").isEqualTo(9);
        assertThatThrownBy(() -> InMemoryStore.builder().maxFinishedCalls(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InMemoryStore.builder().maxFinishedExecutions(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InMemoryStore.builder().settings(StoreSettings.only(Map.of(InMemoryStore.MAX_FINISHED_CALLS, "0"))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InMemoryStore.builder().clock(null)).isInstanceOf(NullPointerException.class);
    }

    // ------------------------------------------------------------------------------ finished calls

    @Test
    void finishedCallsBeyondTheCapAreEvictedOldestFirstAndPendingOrInDoubtNever() {
        InMemoryStore store = store(100);
        CallStore calls = store.calls();
        CallRecord pending = calls.propose(proposal("s1"), LONG_TTL, 10).record();
        CallRecord inDoubt = calls.propose(proposal("s1"), LONG_TTL, 10).record();
        calls.claim(inDoubt.id(), claimBy(ANN), null);
        clock.advance(OUTCOME_WITHIN);
        assertThat(calls.interruptOverdue(10)).extracting(CallRecord::id).containsExactly(inDoubt.id());
        CallRecord applying = calls.propose(proposal("s1"), LONG_TTL, 10).record();
        calls.claim(applying.id(), new Claim(ANN, null, null, Duration.ofDays(1)), null);

        List<String> ids = new ArrayList<>();
        List<CallStatus> statuses = List.of(CallStatus.EXECUTED, CallStatus.FAILED, CallStatus.INVALID, CallStatus.DENIED);
        for (int i = 0; i < 10_000; i++) {
            clock.advance(Duration.ofMillis(1));
            ids.add(calls.record(executed("ann", "s" + (i % 50)).toBuilder().status(statuses.get(i % 4)).build()).id());
        }

        InMemoryStore.Sizes sizes = store.sizes();
        assertThat(sizes.calls()).as("the cap plus the pending, in-doubt and applying calls").isEqualTo(103);
        assertThat(sizes.finishedLine()).isEqualTo(100);
        assertThat(sizes.newestFirst()).isEqualTo(103);
        assertThat(sizes.applying()).isEqualTo(1);
        assertThat(sizes.stepIndex()).isZero();
        List<String> newest = ids.subList(ids.size() - 100, ids.size());
        assertThat(newest).allSatisfy(id -> assertThat(calls.find(id)).isPresent());
        assertThat(ids.subList(0, ids.size() - 100)).allSatisfy(id -> assertThat(calls.find(id)).isEmpty());
        assertThat(calls.query(CallQuery.latest(CallQuery.MAX_LIMIT))).hasSize(103);
        List<String> newestFirst = new ArrayList<>(newest);
        java.util.Collections.reverse(newestFirst);
        assertThat(calls.query(CallQuery.latest(100))).extracting(CallRecord::id).containsExactlyElementsOf(newestFirst);

        assertThat(calls.find(pending.id()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(calls.countPending("s1")).isEqualTo(1);
        assertThat(calls.find(inDoubt.id()).orElseThrow().status()).as("in doubt, still").isEqualTo(CallStatus.INTERRUPTED);
        assertThat(calls.query(CallQuery.latest(10).status(CallStatus.INTERRUPTED))).extracting(CallRecord::id)
                .containsExactly(inDoubt.id());
        assertThat(calls.find(applying.id()).orElseThrow().status()).isEqualTo(CallStatus.APPLYING);

        // the pending proposal created first can still be applied, and then counts as the newest finished call
        assertThat(calls.claim(pending.id(), claimBy(ANN), null).status()).isEqualTo(ClaimResult.Status.CLAIMED);
        assertThat(calls.complete(pending.id(), new Completion(CallStatus.APPLIED, "1", null, 1L))).isTrue();
        assertThat(calls.find(pending.id()).orElseThrow().status()).isEqualTo(CallStatus.APPLIED);
        assertThat(calls.find(newest.get(0))).as("the oldest kept made room").isEmpty();
        assertThat(calls.find(newest.get(1))).isPresent();

        // the applying call's late outcome still lands, and an in-doubt call leaves only once resolved
        assertThat(calls.complete(applying.id(), new Completion(CallStatus.APPLIED, "2", null, 1L))).isTrue();
        assertThat(calls.resolve(inDoubt.id(), new CallStore.Resolution(CallStatus.FAILED, OPS, "checked"))).isTrue();
        assertThat(calls.find(inDoubt.id()).orElseThrow().status()).isEqualTo(CallStatus.FAILED);
        for (int i = 0; i < 100; i++) {
            calls.record(executed("ann", "s1"));
        }
        assertThat(calls.find(inDoubt.id())).isEmpty();
        assertThat(calls.find(pending.id())).isEmpty();
        assertThat(store.sizes().calls()).isEqualTo(100);
        assertThat(store.sizes().newestFirst()).isEqualTo(100);
        assertThat(store.sizes().applying()).isZero();
    }

    @Test
    void proposalsThatClosedCountAndLeaveTheirSessionsAndIndexes() {
        InMemoryStore store = store(50);
        CallStore calls = store.calls();
        List<String> closed = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            CallRecord p = calls.propose(proposal("chat-" + i), Duration.ofMinutes(10), 1).record();
            switch (i % 3) {
                case 0 -> calls.close(p.id(), new Closure(CallStatus.REJECTED, OPS, "no", null));
                case 1 -> calls.close(p.id(), new Closure(CallStatus.SUPERSEDED, OPS, null, "other"));
                default -> {
                    clock.advance(Duration.ofMinutes(10));
                    assertThat(calls.expireDue(10)).hasSize(1);
                }
            }
            closed.add(p.id());
        }
        assertThat(store.sizes().calls()).isEqualTo(50);
        assertThat(store.sizes().newestFirst()).isEqualTo(50);
        assertThat(closed.subList(0, 250)).allSatisfy(id -> assertThat(calls.find(id)).isEmpty());
        assertThat(closed.subList(250, 300)).allSatisfy(id -> assertThat(calls.find(id)).isPresent());
        assertThat(calls.countPending("chat-299")).isZero();
        assertThat(calls.claim(closed.get(0), claimBy(ANN), null).status()).isEqualTo(ClaimResult.Status.NOT_FOUND);
        assertThat(calls.propose(proposal("chat-0"), LONG_TTL, 1).status()).as("its session's cap is exact again")
                .isEqualTo(ProposeResult.Status.PROPOSED);
        assertThat(calls.propose(proposal("chat-0"), LONG_TTL, 1).status()).isEqualTo(ProposeResult.Status.PENDING_LIMIT);
    }

    @Test
    void revertsLeaveTheirIndexWithThem() {
        InMemoryStore store = store(10);
        CallStore calls = store.calls();
        for (int i = 0; i < 20; i++) {
            CallRecord applied = calls.propose(proposal("s1"), LONG_TTL, 100).record();
            calls.claim(applied.id(), claimBy(ANN), null);
            calls.complete(applied.id(), new Completion(CallStatus.APPLIED, "1", null, 1L));
            CallRecord revert = calls.claimRevert(executed("ops", "s1").toBuilder().status(CallStatus.APPLYING)
                    .reverts(applied.id()).resultJson(null).build(), OUTCOME_WITHIN).record();
            calls.complete(revert.id(), new Completion(CallStatus.APPLIED, "null", null, 1L));
            calls.markReverted(applied.id(), revert.id());
        }
        assertThat(store.sizes().revertIndex()).isEqualTo(5);
        for (int i = 0; i < 10; i++) {
            calls.record(executed("ann", "s1"));
        }
        assertThat(store.sizes().calls()).isEqualTo(10);
        assertThat(store.sizes().revertIndex()).isZero();
    }

    @Test
    void purgedCallsLeaveAStaleIdInTheLineThatIsSkipped() {
        InMemoryStore store = store(20);
        CallStore calls = store.calls();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add(calls.record(executed("ann", "s1")).id());
            clock.advance(Duration.ofMillis(1));
        }
        assertThat(calls.purge(CallStore.Purge.FINISHED_CALLS, clock.instant(), 5)).isEqualTo(5);
        for (int i = 0; i < 10; i++) {
            calls.record(executed("ann", "s1"));
        }
        // the five purged ids came up first and were skipped; five kept ones made room for the rest
        assertThat(store.sizes().calls()).isEqualTo(20);
        assertThat(ids.subList(10, 20)).allSatisfy(id -> assertThat(calls.find(id)).isPresent());
        assertThat(store.sizes().finishedLine()).isEqualTo(20);
    }

    // ------------------------------------------------------------------------------ executions

    @Test
    void theStepsOfARunningOrPausedRunStayUntilItEnds() {
        InMemoryStore store = store(100);
        CallStore calls = store.calls();
        ExecutionStore runs = store.executions();
        ExecutionRecord run = runs.create(newRun());
        ExecutionRecord paused = runs.create(newRun());
        calls.record(step(paused.id(), 1));
        runs.pause(paused.id(), 1, 2, "c-2");
        for (int seq = 1; seq <= 500; seq++) {
            calls.record(step(run.id(), seq));
        }
        for (int i = 0; i < 300; i++) {
            calls.record(executed("ann", "s1"));
        }
        assertThat(calls.query(CallQuery.latest(CallQuery.MAX_LIMIT).execution(run.id()))).hasSize(500);
        assertThat(calls.query(CallQuery.latest(10).execution(paused.id()))).hasSize(1);
        assertThat(store.sizes().parkedSteps()).isEqualTo(501);
        assertThat(store.sizes().calls()).isEqualTo(601);
        assertThatThrownBy(() -> calls.record(step(run.id(), 7))).as("still logged once").isInstanceOf(StepTakenException.class);

        assertThat(runs.finish(run.id(), 1, ExecutionStatus.COMPLETED, "1", null, List.of())).isTrue();
        assertThat(store.sizes().parkedSteps()).as("back in line, newest").isEqualTo(1);
        assertThat(calls.query(CallQuery.latest(CallQuery.MAX_LIMIT).execution(run.id()))).hasSize(100);
        for (int i = 0; i < 100; i++) {
            calls.record(executed("ann", "s1"));
        }
        assertThat(calls.query(CallQuery.latest(CallQuery.MAX_LIMIT).execution(run.id()))).isEmpty();
        assertThat(calls.query(CallQuery.latest(10).execution(paused.id()))).hasSize(1);
        assertThat(runs.close(paused.id(), Set.of(ExecutionStatus.PAUSED), ExecutionStatus.EXPIRED, "expired")).isTrue();
        assertThat(store.sizes().parkedSteps()).isZero();
        for (int i = 0; i < 100; i++) {
            calls.record(executed("ann", "s1"));
        }
        assertThat(calls.query(CallQuery.latest(10).execution(paused.id()))).isEmpty();
        InMemoryStore.Sizes sizes = store.sizes();
        assertThat(sizes.parkedSteps()).isZero();
        assertThat(sizes.stepIndex()).isZero();
        assertThat(sizes.calls()).isEqualTo(100);
    }

    @Test
    void finishedRunsBeyondTheirCapAreEvictedOldestFirstAndActiveOnesNever() {
        InMemoryStore store = InMemoryStore.builder().clock(clock).maxFinishedExecutions(10).build();
        ExecutionStore runs = store.executions();
        ExecutionRecord running = runs.create(newRun());
        ExecutionRecord paused = runs.create(newRun());
        runs.pause(paused.id(), 1, 1, "c");
        List<String> finished = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            clock.advance(Duration.ofMillis(1));
            ExecutionRecord run = runs.create(newRun());
            runs.finish(run.id(), 1, i % 2 == 0 ? ExecutionStatus.COMPLETED : ExecutionStatus.FAILED, null, "x", List.of("log"));
            finished.add(run.id());
            // a rollback of a finished run does not queue it twice
            runs.close(run.id(), Set.of(ExecutionStatus.COMPLETED), ExecutionStatus.ROLLED_BACK, null);
        }
        assertThat(store.sizes().executions()).isEqualTo(12);
        assertThat(store.sizes().finishedRuns()).isEqualTo(10);
        assertThat(finished.subList(0, 40)).allSatisfy(id -> assertThat(runs.find(id)).isEmpty());
        assertThat(finished.subList(40, 50)).allSatisfy(id -> assertThat(runs.find(id)).isPresent());
        assertThat(runs.find(running.id()).orElseThrow().status()).isEqualTo(ExecutionStatus.RUNNING);
        assertThat(runs.find(paused.id()).orElseThrow().status()).isEqualTo(ExecutionStatus.PAUSED);
        assertThat(runs.query(ExecutionQuery.latest(1_000))).hasSize(12);

        assertThat(runs.close(paused.id(), Set.of(ExecutionStatus.PAUSED), ExecutionStatus.REJECTED, "no")).isTrue();
        assertThat(runs.find(paused.id())).as("the newest finished run").isPresent();
        assertThat(runs.find(finished.get(40))).isEmpty();
        assertThat(store.sizes().executions()).isEqualTo(11);
    }

    // ------------------------------------------------------------------------------ per-client rows

    @Test
    void idleSessionRowsAreDroppedAndSessionsWithPendingProposalsKept() {
        InMemoryStore store = store(1_000);
        CallStore calls = store.calls();
        for (int i = 0; i < 20; i++) {
            calls.propose(proposal("busy-" + i), LONG_TTL, 2);
        }
        for (int i = 0; i < 35_000; i++) {
            CallRecord p = calls.propose(proposal("chat-" + i), LONG_TTL, 2).record();
            calls.close(p.id(), new Closure(CallStatus.REJECTED, OPS, null, null));
            if (i % 100 == 0) {
                assertThat(store.sizes().sessions()).isLessThanOrEqualTo(InMemoryStore.IDLE_ROWS + 1);
            }
        }
        assertThat(store.sizes().sessions()).isLessThanOrEqualTo(InMemoryStore.IDLE_ROWS + 1);
        for (int i = 0; i < 20; i++) {
            assertThat(calls.countPending("busy-" + i)).isEqualTo(1);
            assertThat(calls.propose(proposal("busy-" + i), LONG_TTL, 2).status()).isEqualTo(ProposeResult.Status.PROPOSED);
            assertThat(calls.propose(proposal("busy-" + i), LONG_TTL, 2).status()).as("the cap still holds")
                    .isEqualTo(ProposeResult.Status.PENDING_LIMIT);
        }
        assertThat(store.sizes().calls()).isEqualTo(1_000 + 40);
    }

    @Test
    void budgetRowsWhoseWindowIsOverAreDroppedAndTheBudgetStaysExact() {
        InMemoryStore store = store(1_000);
        CallStore calls = store.calls();
        BudgetLimit onePerSecond = BudgetLimit.of(1, Duration.ofSeconds(1));
        BudgetLimit twoPerHour = BudgetLimit.of(2, Duration.ofHours(1));
        calls.admit(new BudgetCharge("user:hourly", twoPerHour));
        for (int i = 0; i < 40_000; i++) {
            calls.admit(new BudgetCharge("user:p" + i, onePerSecond));
            clock.advance(Duration.ofMillis(1));
            assertThat(store.sizes().ledgers()).isLessThanOrEqualTo(InMemoryStore.IDLE_ROWS + 1);
        }
        // 40 s later: the hourly principal's window is not over, so its row stayed and its admission counts
        calls.admit(new BudgetCharge("user:hourly", twoPerHour));
        assertThatThrownBy(() -> calls.admit(new BudgetCharge("user:hourly", twoPerHour)))
                .isInstanceOf(BudgetExceededException.class);
        String recent = "user:p" + 39_999;
        assertThatThrownBy(() -> calls.admit(new BudgetCharge(recent, onePerSecond))).as("inside its window")
                .isInstanceOf(BudgetExceededException.class);
        clock.advance(Duration.ofSeconds(1));
        calls.admit(new BudgetCharge(recent, onePerSecond));
    }

    // ------------------------------------------------------------------------------ concurrency

    @Test
    void concurrentWritersKeepTheBoundAndLoseNoPendingProposal() throws Exception {
        int threads = 8;
        int cap = 500;
        InMemoryStore store = store(cap);
        CallStore calls = store.calls();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger maxSeen = new AtomicInteger();
        List<Future<List<String>>> results = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    start.await();
                    List<String> pending = new ArrayList<>();
                    for (int i = 0; i < 5_000; i++) {
                        calls.record(executed("ann", "t" + thread));
                        if (i % 10 == 0) {
                            CallRecord p = calls.propose(proposal("t" + thread + "-" + i), LONG_TTL, 5).record();
                            if (i % 20 == 0) {
                                pending.add(p.id());
                            } else {
                                calls.claim(p.id(), claimBy(ANN), null);
                                calls.complete(p.id(), new Completion(CallStatus.APPLIED, "1", null, 1L));
                            }
                        }
                        if (i % 100 == 0) {
                            maxSeen.accumulateAndGet(store.sizes().finishedLine(), Math::max);
                        }
                    }
                    return pending;
                }));
            }
            start.countDown();
            List<String> pending = new ArrayList<>();
            for (Future<List<String>> result : results) {
                pending.addAll(result.get(2, TimeUnit.MINUTES));
            }

            assertThat(pending).hasSize(threads * 250);
            assertThat(pending).allSatisfy(id -> assertThat(calls.find(id).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED));
            InMemoryStore.Sizes sizes = store.sizes();
            assertThat(sizes.finishedLine()).isEqualTo(cap);
            assertThat(sizes.calls()).isEqualTo(cap + pending.size());
            assertThat(sizes.newestFirst()).isEqualTo(sizes.calls());
            assertThat(sizes.applying()).isZero();
            assertThat(maxSeen.get()).as("over the cap by at most one in-flight add per thread")
                    .isLessThanOrEqualTo(cap + threads);
            assertThat(calls.query(CallQuery.latest(CallQuery.MAX_LIMIT).status(CallStatus.PROPOSED))).hasSize(pending.size());
            // and every pending proposal can still be applied
            assertThat(pending).allSatisfy(id -> assertThat(calls.claim(id, claimBy(ANN), null).status())
                    .isEqualTo(ClaimResult.Status.CLAIMED));
        } finally {
            pool.shutdownNow();
        }
    }

    // ------------------------------------------------------------------------------ through a gate

    @Test
    void twoHundredThousandCallsThroughAGateFromEightClientsLeaveTheStoreBounded() throws Exception {
        InMemoryStore store = InMemoryStore.builder().maxFinishedCalls(1_000).build();
        Tool<NoInput, Integer> ping = Tool.builder("ping", NoInput.class).description("ping").effect(Effect.READ)
                .requires("t.read").execute((in, ctx) -> 1).build();
        int clients = 8;
        int callsEach = 25_000;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(store)
                .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO).tools("t", ping).build()) {
            CallContext firstClient = CallContext.of(Principal.user("u0", "t.read")).withSession("session-0");
            String first = ((Executed) gate.call(firstClient, "t.ping", "{}")).callId();
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                CallContext client = CallContext.of(Principal.user("u" + c, "t.read")).withSession("session-" + c);
                done.add(pool.submit(() -> {
                    start.await();
                    int executed = 0;
                    for (int i = 0; i < callsEach; i++) {
                        if (gate.call(client, "t.ping", "{}") instanceof Executed) {
                            executed++;
                        }
                    }
                    return executed;
                }));
            }
            start.countDown();
            int executed = 0;
            for (Future<Integer> client : done) {
                executed += client.get(5, TimeUnit.MINUTES);
            }
            assertThat(executed).isEqualTo(clients * callsEach);
            String last = ((Executed) gate.call(firstClient, "t.ping", "{}")).callId();

            InMemoryStore.Sizes sizes = store.sizes();
            assertThat(sizes.calls()).isEqualTo(1_000);
            assertThat(sizes.newestFirst()).isEqualTo(1_000);
            assertThat(sizes.finishedLine()).isEqualTo(1_000);
            assertThat(sizes.stepIndex()).isZero();
            assertThat(sizes.revertIndex()).isZero();
            assertThat(sizes.applying()).isZero();
            assertThat(sizes.parkedSteps()).isZero();
            assertThat(sizes.sessions()).isZero();
            assertThat(sizes.ledgers()).isZero();
            assertThat(gate.findCall(first)).isEmpty();
            assertThat(gate.findCall(last)).isPresent();
            assertThat(gate.findCalls(CallQuery.latest(CallQuery.MAX_LIMIT))).hasSize(1_000)
                    .extracting(CallRecord::id).contains(last).doesNotContain(first);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aGateThatOpensItsOwnInMemoryStoreTakesItsBoundFromTheStoreSettings() {
        Tool<NoInput, Integer> ping = Tool.builder("ping", NoInput.class).description("ping").effect(Effect.READ)
                .requires("t.read").execute((in, ctx) -> 1).build();
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false)
                .storeSetting(InMemoryStore.MAX_FINISHED_CALLS, "5").budget(ToolBudget.unlimited())
                .sweepInterval(Duration.ZERO).tools("t", ping).build()) {
            CallContext client = CallContext.of(Principal.user("u", "t.read"));
            for (int i = 0; i < 12; i++) {
                gate.call(client, "t.ping", "{}");
            }
            assertThat(gate.findCalls(CallQuery.latest(100))).hasSize(5);
        }
    }

    // ------------------------------------------------------------------------------ fixtures

    private static CallRecord executed(String principal, String session) {
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

    private static CallRecord proposal(String session) {
        return executed("ann", session).toBuilder().toolName("notes.add").effect(Effect.MUTATE).status(CallStatus.PROPOSED)
                .mode(Mode.REQUIRE_APPROVAL).resultJson(null).summary("Add a note").payloadJson("{\"id\":\"n1\"}")
                .diffJson("[]").tokenDigest("d".repeat(64)).build();
    }

    private static CallRecord step(String run, int seq) {
        return executed("ann", "s1").toBuilder().executionId(run).stepSeq(seq).build();
    }

    private static ExecutionRecord newRun() {
        return new ExecutionRecord(UUID.randomUUID().toString(), "p", ANN, Set.of("notes.note.write"), "acme", "s1", null,
                "java", false, "{}", ExecutionStatus.RUNNING, 1, null, null, null, null, null, null, null, List.of());
    }

    private static Claim claimBy(PrincipalRef principal) {
        return new Claim(principal, null, null, OUTCOME_WITHIN);
    }

    /** A clock moved by hand. */
    private static final class TestClock extends Clock {
        private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));

        void advance(Duration by) {
            now.updateAndGet(t -> t.plus(by));
        }

        @Override
        public Instant instant() {
            return now.get();
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
