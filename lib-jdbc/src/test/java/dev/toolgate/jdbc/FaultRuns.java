package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.execution.Program;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Tool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import tools.jackson.databind.JsonNode;

/**
 * The durable runs of a {@link FaultLoad}: one thread starts runs of a four-step program (a read, a
 * mutation applied at once, a mutation that pauses for consent, a read) and approves the paused step as
 * an operator, while the fault strikes. Each step's tool counts its real executions per run and step.
 *
 * <p>After the fault, {@link #settle} plays the instance that finds what the fault left: another store
 * on the same database, on a clock moved forward past the quiet period and the outcome's grace, sweeps
 * (a run cut between steps is taken over and replayed; a step in doubt reads interrupted, and so does
 * its run) and approves the runs still paused. {@link #check} then proves: every run the database holds
 * ended completed or interrupted (in doubt, with a readable reason), none is lost or stuck; a run
 * answered as completed is completed; no mutation step ran twice, and a replayed step was served from
 * the log; a read step ran again only where its first run never reached the log (the documented
 * exception: a read changes nothing); a run refused at its start left no applied step.
 */
final class FaultRuns {

    static final String PROGRAM = "fault.run";
    static final Principal RUNNER = Principal.user("runner", "fault.read", "fault.write");
    static final Principal OPERATOR = Principal.user("operator", "fault.read", "fault.write", "toolgate.approvals.manage");
    /** The runs' principal is metered too, with a cap it never reaches: its admissions are counted. */
    static final int RUNNER_CAP = 100_000;
    /** The step that pauses for consent. */
    static final int APPROVED_STEP = 3;
    private static final Set<Integer> MUTATIONS = Set.of(2, 3);
    /** How far each round of {@link #settle} moves the clock: past the quiet period (30 s + 30 s) and the outcome's grace. */
    private static final Duration ROUND = Duration.ofSeconds(75);

    /** A step's input: the run (by its key) and the step, so the tool can count itself. */
    record Step(String key, int step) {
    }

    private final FaultLoad load;
    private final AtomicLong sequence = new AtomicLong();
    /** The call ids each (run key, step) ran its tool for, in order. */
    final Map<String, Queue<String>> stepRuns = new ConcurrentHashMap<>();
    /** Every run key whose start was asked for, in order. */
    final Queue<String> started = new ConcurrentLinkedQueue<>();
    /** How each run's last answer during the load ended: an outcome's status, or "refused". */
    final Map<String, String> answered = new ConcurrentHashMap<>();
    private final Map<String, JsonNode> results = new ConcurrentHashMap<>();
    /** Runs found paused at another step than {@link #APPROVED_STEP} after the fault. */
    private final Set<String> pausedElsewhere = ConcurrentHashMap.newKeySet();

    FaultRuns(FaultLoad load) {
        this.load = load;
    }

    List<Tool<?, ?>> tools() {
        Tool<Step, String> read = Tool.builder("stepRead", Step.class).description("a run's read").effect(Effect.READ)
                .requires("fault.read").execute((in, ctx) -> ran(in, ctx.callId())).build();
        // a mutation policy lets run at once (a standing approval): applied within the step, no pause
        Tool<Step, String> auto = Tool.builder("stepAuto", Step.class).description("a run's write, applied at once")
                .effect(Effect.MUTATE).requires("fault.write").standingApproval()
                .execute((in, ctx) -> ran(in, ctx.callId())).build();
        Tool<Step, String> write = Tool.builder("stepWrite", Step.class).description("a run's write, approved")
                .effect(Effect.MUTATE).requires("fault.write").execute((in, ctx) -> ran(in, ctx.callId())).build();
        return List.of(read, auto, write);
    }

    private String ran(Step in, String callId) {
        load.ran(callId);
        stepRuns.computeIfAbsent(in.key() + "/" + in.step(), k -> new ConcurrentLinkedQueue<>()).add(callId);
        return "ran " + in.key() + "/" + in.step();
    }

    /** The program: deterministic in its input, as a replay needs. */
    Program program() {
        return run -> {
            String key = run.input().path("key").asString();
            Map<String, JsonNode> out = new LinkedHashMap<>();
            out.put("1", run.call("fault.stepRead", new Step(key, 1)));
            out.put("2", run.call("fault.stepAuto", new Step(key, 2)));
            out.put("3", run.call("fault.stepWrite", new Step(key, APPROVED_STEP)));
            out.put("4", run.call("fault.stepRead", new Step(key, 4)));
            return out;
        };
    }

