package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.BudgetLimit;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.CallStore.Claim;
import dev.toolgate.spi.CallStore.ClaimResult;
import dev.toolgate.spi.CallStore.Closure;
import dev.toolgate.spi.CallStore.Completion;
import dev.toolgate.spi.CallStore.ProposeResult;
import dev.toolgate.spi.CallStore.Purge;
import dev.toolgate.spi.ExecutionStore;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.testkit.Together;
import dev.toolgate.tool.Effect;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Races between the sweep, the purges and the calls they must not disturb, on the database's clock,
 * over one or more stores sharing a database (thread {@code t} uses store {@code t % stores}). Each
 * fails if a row is changed by two callers, or if a purge lets the budget or the pending cap admit
 * one call more.
 */
final class Races {

    private static final PrincipalRef ANN = new PrincipalRef(PrincipalKind.USER, "ann");
    private static final PrincipalRef OPS = new PrincipalRef(PrincipalKind.USER, "ops");
    /** How long a looping purger may run before the race is declared stuck. */
    private static final long STUCK_NANOS = TimeUnit.SECONDS.toNanos(30);

    private Races() {
    }

    /**
     * {@code total} overdue claims; {@code sweepers} threads sweep with a limit of 3 while as many
     * threads record the outcomes of every other call. No call is reported twice; each call without an
     * outcome is reported exactly once and ends interrupted; each outcome is kept (a late outcome
     * replaces interrupted).
     */
    static void sweepersReportEachOverdueCallOnce(List<? extends ToolgateStore> stores, int total, int sweepers)
            throws Exception {
        CallStore first = stores.get(0).calls();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            CallRecord proposal = first.propose(proposal(null), Duration.ofMinutes(10), 1).record();
            ClaimResult claim = stores.get(i % stores.size()).calls()
                    .claim(proposal.id(), new Claim(ANN, null, null, Duration.ofMillis(1)), null);
            assertThat(claim.status()).isEqualTo(ClaimResult.Status.CLAIMED);
            ids.add(proposal.id());
        }
        Thread.sleep(50); // every claim is overdue
        List<String> withOutcome = new ArrayList<>();
        for (int i = 0; i < total; i += 2) {
            withOutcome.add(ids.get(i));
        }

        Queue<String> reported = new ConcurrentLinkedQueue<>();
        Queue<String> completed = new ConcurrentLinkedQueue<>();
        Together.run(2 * sweepers, t -> {
            CallStore calls = stores.get(t % stores.size()).calls();
            if (t < sweepers) {
                for (List<CallRecord> marked = calls.interruptOverdue(3); !marked.isEmpty(); marked = calls.interruptOverdue(3)) {
                    assertThat(marked).hasSizeLessThanOrEqualTo(3)
                            .allSatisfy(r -> assertThat(r.status()).isEqualTo(CallStatus.INTERRUPTED));
                    marked.forEach(r -> reported.add(r.id()));
                }
                return null;
            }
            for (int i = t - sweepers; i < withOutcome.size(); i += sweepers) {
                String id = withOutcome.get(i);
                if (calls.complete(id, new Completion(CallStatus.APPLIED, "\"done\"", null, 1L))) {
                    completed.add(id);
                }
            }
            return null;
        });

