package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.testkit.Together;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.TokenAlreadyUsedException;
import dev.toolgate.call.TokenExpiredException;
import dev.toolgate.execution.Program;
import dev.toolgate.json.Json;
import dev.toolgate.testkit.Notes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Four instances of a host, each with its own {@link JdbcStore} and connection pool, on one
 * PostgreSQL database, under real concurrency. Time is the database's.
 */
class CrossInstancePostgresTest {

    private static final int INSTANCES = 4;
    private static String url;

    private final List<JdbcStore> stores = new ArrayList<>();
    private final List<Hosts> hosts = new ArrayList<>();

    @BeforeAll
    static void database() {
        url = PostgresDatabase.freshSchema("cross_instance");
    }

    @BeforeEach
    void openStores() {
        for (int i = 0; i < INSTANCES; i++) {
            stores.add(JdbcStore.builder().url(url).poolSize(8).build());
        }
        TestStores.truncate(url);
    }

    @AfterEach
    void closeStores() {
        hosts.forEach(Hosts::close);
        stores.forEach(JdbcStore::close);
    }

    private List<Hosts> instances(UnaryOperator<dev.toolgate.ToolgateBuilder> customize) {
        for (JdbcStore store : stores) {
            hosts.add(Hosts.on(store, customize));
        }
        return hosts;
    }

    @Test
    void aTokenProposedOnOneInstanceIsAppliedOnAnother() {
        List<Hosts> all = instances(b -> b);
        CallContext ctx = Hosts.ctx(Hosts.WRITER);
        Proposal proposal = all.get(0).gate().propose(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"hello\"}");

        Applied applied = all.get(2).gate().apply(ctx, proposal.token());

        assertThat(applied.callId()).isEqualTo(proposal.callId());
        assertThat(all.get(2).notes().snapshot()).containsEntry("n1", "hello");
        assertThat(all.get(0).notes().mutations).hasValue(0);
        CallRecord record = all.get(1).gate().findCall(proposal.callId()).orElseThrow();
        assertThat(record.status()).isEqualTo(CallStatus.APPLIED);
        assertThat(record.completedAt()).isNotNull();
        assertThatThrownBy(() -> all.get(3).gate().apply(ctx, proposal.token())).isInstanceOf(TokenAlreadyUsedException.class);
    }