    /** What a completed run returns: each step's result. */
    private static JsonNode expected(String key) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int step = 1; step <= 4; step++) {
            out.put(Integer.toString(step), "ran " + key + "/" + step);
        }
        return Json.toTree(out);
    }

    /** One run: started, and its paused step approved by the operator; each answer timed and kept. */
    void runOnce() {
        String key = "d-" + sequence.incrementAndGet();
        started.add(key);
        AtomicReference<ExecutionOutcome> outcome = new AtomicReference<>();
        FaultLoad.Answer start = load.timed("run-start", () -> {
            outcome.set(load.gate.executions().start(FaultLoad.ctx(RUNNER), PROGRAM, "{\"key\":\"" + key + "\"}"));
            return null;
        });
        if (start.error() != null) {
            answered.put(key, "refused");
            return;
        }
        note(key, outcome.get());
        if (outcome.get() instanceof ExecutionOutcome.Paused paused) {
            FaultLoad.Answer approve = load.timed("run-approve", () -> {
                outcome.set(load.gate.executions().approve(FaultLoad.ctx(OPERATOR), paused.executionId(), APPROVED_STEP));
                return null;
            });
            if (approve.error() != null) {
                answered.put(key, "refused");
            } else {
                note(key, outcome.get());
            }
        }
    }

    private void note(String key, ExecutionOutcome outcome) {
        answered.put(key, outcome.status());
        if (outcome instanceof ExecutionOutcome.Completed completed) {
            results.put(key, completed.result());
        }
    }

    /**
     * Another instance finds what the fault left, on a clock moved forward round by round: it sweeps
     * (takeovers, calls in doubt) and approves the runs still paused, until no run is running or paused.
     *
     * @return how many rounds that took
     */
    int settle(String url) {
        ShiftedClock clock = new ShiftedClock();
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).clock(clock).build();
             Toolgate gate = load.gateOn(store)) {
            for (int round = 1; round <= 6; round++) {
                clock.shift(ROUND);
                gate.sweep();
                for (ExecutionRecord run : runs(gate).values()) {
                    if (run.status() == ExecutionStatus.PAUSED) {
                        if (run.pendingSeq() != APPROVED_STEP) {
                            // the auto-applied step, proposed before the fault and never claimed: a replay
                            // does not apply a logged proposal on its own, it waits for consent
                            pausedElsewhere.add(run.id());
                        }
                        ExecutionOutcome outcome = gate.executions().approve(FaultLoad.ctx(OPERATOR), run.id(), run.pendingSeq());
                        assertThat(outcome.status()).as("approving paused run %s after the fault", run.id())
                                .isIn("completed", "paused", "not_paused");
                    }
                }
                if (runs(gate).values().stream().allMatch(r -> r.status().finished())) {
                    return round;
                }
            }
            Map<String, ExecutionStatus> open = new HashMap<>();
            runs(gate).forEach((key, run) -> open.put(key, run.status()));
            open.values().removeIf(ExecutionStatus::finished);
            assertThat(open).as("runs still open after the fault was settled").isEmpty();
            return -1;
        }
    }

    /** The runs the database holds, by key. */
    private Map<String, ExecutionRecord> runs(Toolgate gate) {
        Map<String, ExecutionRecord> runs = new HashMap<>();
        for (String id : load.ids("SELECT id FROM " + ExecutionRows.TABLE + " WHERE program = '" + PROGRAM + "'")) {
            ExecutionRecord run = gate.executions().find(id).orElseThrow();
            String key = Json.parse(run.inputJson()).path("key").asString();
            assertThat(runs.put(key, run)).as("one run per key: %s", key).isNull();
        }
        return runs;
    }

    /** The checks every run must pass after {@link #settle}; returns the figures. */
    Figures check() {
        Toolgate gate = load.gate;
        Map<String, ExecutionRecord> runs = runs(gate);
        int completed = 0;
        int resumed = 0;
        int interrupted = 0;
        int unrecorded = 0;
        int replays = 0;
        int readsAgain = 0;
        int doubled = 0;
        for (String key : started) {
            ExecutionRecord run = runs.get(key);
            String answer = answered.get(key);
            for (int step = 1; step <= 4; step++) {
                List<String> ran = new ArrayList<>(stepRuns.getOrDefault(key + "/" + step, new ConcurrentLinkedQueue<>()));
                if (MUTATIONS.contains(step)) {
                    doubled += ran.size() > 1 ? 1 : 0;
                    assertThat(ran).as("mutation step %d of run %s ran at most once", step, key).hasSizeLessThanOrEqualTo(1);
                } else if (ran.size() > 1) {
                    long logged = ran.stream().filter(id -> gate.findCall(id).isPresent()).count();
                    assertThat(logged).as("read step %d of run %s: at most one of its runs is logged (%s)", step, key, ran)
                            .isLessThanOrEqualTo(1);
                    readsAgain += ran.size() - 1;
                }
            }
            if (run == null) {
                // refused at its start, before its first step reached the log: typed, and nothing changed
                assertThat(answer).as("run %s is not in the database", key).isIn("refused", null);
                for (int step : MUTATIONS) {
                    assertThat(stepRuns.get(key + "/" + step)).as("run %s, never recorded, applied step %d", key, step).isNull();
                }
                unrecorded++;
                continue;
            }
            replays += run.attempt() - 1;
            List<CallRecord> steps = gate.executions().steps(run.id());
            Map<Integer, CallRecord> bySeq = new HashMap<>();
            for (CallRecord step : steps) {
                assertThat(bySeq.put(step.stepSeq(), step)).as("step %d of run %s logged once", step.stepSeq(), key).isNull();
                if (step.status() == CallStatus.APPLIED || step.status() == CallStatus.EXECUTED) {
                    assertThat(stepRuns.get(key + "/" + step.stepSeq())).as("run %s step %d: the logged call ran", key,
                            step.stepSeq()).isNotNull().contains(step.id());
                }
            }
            if (run.status() == ExecutionStatus.COMPLETED) {
                completed++;
                if (!"completed".equals(answer)) {
                    resumed++; // cut by the fault, completed after the database was back
                }
                assertThat(steps).extracting(CallRecord::status).as("run %s's log", key).containsExactly(CallStatus.EXECUTED,
                        CallStatus.APPLIED, CallStatus.APPLIED, CallStatus.EXECUTED);
                for (int step : MUTATIONS) {
                    assertThat(stepRuns.get(key + "/" + step)).as("run %s step %d ran once", key, step).hasSize(1);
                }
                assertThat(Json.parse(run.resultJson())).as("run %s's result, its steps served from the log", key)
                        .isEqualTo(expected(key));
                if (results.containsKey(key)) {
                    assertThat(results.get(key)).isEqualTo(expected(key));
                }
            } else {
                // the only other end a fault may leave: a step in doubt, never re-run
                assertThat(run.status()).as("run %s ended %s: %s", key, run.status(), run.error())
                        .isEqualTo(ExecutionStatus.INTERRUPTED);
                assertThat(answer).as("run %s was answered completed", key).isNotEqualTo("completed");
                assertThat(run.error()).as("run %s's reason", key).contains("in doubt");
                CallRecord doubt = steps.stream().filter(s -> s.status() == CallStatus.INTERRUPTED).findFirst().orElse(null);
                assertThat(doubt).as("run %s has its step in doubt: %s", key, steps).isNotNull();
                for (int later = doubt.stepSeq() + 1; later <= 4; later++) {
                    assertThat(stepRuns.get(key + "/" + later)).as("run %s ran step %d after the step in doubt", key, later)
                            .isNull();
                }
                interrupted++;
            }
        }
        assertThat(runs.keySet()).as("every run in the database was started by the load").isSubsetOf(Set.copyOf(started));
        // the budget: every step logged for the runner was charged once; a step served from the log on a
        // replay was not charged again; an attempt the fault cut may have been charged for a step it
        // never logged (the admission commits before the tool runs), at most one per refused answer
        long charged = Long.parseLong(load.ids("SELECT next_seq FROM toolgate_budget WHERE principal = '"
                + RUNNER.key() + "'").get(0));
        long logged = load.ids("SELECT id FROM toolgate_call WHERE principal = '" + RUNNER.key() + "'").size();
        long cut = load.answers.stream().filter(a -> a.kind().startsWith("run-") && a.error() != null).count();
        assertThat(charged).as("admissions of the runner (%d steps logged, %d attempts cut)", logged, cut)
                .isBetween(logged, logged + cut);
        return new Figures(started.size(), runs.size(), completed, resumed, interrupted, unrecorded, replays, readsAgain,
                doubled, charged - logged, pausedElsewhere.size());
    }

    /**
     * What the runs came to: started, recorded in the database, completed (of them resumed after the
     * fault), interrupted (in doubt), refused before anything was recorded, replays (attempts after the
     * first), reads run again because their first run never reached the log, mutation steps doubled,
     * admissions charged for a step the fault kept out of the log, runs that waited for consent at the
     * auto-applied step (its proposal logged, its claim cut).
     */
    record Figures(int started, int recorded, int completed, int resumed, int interrupted, int unrecorded, int replays,
                   int readsAgain, int doubled, long chargedUnlogged, int pausedAtAutoStep) {
        @Override
        public String toString() {
            return String.format("%d runs started, %d recorded, %d completed (%d of them resumed after the fault),"
                            + " %d interrupted (in doubt), %d refused unrecorded, %d replays, %d reads run again,"
                            + " %d steps doubled, %d admissions without a logged step, %d paused at the auto-applied step",
                    started, recorded, completed, resumed, interrupted, unrecorded, replays, readsAgain, doubled,
                    chargedUnlogged, pausedAtAutoStep);
        }
    }
}