        Map<String, Long> reports = reported.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        assertThat(reports).as("no call is reported by two sweepers").allSatisfy((id, n) -> assertThat(n).isEqualTo(1L));
        assertThat(completed).as("every outcome is recorded, interrupted or not").containsExactlyInAnyOrderElementsOf(withOutcome);
        assertThat(first.interruptOverdue(1000)).as("nothing left overdue").isEmpty();
        for (String id : ids) {
            CallRecord record = first.find(id).orElseThrow();
            if (withOutcome.contains(id)) {
                assertThat(record.status()).as(id).isEqualTo(CallStatus.APPLIED);
                assertThat(record.resultJson()).isEqualTo("\"done\"");
            } else {
                assertThat(reports).as("reported once: %s", id).containsEntry(id, 1L);
                assertThat(record.status()).as(id).isEqualTo(CallStatus.INTERRUPTED);
                assertThat(record.completedAt()).isNotNull();
            }
        }
    }

    /**
     * Interrupted calls older than the cutoff, purged while their late outcomes arrive: an outcome that
     * was recorded is never purged with its row, and every other row is purged once.
     */
    static void aLateOutcomeIsNeverPurgedWithItsRow(List<? extends ToolgateStore> stores, int total) throws Exception {
        CallStore first = stores.get(0).calls();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            CallRecord proposal = first.propose(proposal(null), Duration.ofMinutes(10), 1).record();
            first.claim(proposal.id(), new Claim(ANN, null, null, Duration.ofMillis(1)), null);
            ids.add(proposal.id());
        }
        Thread.sleep(50);
        assertThat(first.interruptOverdue(total)).hasSize(total);
        Thread.sleep(5);
        Instant cutoff = first.now(); // after every interruption, before every late outcome

        int purgers = 2;
        Queue<String> completed = new ConcurrentLinkedQueue<>();
        List<Integer> purged = Together.run(purgers + 6, t -> {
            CallStore calls = stores.get(t % stores.size()).calls();
            if (t < purgers) {
                int mine = 0;
                for (int n = calls.purge(Purge.FINISHED_CALLS, cutoff, 2); n > 0; n = calls.purge(Purge.FINISHED_CALLS, cutoff, 2)) {
                    mine += n;
                }
                return mine;
            }
            for (int i = t - purgers; i < total; i += 6) {
                if (calls.complete(ids.get(i), new Completion(CallStatus.APPLIED, "\"late\"", null, 1L))) {
                    completed.add(ids.get(i));
                }
            }
            return 0;
        });

        int deleted = purged.stream().mapToInt(Integer::intValue).sum() + first.purge(Purge.FINISHED_CALLS, cutoff, 1000);
        assertThat(deleted).as("every row without its outcome is purged, once").isEqualTo(total - completed.size());
        for (String id : ids) {
            if (completed.contains(id)) {
                assertThat(first.find(id)).as("a recorded outcome keeps its row: %s", id).get()
                        .satisfies(r -> assertThat(r.status()).isEqualTo(CallStatus.APPLIED));
            } else {
                assertThat(first.find(id)).as(id).isEmpty();
            }
        }
    }

    /**
     * Proposals into one session, capped, while other threads purge idle sessions (cutoff in the
     * future, so a session is idle whenever nothing is pending in it) and end the session, round after
     * round (between rounds the pending proposals are rejected, so the session is idle again). Every
     * round admits exactly the cap.
     */
    static void purgesRacingProposalsKeepThePendingCap(List<? extends ToolgateStore> stores, int threads, int rounds)
            throws Exception {
        int cap = 3;
        int purgers = 3;
        String session = "crowded-" + UUID.randomUUID();
        CallStore first = stores.get(0).calls();
        int sessionPurges = 0;
        for (int round = 0; round < rounds; round++) {
            Instant future = first.now().plus(Duration.ofDays(1));
            CountDownLatch proposing = new CountDownLatch(threads - purgers);
            List<int[]> results = Together.run(threads, t -> {
                CallStore calls = stores.get(t % stores.size()).calls();
                if (t < purgers) {
                    int mine = 0;
                    long stuck = System.nanoTime() + STUCK_NANOS;
                    while (!proposing.await(0, TimeUnit.MILLISECONDS) && System.nanoTime() < stuck) {
                        mine += t == 0 ? (calls.endSession(session) ? 1 : 0) : calls.purge(Purge.IDLE_SESSIONS, future, 10);
                    }
                    return new int[] {0, mine};
                }
                try {
                    int proposed = 0;
                    for (int i = 0; i < 3; i++) {
                        jitter();
                        if (calls.propose(proposal(session), Duration.ofMinutes(10), cap).status() == ProposeResult.Status.PROPOSED) {
                            proposed++;
                        }
                    }
                    return new int[] {proposed, 0};
                } finally {
                    proposing.countDown();
                }
            });
            int proposed = results.stream().mapToInt(r -> r[0]).sum();
            sessionPurges += results.stream().mapToInt(r -> r[1]).sum();
            assertThat(proposed).as("round %d: proposals admitted under the cap of %d", round, cap).isEqualTo(cap);
            assertThat(first.countPending(session)).as("round %d", round).isEqualTo(cap);
            for (CallRecord pending : first.query(dev.toolgate.audit.CallQuery.latest(100).session(session)
                    .status(CallStatus.PROPOSED))) {
                assertThat(first.close(pending.id(), new Closure(CallStatus.REJECTED, OPS, "next round", null))).isTrue();
            }
        }
        assertThat(sessionPurges).as("the session's row was purged or ended while proposals raced").isPositive();
    }

    /**
     * Bursts of admissions of one principal, each after the principal was idle for longer than the
     * window, while other threads purge idle budget rows with a cutoff one window back: the row is
     * idle when each burst starts, so purges race its first admissions. Every burst admits at least the
     * cap (the window is empty when it starts), exactly the cap when its admissions fit in one window
     * (on a loaded machine a burst can outlast the window, and its late admissions rightly enter a
     * new one), and no window ever holds more (by the store's clock, on every admission of every round).
     */
    static void purgesRacingAdmissionsKeepTheBudget(List<? extends ToolgateStore> stores, int threads, int rounds)
            throws Exception {
        int cap = 4;
        Duration window = Duration.ofMillis(250);
        int purgers = 2;
        BudgetCharge charge = new BudgetCharge("user:bursty-" + UUID.randomUUID(), BudgetLimit.of(cap, window));
        CallStore first = stores.get(0).calls();
        List<Instant> admissions = new ArrayList<>();
        int budgetPurges = 0;
        for (int round = 0; round < rounds; round++) {
            List<Instant> burst = Collections.synchronizedList(new ArrayList<>());
            Thread.sleep(window.toMillis() + 100); // every earlier admission left the window: the row is idle
            Instant cutoff = first.now().minus(window);
            CountDownLatch admitting = new CountDownLatch(threads - purgers);
            List<int[]> results = Together.run(threads, t -> {
                CallStore calls = stores.get(t % stores.size()).calls();
                if (t < purgers) {
                    int mine = 0;
                    long stuck = System.nanoTime() + STUCK_NANOS;
                    while (!admitting.await(0, TimeUnit.MILLISECONDS) && System.nanoTime() < stuck) {
                        mine += calls.purge(Purge.IDLE_BUDGETS, cutoff, 10);
                    }
                    return new int[] {0, mine};
                }
                try {
                    int admitted = 0;
                    for (int i = 0; i < 2; i++) {
                        jitter();
                        try {
                            burst.add(calls.admit(charge));
                            admitted++;
                        } catch (BudgetExceededException e) {
                            assertThat(e.retryAfter()).isLessThanOrEqualTo(window);
                        }
                    }
                    return new int[] {admitted, 0};
                } finally {
                    admitting.countDown();
                }
            });
            budgetPurges += results.stream().mapToInt(r -> r[1]).sum();
            int admitted = results.stream().mapToInt(r -> r[0]).sum();
            assertThat(burst).hasSize(admitted);
            assertThat(Hosts.maxInAnyWindow(burst, window)).as("round %d: the most admissions in any window", round)
                    .isEqualTo(cap);
            Instant firstAdmission = Collections.min(burst);
            if (Duration.between(firstAdmission, Collections.max(burst)).compareTo(window) < 0) {
                assertThat(admitted).as("round %d: admissions of a burst within one window", round).isEqualTo(cap);
            } else {
                assertThat(admitted).as("round %d: admissions of a burst longer than the window", round)
                        .isGreaterThanOrEqualTo(cap);
            }
            admissions.addAll(burst);
        }
        assertThat(Hosts.maxInAnyWindow(admissions, window)).isEqualTo(cap);
        assertThat(budgetPurges).as("the budget row was purged while admissions raced").isPositive();
    }

    /** What one caller of a run's transition got: the kind of transition it won, and the row it returned. */
    private record Won(String kind, int thread, ExecutionRecord returned) {
    }

    /**
     * The transitions of runs, from {@code threads} threads over every store at once, phase after phase:
     * while a run is running at attempt {@code a}, threads race {@code takeOver(a)}, {@code pause(a)},
     * {@code finish(a)}, {@code close(running)} and a stale {@code takeOver(a - 1)} / {@code finish(a - 1)};
     * while it is paused on its call, they race {@code resume(call)}, {@code close(paused)}, a
     * {@code resume} of another call and a {@code pause(a)}. In every phase at most one caller of a
     * fenced transition ({@code takeOver}, {@code pause}, {@code finish}: they need the attempt) wins, at
     * most one caller of a transition that changes the status ({@code pause}, {@code finish},
     * {@code close}, {@code resume}) wins, somebody wins, and never a stale caller; the row then is what
     * the winners did. ({@code close} names statuses, not an attempt, as the SPI says: a close may follow
     * a takeover in the same phase, never precede it, as the takeover needs the run running.) A run goes
     * on until a finish or a close wins (or for at most 8 phases). Every kind of transition wins somewhere.
     */
    static void runTransitionsRace(List<? extends ToolgateStore> stores, int rounds, int threads) throws Exception {
        ExecutionStore first = stores.get(0).executions();
        Map<String, Integer> kinds = new java.util.concurrent.ConcurrentHashMap<>();
        Set<String> everyKind = Set.of("takeOver", "pause", "finish", "closeRunning", "resume", "closePaused");
        // which thread wins is up to the scheduler: rounds go on (up to five times as many) until every
        // transition has won at least once, so the coverage check below does not hang on luck
        for (int round = 0; round < rounds || (!kinds.keySet().containsAll(everyKind) && round < 5 * rounds); round++) {
            ExecutionRecord run = first.create(newRun());
            String id = run.id();
            // a run reaches the database with its first step, as every run that others can act on does
            stores.get(0).calls().record(firstStep(id));
            for (int phase = 0; phase < 8; phase++) {
                ExecutionRecord before = first.find(id).orElseThrow();
                if (before.status().finished()) {
                    break;
                }
                int a = before.attempt();
                int seq = phase + 1;
                boolean running = before.status() == ExecutionStatus.RUNNING;
                String pendingCall = before.pendingCallId();
                List<Won> results = Together.run(threads, t -> {
                    ExecutionStore runs = stores.get(t % stores.size()).executions();
                    jitter();
                    if (running) {
                        return switch (t % 5) {
                            case 0 -> runs.takeOver(id, a).map(r -> new Won("takeOver", t, r)).orElse(null);
                            case 1 -> runs.pause(id, a, seq, "call-" + t) ? new Won("pause", t, null) : null;
                            case 2 -> runs.finish(id, a, ExecutionStatus.COMPLETED, "\"t" + t + "\"", null, List.of("by " + t))
                                    ? new Won("finish", t, null) : null;
                            case 3 -> runs.close(id, Set.of(ExecutionStatus.RUNNING), ExecutionStatus.INTERRUPTED, "closed by " + t)
                                    ? new Won("closeRunning", t, null) : null;
                            default -> runs.takeOver(id, a - 1).isPresent()
                                    || runs.finish(id, a - 1, ExecutionStatus.FAILED, null, "stale", List.of())
                                    ? new Won("stale", t, null) : null;
                        };
                    }
                    return switch (t % 4) {
                        case 0, 1 -> runs.resume(id, pendingCall).map(r -> new Won("resume", t, r)).orElse(null);
                        case 2 -> runs.close(id, Set.of(ExecutionStatus.PAUSED), ExecutionStatus.REJECTED, "rejected by " + t)
                                ? new Won("closePaused", t, null) : null;
                        default -> runs.resume(id, "another-call").isPresent() || runs.pause(id, a, seq, "call-x")
                                ? new Won("stale", t, null) : null;
                    };
                });
                List<Won> won = results.stream().filter(java.util.Objects::nonNull).toList();
                String phaseName = "round " + round + " phase " + phase + " (" + before.status() + " at attempt " + a + "): ";
                assertThat(won).as(phaseName + "winners").isNotEmpty()
                        .noneMatch(w -> w.kind().equals("stale"));
                assertThat(won).as(phaseName + "winners of fenced transitions")
                        .filteredOn(w -> Set.of("takeOver", "pause", "finish").contains(w.kind())).hasSizeLessThanOrEqualTo(1);
                assertThat(won).as(phaseName + "winners of status changes")
                        .filteredOn(w -> !w.kind().equals("takeOver")).hasSizeLessThanOrEqualTo(1);
                won.forEach(w -> kinds.merge(w.kind(), 1, Integer::sum));
                ExecutionRecord after = first.find(id).orElseThrow();
                Won winner = won.stream().filter(w -> !w.kind().equals("takeOver")).findFirst().orElse(won.get(0));
                boolean tookOver = won.stream().anyMatch(w -> w.kind().equals("takeOver"));
                String where = phaseName + "won by " + won;
                if (tookOver) {
                    ExecutionRecord taken = won.stream().filter(w -> w.kind().equals("takeOver")).findFirst().orElseThrow().returned();
                    assertThat(taken.status()).as(where).isEqualTo(ExecutionStatus.RUNNING);
                    assertThat(taken.attempt()).as(where).isEqualTo(a + 1);
                    assertThat(after.attempt()).as(where).isEqualTo(a + 1);
                }
                switch (winner.kind()) {
                    case "takeOver", "resume" -> {
                        assertThat(after.status()).as(where).isEqualTo(ExecutionStatus.RUNNING);
                        assertThat(after.attempt()).as(where).isEqualTo(a + 1);
                        assertThat(after.pendingCallId()).as(where).isNull();
                        assertThat(winner.returned()).as("the row as it is now: " + where).isEqualTo(after);
                    }
                    case "pause" -> {
                        assertThat(after.status()).as(where).isEqualTo(ExecutionStatus.PAUSED);
                        assertThat(after.attempt()).as(where).isEqualTo(a);
                        assertThat(after.pendingSeq()).as(where).isEqualTo(seq);
                        assertThat(after.pendingCallId()).as(where).isEqualTo("call-" + winner.thread());
                    }
                    case "finish" -> {
                        assertThat(after.status()).as(where).isEqualTo(ExecutionStatus.COMPLETED);
                        assertThat(after.resultJson()).as(where).isEqualTo("\"t" + winner.thread() + "\"");
                        assertThat(after.logs()).as(where).containsExactly("by " + winner.thread());
                        assertThat(after.completedAt()).as(where).isNotNull();
                    }
                    case "closeRunning" -> {
                        assertThat(after.status()).as(where).isEqualTo(ExecutionStatus.INTERRUPTED);
                        assertThat(after.attempt()).as(where).isEqualTo(tookOver ? a + 1 : a);
                        assertThat(after.error()).as(where).isEqualTo("closed by " + winner.thread());
                    }
                    case "closePaused" -> {
                        assertThat(after.status()).as(where).isEqualTo(ExecutionStatus.REJECTED);
                        assertThat(after.error()).as(where).isEqualTo("rejected by " + winner.thread());
                        assertThat(after.pendingCallId()).as(where).isNull();
                    }
                    default -> throw new AssertionError("a stale transition won: " + where);
                }
            }
        }
        assertThat(kinds).as("every transition won somewhere").containsKeys(everyKind.toArray(String[]::new));
    }

    /**
     * {@code total} applied calls, each reverted by {@code threads} threads over every store at once
     * (each thread goes through the calls in its own order): exactly one claim per call wins, every
     * other gets NOT_PENDING with the winner's revert, and marking the call reverted is done once.
     */
    static void revertClaimsRace(List<? extends ToolgateStore> stores, int total, int threads) throws Exception {
        CallStore first = stores.get(0).calls();
        List<String> applied = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            CallRecord proposal = first.propose(proposal(null), Duration.ofMinutes(10), 1).record();
            first.claim(proposal.id(), new Claim(ANN, null, null, Duration.ofMinutes(1)), null);
            first.complete(proposal.id(), new Completion(CallStatus.APPLIED, "\"done\"", null, 1L));
            applied.add(proposal.id());
        }
        Queue<ClaimResult> claims = new ConcurrentLinkedQueue<>();
        Together.run(threads, t -> {
            CallStore calls = stores.get(t % stores.size()).calls();
            List<String> mine = new ArrayList<>(applied);
            Collections.shuffle(mine, new java.util.Random(t));
            for (String id : mine) {
                claims.add(calls.claimRevert(revertOf(id), Duration.ofMinutes(1)));
            }
            return null;
        });
        Map<String, List<ClaimResult>> byCall = claims.stream().collect(Collectors.groupingBy(c -> c.record().reverts()));
        assertThat(byCall).hasSize(total);
        for (String id : applied) {
            List<ClaimResult> results = byCall.get(id);
            assertThat(results).hasSize(threads);
            List<ClaimResult> won = results.stream().filter(c -> c.status() == ClaimResult.Status.CLAIMED).toList();
            assertThat(won).as("claims of the revert of %s that won", id).hasSize(1);
            String revert = won.get(0).record().id();
            assertThat(results).filteredOn(c -> c.status() != ClaimResult.Status.CLAIMED)
                    .allSatisfy(c -> {
                        assertThat(c.status()).isEqualTo(ClaimResult.Status.NOT_PENDING);
                        assertThat(c.record().id()).isEqualTo(revert);
                    });
            assertThat(first.find(revert).orElseThrow().status()).isEqualTo(CallStatus.APPLYING);
            assertThat(first.complete(revert, new Completion(CallStatus.APPLIED, "null", null, 1L))).isTrue();
        }
        List<String> marked = Together.run(threads, t -> {
            CallStore calls = stores.get(t % stores.size()).calls();
            String id = applied.get(t % total);
            String revert = byCall.get(id).stream().filter(c -> c.status() == ClaimResult.Status.CLAIMED).findFirst()
                    .orElseThrow().record().id();
            return calls.markReverted(id, revert) ? id : null;
        });
        Map<String, Long> marks = marked.stream().filter(java.util.Objects::nonNull)
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        assertThat(marks).as("each call is marked reverted once").allSatisfy((id, n) -> assertThat(n).isEqualTo(1L));
        assertThat(marks).hasSize(Math.min(threads, total));
    }

    /** A revert of {@code callId} by ops, not yet stored. */
    static CallRecord revertOf(String callId) {
        return proposal(null).toBuilder().id(UUID.randomUUID().toString()).principal(OPS).status(CallStatus.APPLYING)
                .tokenDigest(null).payloadJson(null).diffJson(null).summary("Revert: add a note").appliedBy(OPS)
                .decisionReason("rollback").reverts(callId).build();
    }

    /** A finished first step of the run {@code executionId}, not yet stored. */
    static CallRecord firstStep(String executionId) {
        return proposal(null).toBuilder().status(CallStatus.EXECUTED).effect(Effect.READ).toolName("notes.list")
                .tokenDigest(null).payloadJson(null).diffJson(null).summary(null).resultJson("{}")
                .executionId(executionId).stepSeq(1).build();
    }

    /** A new run of ann in acme, not yet stored. */
    static ExecutionRecord newRun() {
        return new ExecutionRecord(UUID.randomUUID().toString(), "notes.race", ANN, Set.of("notes.note.write"), "acme", "s1",
                null, "java", false, "{}", ExecutionStatus.RUNNING, 1, null, null, null, null, null, null, null, List.of());
    }

    /**
     * Up to 2 ms of delay, so the looping purgers sometimes get to an idle row before the first call of
     * a round and sometimes meet one in flight (on H2 a call takes microseconds).
     */
    private static void jitter() {
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(2_000_000));
    }

    /** A proposal in {@code session} (null: none), not yet stored. */
    static CallRecord proposal(String session) {
        return CallRecord.builder()
                .id(UUID.randomUUID().toString())
                .toolName("notes.add")
                .effect(Effect.MUTATE)
                .principal(ANN)
                .tenantId("acme")
                .sessionId(session)
                .transport("java")
                .status(CallStatus.PROPOSED)
                .mode(Mode.REQUIRE_APPROVAL)
                .modeSource(ModeSource.INFERRED_DEFAULT)
                .argumentsHash("a".repeat(64))
                .summary("Add a note")
                .payloadJson("{\"id\":\"n1\"}")
                .diffJson("[]")
                .tokenDigest("d".repeat(64))
                .build();
    }
}