    /**
     * Two operators approve, at the same moment on two instances (each with its own pool), two proposals
     * made from the same state of one note (the application's data, shared by the instances): in every
     * round exactly one runs and the other ends stale, and the note holds the one that ran.
     */
    @Test
    void ofTwoProposalsOnOneObjectApprovedAtOnceOnTwoInstancesExactlyOneRunsAndTheOtherIsStale() throws Exception {
        Notes shared = new Notes();
        List<Hosts> two = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Hosts host = Hosts.on(stores.get(i), shared, b -> b);
            hosts.add(host);
            two.add(host);
        }
        CallContext writer = Hosts.ctx(Hosts.WRITER);
        CallContext operator = Hosts.ctx(Principal.user("operator", Notes.READ, Notes.WRITE,
                dev.toolgate.call.GateSettings.DEFAULT_APPROVER_RULE));
        for (int round = 0; round < 20; round++) {
            String note = "race" + round;
            shared.put(note, "before");
            List<Proposal> proposals = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                proposals.add((Proposal) two.get(i).gate().call(writer, "notes.edit",
                        "{\"id\":\"" + note + "\",\"text\":\"by " + i + "\"}"));
            }
            List<dev.toolgate.call.InboxResult> results = Together.run(2, i -> two.get(i).gate().approve(operator,
                    proposals.get(1 - i).callId(), dev.toolgate.call.Approval.once()));
            List<dev.toolgate.call.InboxResult> approved = results.stream()
                    .filter(r -> r instanceof dev.toolgate.call.InboxResult.Approved).toList();
            assertThat(approved).as("round " + round + ": " + results).hasSize(1);
            assertThat(results).as("round " + round).filteredOn(r -> r instanceof dev.toolgate.call.InboxResult.Stale).hasSize(1);
            String winner = approved.get(0).callId();
            int by = proposals.get(0).callId().equals(winner) ? 0 : 1;
            assertThat(shared.snapshot()).as("round " + round).containsEntry(note, "by " + by);
            assertThat(two.get(0).gate().findCall(proposals.get(1 - by).callId()).orElseThrow().status())
                    .isEqualTo(CallStatus.STALE);
        }
        assertThat(shared.mutations).as("one change a round").hasValue(20);
    }

    /**
     * Decisions made on some instances reach the conversation through others exactly once: each round,
     * proposals made on every instance are approved or declined on other instances, then every instance
     * takes the conversation's decisions at once (two threads each, each with its own pool).
     */
    @Test
    void eachDecisionReachesItsConversationOnceWhicheverInstancesDecideAndTell() throws Exception {
        List<Hosts> all = instances(b -> b);
        CallContext writer = Hosts.ctx(Hosts.WRITER).withSession("chat-race");
        CallContext operator = Hosts.ctx(Principal.user("operator", Notes.READ, Notes.WRITE,
                dev.toolgate.call.GateSettings.DEFAULT_APPROVER_RULE));
        for (int round = 0; round < 8; round++) {
            List<String> decided = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                Proposal p = all.get(i % INSTANCES).gate().propose(writer, "notes.add",
                        "{\"id\":\"r" + round + "-" + i + "\",\"text\":\"x\"}");
                var decider = all.get((i + 1) % INSTANCES).gate();
                if (i % 2 == 0) {
                    decider.approve(operator, p.callId(), dev.toolgate.call.Approval.once());
                } else {
                    decider.reject(operator, p.callId(), "declined in round " + round);
                }
                decided.add(p.callId());
            }
            all.get(0).gate().propose(writer, "notes.add", "{\"id\":\"w" + round + "\",\"text\":\"x\"}"); // stays pending
            List<List<String>> told = Together.run(2 * INSTANCES, thread -> all.get(thread % INSTANCES).gate()
                    .conversations().takeDecisions(writer).decisions().stream()
                    .map(dev.toolgate.conversation.Decision::proposalId).toList());
            assertThat(told.stream().flatMap(List::stream).toList()).as("round " + round)
                    .containsExactlyInAnyOrderElementsOf(decided);
        }
    }

    /**
     * The instance that recorded a proposal applies it without reading it back, but never trusts what it
     * remembers for its status: rejected, or replaced by an edit, by an operator on another instance (its
     * own store and pool), the proposal cannot be applied on the first, the typed error says why, and the
     * tool runs nowhere.
     */
    @Test
    void aProposalClosedOnAnotherInstanceIsNeverAppliedByTheInstanceThatRecordedIt() {
        List<Hosts> all = instances(b -> b);
        CallContext writer = Hosts.ctx(Hosts.WRITER);
        CallContext operator = Hosts.ctx(Principal.user("operator", Notes.READ, Notes.WRITE,
                dev.toolgate.call.GateSettings.DEFAULT_APPROVER_RULE));
        Proposal rejected = all.get(0).gate().propose(writer, "notes.add", "{\"id\":\"n1\",\"text\":\"x\"}");
        Proposal edited = all.get(0).gate().propose(writer, "notes.add", "{\"id\":\"n2\",\"text\":\"x\"}");

        assertThat(all.get(1).gate().reject(operator, rejected.callId(), "not today"))
                .isInstanceOf(dev.toolgate.call.InboxResult.Rejected.class);
        assertThat(all.get(2).gate().edit(operator, edited.callId(), "{\"id\":\"n2\",\"text\":\"edited\"}"))
                .isInstanceOf(dev.toolgate.call.InboxResult.Edited.class);

        assertThatThrownBy(() -> all.get(0).gate().apply(writer, rejected.token()))
                .isInstanceOf(dev.toolgate.call.ProposalClosedException.class).hasMessageContaining("rejected");
        assertThatThrownBy(() -> all.get(0).gate().apply(writer, edited.token()))
                .isInstanceOf(dev.toolgate.call.ProposalClosedException.class).hasMessageContaining("edit");
        assertThat(all.stream().mapToInt(h -> h.notes().mutations.get()).sum()).isZero();
        assertThat(all.get(3).gate().findCall(rejected.callId()).orElseThrow().status()).isEqualTo(CallStatus.REJECTED);
        assertThat(all.get(3).gate().findCall(edited.callId()).orElseThrow().status()).isEqualTo(CallStatus.SUPERSEDED);
    }

    /**
     * An apply on the instance that recorded the proposal races an operator's rejection on another:
     * round after round exactly one of them wins, and the tool ran exactly when the proposal reads applied.
     */
    @Test
    void anApplyOnTheRecordingInstanceRacingARejectionOnAnotherHasExactlyOneWinner() throws Exception {
        List<Hosts> all = instances(b -> b);
        CallContext writer = Hosts.ctx(Hosts.WRITER);
        CallContext operator = Hosts.ctx(Principal.user("operator", Notes.READ, Notes.WRITE,
                dev.toolgate.call.GateSettings.DEFAULT_APPROVER_RULE));
        int applied = 0;
        for (int round = 0; round < 60; round++) {
            Proposal proposal = all.get(0).gate().propose(writer, "notes.add", "{\"id\":\"r" + round + "\",\"text\":\"x\"}");
            List<String> outcomes = Together.run(2, t -> {
                if (t == 0) {
                    try {
                        all.get(0).gate().apply(writer, proposal.token());
                        return "applied";
                    } catch (dev.toolgate.call.ProposalClosedException e) {
                        return "closed";
                    }
                }
                return all.get(1).gate().reject(operator, proposal.callId(), "race") instanceof dev.toolgate.call.InboxResult.Rejected
                        ? "rejected" : "not_pending";
            });
            CallStatus status = all.get(2).gate().findCall(proposal.callId()).orElseThrow().status();
            if (outcomes.contains("applied")) {
                applied++;
                assertThat(outcomes).as("round %d", round).containsExactlyInAnyOrder("applied", "not_pending");
                assertThat(status).isEqualTo(CallStatus.APPLIED);
            } else {
                assertThat(outcomes).as("round %d", round).containsExactlyInAnyOrder("closed", "rejected");
                assertThat(status).isEqualTo(CallStatus.REJECTED);
            }
            assertThat(all.get(0).notes().mutations).as("round %d", round).hasValue(applied);
        }
        assertThat(all.stream().skip(1).mapToInt(h -> h.notes().mutations.get()).sum()).isZero();
    }

    /**
     * The pending cap of one session is decided in the proposal's own statement (toolgate_session_room,
     * under the session's advisory lock): proposers on four instances race into one session while another
     * connection keeps deleting the session's row, and exactly the cap is ever pending, round after round.
     */
    @Test
    void proposersOverFourInstancesNeverExceedTheSessionsPendingCapEvenAsItsLockRowVanishes() throws Exception {
        int cap = 5;
        List<Hosts> all = instances(b -> b.maxPendingPerSession(cap));
        int threads = 16;
        for (int round = 0; round < 12; round++) {
            CallContext ctx = Hosts.ctx(Hosts.WRITER).withSession("crowded-" + round);
            AtomicInteger proposed = new AtomicInteger();
            AtomicInteger limited = new AtomicInteger();
            java.util.concurrent.atomic.AtomicBoolean racing = new java.util.concurrent.atomic.AtomicBoolean(true);
            int finalRound = round;
            Thread deleter = new Thread(() -> {
                try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
                     java.sql.PreparedStatement delete = c.prepareStatement("DELETE FROM toolgate_session WHERE session_id = ?")) {
                    delete.setString(1, "crowded-" + finalRound);
                    while (racing.get()) {
                        delete.executeUpdate();
                    }
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            deleter.start();
            try {
                Together.run(threads, t -> {
                    for (int i = 0; i < 2; i++) {
                        try {
                            all.get(t % INSTANCES).gate().propose(ctx, "notes.add",
                                    "{\"id\":\"r" + finalRound + "-" + t + "-" + i + "\",\"text\":\"x\"}");
                            proposed.incrementAndGet();
                        } catch (dev.toolgate.call.PendingLimitException e) {
                            limited.incrementAndGet();
                        }
                    }
                    return null;
                });
            } finally {
                racing.set(false);
                deleter.join();
            }
            assertThat(proposed).as("proposed in round %d", round).hasValue(cap);
            assertThat(limited).as("refused in round %d", round).hasValue(2 * threads - cap);
            assertThat(all.get(round % INSTANCES).gate()
                    .findCalls(CallQuery.latest(100).session("crowded-" + round).status(CallStatus.PROPOSED))).hasSize(cap);
        }
    }

    @Test
    void ofSixtyFourConcurrentAppliesOverFourInstancesExactlyOneWinsEveryTime() throws Exception {
        List<Hosts> all = instances(b -> b);
        CallContext ctx = Hosts.ctx(Hosts.WRITER);
        int repetitions = 200;
        int appliers = 64;
        for (int rep = 0; rep < repetitions; rep++) {
            Proposal proposal = all.get(rep % INSTANCES).gate()
                    .propose(ctx, "notes.add", "{\"id\":\"n" + rep + "\",\"text\":\"x\"}");
            AtomicInteger wins = new AtomicInteger();
            AtomicInteger alreadyUsed = new AtomicInteger();
            Together.run(appliers, a -> {
                try {
                    all.get(a % INSTANCES).gate().apply(ctx, proposal.token());
                    wins.incrementAndGet();
                } catch (TokenAlreadyUsedException e) {
                    alreadyUsed.incrementAndGet();
                }
                return null;
            });
            assertThat(wins).as("winners in repetition %d", rep).hasValue(1);
            assertThat(alreadyUsed).as("losers in repetition %d", rep).hasValue(appliers - 1);
        }
        int mutations = all.stream().mapToInt(h -> h.notes().mutations.get()).sum();
        assertThat(mutations).isEqualTo(repetitions);
        assertThat(all.get(0).gate().findCalls(CallQuery.latest(1000).status(CallStatus.APPLIED))).hasSize(repetitions);
    }

    @Test
    void sixteenThreadsOverFourInstancesNeverGetMoreThanTheCapInAnyWindow() throws Exception {
        int cap = 60;
        Duration window = Duration.ofMillis(1000);
        List<Hosts> all = instances(b -> b.budget(ToolBudget.perPrincipal(cap, window)));
        CallContext ctx = Hosts.ctx(Hosts.READER);
        int threads = 16;
        long runNanos = Duration.ofMillis(3500).toNanos();
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        Together.run(threads, t -> {
            Hosts host = all.get(t % INSTANCES);
            long end = System.nanoTime() + runNanos;
            while (System.nanoTime() < end) {
                try {
                    host.gate().call(ctx, "notes.list", "{}");
                    admitted.incrementAndGet();
                } catch (BudgetExceededException e) {
                    assertThat(e.retryAfter()).isPositive().isLessThanOrEqualTo(window);
                    refused.incrementAndGet();
                }
            }
            return null;
        });

        List<CallRecord> audit = all.get(0).gate().findCalls(CallQuery.latest(CallQuery.MAX_LIMIT).principal("user:reader"));
        List<Instant> admissions = audit.stream().map(CallRecord::createdAt).toList();
        assertThat(audit).as("every admitted call is in the audit trail, and only those").hasSize(admitted.get());
        assertThat(audit).allSatisfy(r -> assertThat(r.status()).isEqualTo(CallStatus.EXECUTED));
        assertThat(Hosts.maxInAnyWindow(admissions, window)).isEqualTo(cap);
        assertThat(admitted.get()).as("several windows were filled").isGreaterThanOrEqualTo(3 * cap);
        assertThat(refused.get()).isPositive();
        int reads = all.stream().mapToInt(h -> h.notes().reads.get()).sum();
        assertThat(reads).isEqualTo(admitted.get());
    }

    @Test
    void anExpiredTokenIsRejectedOnEveryInstanceWhetherOrNotTheSweeperRan() throws Exception {
        List<Hosts> all = instances(b -> b.proposalTtl(Duration.ofMillis(800)));
        CallContext ctx = Hosts.ctx(Hosts.WRITER);
        Proposal unswept = all.get(0).gate().propose(ctx, "notes.add", "{\"id\":\"a\",\"text\":\"x\"}");
        Proposal swept = all.get(1).gate().propose(ctx, "notes.add", "{\"id\":\"b\",\"text\":\"x\"}");
        Thread.sleep(1_000);

        for (Hosts host : all) {
            assertThatThrownBy(() -> host.gate().apply(ctx, unswept.token())).isInstanceOf(TokenExpiredException.class);
        }
        assertThat(all.get(3).gate().sweep().expired()).isEqualTo(2);
        assertThat(all.get(2).gate().sweep().expired()).isZero();
        for (Hosts host : all) {
            assertThatThrownBy(() -> host.gate().apply(ctx, swept.token())).isInstanceOf(TokenExpiredException.class);
            assertThatThrownBy(() -> host.gate().apply(ctx, unswept.token())).isInstanceOf(TokenExpiredException.class);
        }
        assertThat(all.get(0).gate().findCall(swept.callId()).orElseThrow().status()).isEqualTo(CallStatus.EXPIRED);
        assertThat(all.stream().mapToInt(h -> h.notes().mutations.get()).sum()).isZero();
    }

    @Test
    void sweepersOnEveryInstanceAtOnceExpireEachProposalExactlyOnce() throws Exception {
        List<Hosts> all = instances(b -> b.proposalTtl(Duration.ofMillis(300)).maxPendingPerSession(100));
        CallContext ctx = Hosts.ctx(Hosts.WRITER);
        int proposals = 40;
        for (int i = 0; i < proposals; i++) {
            all.get(i % INSTANCES).gate().propose(ctx, "notes.add", "{\"id\":\"n" + i + "\",\"text\":\"x\"}");
        }
        Thread.sleep(500);

        int sweepers = 2 * INSTANCES;
        int total = Together.run(sweepers, i -> all.get(i % INSTANCES).gate().sweep().expired())
                .stream().mapToInt(Integer::intValue).sum();

        assertThat(total).isEqualTo(proposals);
        assertThat(all.get(0).gate().findCalls(CallQuery.latest(1000).status(CallStatus.EXPIRED))).hasSize(proposals);
        assertThat(all.get(0).gate().findCalls(CallQuery.latest(1000).status(CallStatus.PROPOSED))).isEmpty();
    }

    @Test
    void twoInstancesSweepingAtOnceReportEachExpiryToListenersExactlyOnce() throws Exception {
        Map<String, AtomicInteger> heard = new ConcurrentHashMap<>();
        AtomicInteger otherEvents = new AtomicInteger();
        ToolCallListener expiries = event -> {
            if (event.status() == CallStatus.EXPIRED) {
                heard.computeIfAbsent(event.callId(), id -> new AtomicInteger()).incrementAndGet();
            } else if (event.status() != CallStatus.PROPOSED) {
                otherEvents.incrementAndGet();
            }
        };
        List<Hosts> two = new ArrayList<>();
        for (int i = 0; i < 2; i++) { // two engines, each with its own store and pool
            Hosts host = Hosts.on(stores.get(i), b -> b.proposalTtl(Duration.ofSeconds(1)).maxPendingPerSession(100)
                    .listener(expiries));
            hosts.add(host);
            two.add(host);
        }
        int proposals = 1_200; // more than one store batch (500) per sweep
        List<String> ids = Together.run(8, t -> {
            List<String> mine = new ArrayList<>();
            for (int i = t; i < proposals; i += 8) {
                CallContext ctx = Hosts.ctx(Hosts.WRITER).withSession("s-" + (i % 40));
                mine.add(two.get(i % 2).gate().propose(ctx, "notes.add", "{\"id\":\"n" + i + "\",\"text\":\"x\"}")
                        .callId());
            }
            return mine;
        }).stream().flatMap(List::stream).toList();
        Thread.sleep(1_500); // every proposal is past its expiry (database time)

        int sweepers = 6;
        int total = Together.run(sweepers, i -> {
            int expired = 0;
            int swept;
            do {
                swept = two.get(i % 2).gate().sweep().expired();
                expired += swept;
            } while (swept > 0);
            return expired;
        }).stream().mapToInt(Integer::intValue).sum();

        assertThat(total).as("expired by the sweeps, in total").isEqualTo(proposals);
        assertThat(heard).as("an expiry event for every proposal").hasSize(proposals);
        assertThat(heard.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(heard).as("each expiry published exactly once across both instances")
                .allSatisfy((id, count) -> assertThat(count).hasValue(1));
        assertThat(otherEvents).hasValue(0);
        assertThat(two.get(1).gate().findCalls(CallQuery.latest(1000).status(CallStatus.PROPOSED))).isEmpty();
    }

    /** Reads, adds the note named in the input (which needs consent), reads again; returns what the add said. */
    private static final Program APPROVED = run -> {
        String id = run.input().path("id").asString();
        run.call("notes.list", Map.of());
        String added = run.call("notes.add", Map.of("id", id, "text", "approved")).asString();
        run.call("notes.list", Map.of("prefix", id));
        return Map.of("id", id, "added", added);
    };

    /** An operator of the tenant: may approve any run's steps. */
    private static final Principal OPERATOR = Principal.user("ops", Notes.READ, Notes.WRITE, "toolgate.approvals.manage");

    @Test
    void ofSixteenApprovalsOverFourInstancesExactlyOneReplaysEveryRoundAndNoStepRunsTwice() throws Exception {
        List<Hosts> all = instances(b -> b.program("notes.approved", APPROVED));
        CallContext writer = Hosts.ctx(Hosts.WRITER);
        CallContext operator = Hosts.ctx(OPERATOR);
        int rounds = 200;
        int approvers = 16;
        int doubleExecutions = 0;
        long start = System.nanoTime();
        for (int round = 0; round < rounds; round++) {
            int before = mutations(all);
            String id = all.get(round % INSTANCES).gate().executions()
                    .start(writer, "notes.approved", "{\"id\":\"n" + round + "\"}").executionId();
            List<String> outcomes = Together.run(approvers, t -> all.get(t % INSTANCES).gate().executions()
                    .approve(operator, id, 2).status());
            int executions = mutations(all) - before;
            doubleExecutions += Math.max(0, executions - 1);

            assertThat(outcomes).as("round %d: the approval that replayed", round).filteredOn("completed"::equals).hasSize(1);
            assertThat(outcomes).as("round %d: the others", round).filteredOn("not_paused"::equals).hasSize(approvers - 1);
            assertThat(executions).as("round %d: executions of the approved step", round).isEqualTo(1);
            ExecutionRecord run = all.get((round + 1) % INSTANCES).gate().executions().find(id).orElseThrow();
            assertThat(run.status()).as("round %d", round).isEqualTo(ExecutionStatus.COMPLETED);
            assertThat(run.attempt()).as("round %d: started, then one replay", round).isEqualTo(2);
            assertThat(Json.parse(run.resultJson())).as("round %d", round)
                    .isEqualTo(Json.toTree(Map.of("id", "n" + round, "added", "added n" + round)));
            assertThat(all.get(round % INSTANCES).gate().executions().steps(id)).extracting(CallRecord::status)
                    .as("round %d", round).containsExactly(CallStatus.EXECUTED, CallStatus.APPLIED, CallStatus.EXECUTED);
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("cross-instance approvals: %d rounds of %d approvals over %d instances in %d ms, %d double executions%n",
                rounds, approvers, INSTANCES, millis, doubleExecutions);
        assertThat(doubleExecutions).isZero();
        assertThat(mutations(all)).isEqualTo(rounds);
        assertThat(all.stream().mapToInt(h -> h.notes().reads.get()).sum()).as("two reads per run, none repeated")
                .isEqualTo(2 * rounds);
    }

    private static int mutations(List<Hosts> hosts) {
        return hosts.stream().mapToInt(h -> h.notes().mutations.get()).sum();
    }

    @Test
    void runTransitionsFromFourInstancesAtOnceHaveExactlyOneWinner() throws Exception {
        Races.runTransitionsRace(stores, 100, 16);
    }

    @Test
    void revertClaimsFromFourInstancesAtOnceRevertEachCallOnce() throws Exception {
        Races.revertClaimsRace(stores, 40, 16);
    }

    @Test
    void sweepersOnEveryInstanceReportEachOverdueCallExactlyOnceWhileOutcomesArrive() throws Exception {
        Races.sweepersReportEachOverdueCallOnce(stores, 80, 2 * INSTANCES);
    }

    @Test
    void purgesOnEveryInstanceNeverDeleteARowWhoseLateOutcomeWasRecorded() throws Exception {
        Races.aLateOutcomeIsNeverPurgedWithItsRow(stores, 40);
    }

    @Test
    void purgesOnEveryInstanceRacingProposalsKeepThePendingCapExact() throws Exception {
        Races.purgesRacingProposalsKeepThePendingCap(stores, 16, 8);
    }

    @Test
    void purgesOnEveryInstanceRacingAdmissionsKeepTheBudgetExact() throws Exception {
        Races.purgesRacingAdmissionsKeepTheBudget(stores, 16, 8);
    }
}
