package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
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
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.testkit.Together;
import dev.toolgate.tool.Effect;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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
     * idle when each burst starts, so purges race its first admissions. Every burst admits exactly the
     * cap, and no window ever holds more.
     */
    static void purgesRacingAdmissionsKeepTheBudget(List<? extends ToolgateStore> stores, int threads, int rounds)
            throws Exception {
        int cap = 4;
        Duration window = Duration.ofMillis(250);
        int purgers = 2;
        BudgetCharge charge = new BudgetCharge("user:bursty-" + UUID.randomUUID(), BudgetLimit.of(cap, window));
        CallStore first = stores.get(0).calls();
        List<Instant> admissions = Collections.synchronizedList(new ArrayList<>());
        int budgetPurges = 0;
        for (int round = 0; round < rounds; round++) {
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
                            admissions.add(calls.admit(charge));
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
            assertThat(results.stream().mapToInt(r -> r[0]).sum()).as("round %d: admissions of a full window", round).isEqualTo(cap);
        }
        assertThat(Hosts.maxInAnyWindow(admissions, window)).isEqualTo(cap);
        assertThat(budgetPurges).as("the budget row was purged while admissions raced").isPositive();
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
