package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.json.Json;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.testkit.Fixture;
import dev.toolgate.testkit.MutableClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Issue 45: a pause or a refusal stops the attempt at once whatever the script catches. Each script
 * below catches the pausing mutation (or the refusal) and then tries to go on; under the default
 * limits (5 s) the run must answer well before the limit, nothing after the pause may happen, and a
 * normal pause logs nothing above DEBUG. The bound is a bound, not a benchmark: the caught pause takes
 * tens of milliseconds here, the limit is 5 s.
 */
class CaughtPauseTest {

    /** Well under the default 5 s limit, with room for a slow shared machine. */
    private static final Duration BOUND = Duration.ofMillis(1500);

    /** What each script does once it caught the pausing call; "after" must never be logged. */
    private static final Map<String, String> GOING_ON = new LinkedHashMap<>();

    static {
        GOING_ON.put("loops forever", "for (;;) { }");
        GOING_ON.put("calls more tools", """
                for (let i = 0; i < 50; i++) {
                  try { tools.notes.list({}); } catch (e) { }
                  try { tools.notes.add({id: "more" + i, text: "after"}); } catch (e) { }
                  console.log("after");
                }
                return "went on";""");
        GOING_ON.put("returns from finally", "return \"after\";");
        GOING_ON.put("busy-waits on Date", "const t = Date.now(); while (Date.now() - t < 60000) { new Date(); } return 1;");
        GOING_ON.put("rethrows something else", "throw new TypeError(\"after: something else\");");
    }

    /** Scripts that may swallow their cancellation (see ScriptThreads): their threads are stopped. */
    private static final Map<String, String> STUBBORN = Map.of(
            "recurses into stack overflows", "function f() { try { return f() + 1; } catch (e) { return f(); } }\nf();",
            "swallows its cancellation", "function f() { try { f(); } catch (e) { f(); } }\nf();");

    private Fixture fx;
    private Toolgate gate;

    @BeforeEach
    void open() {
        MutableClock clock = new MutableClock();
        fx = new Fixture(clock, new InMemoryStore(clock));
        gate = gate(fx, ToolBudget.perPrincipal(1000, Duration.ofMinutes(1)));
        run(fx.ctx(fx.writer), "return tools.notes.list({}) !== null;"); // the gate's own cold path, not the bound's
        fx.notes.reads.set(0);
    }

    @AfterEach
    void close() {
        fx.close();
    }

    private static Toolgate gate(Fixture fx, ToolBudget budget) {
        Toolgate gate = fx.gate(b -> b.programs(Codemode.programs()).budget(budget));
        gate.registry().register(Codemode.tools(gate)); // the default limits: 5 s
        return gate;
    }

    private JsonNode run(CallContext ctx, String code) {
        return run(gate, ctx, code);
    }

    private static JsonNode run(Toolgate gate, CallContext ctx, String code) {
        CallResult result = gate.call(ctx, Codemode.RUN, Json.toTree(Map.of("code", code)));
        assertThat(result).isInstanceOf(Applied.class);
        return ((Applied) result).result();
    }

    /** The script: the pausing mutation caught, then {@code after} (a finally block for "returns from finally"). */
    private static String catching(String label, String after) {
        String pausing = "tools.notes.add({id: \"n1\", text: \"x\"});";
        if (label.equals("returns from finally")) {
            return "try { " + pausing + " } finally { console.log(\"after\"); " + after + " }";
        }
        return "try { " + pausing + " } catch (e) { console.log(\"after\", e.message); }\n" + after;
    }

    @Test
    void aCaughtPauseStillPausesTheRunAtOnceRunningNothingAfterItAndLoggingNothingAboveDebug() {
        GOING_ON.forEach((label, after) -> {
            String code = catching(label, after);
            Timed<JsonNode> paused = timed(() -> run(fx.ctx(fx.writer), code));
            assertPaused(label, paused, 1);
            assertThat(fx.notes.reads).as("%s: no read after the pause", label).hasValue(0);
            assertThat(fx.notes.dryRuns).as("%s: only the pausing step's dry-run", label).hasValue(1);
            fx.notes.dryRuns.set(0);
        });
        assertThat(fx.notes.mutations).hasValue(0);
        assertThat(fx.notes.snapshot()).isEmpty();
    }

    /**
     * A script that swallows its cancellation is abandoned {@link ScriptThreads#STOP_GRACE} after the
     * pause and its thread stopped (which is worth a WARN: on a JDK that cannot stop threads it would
     * count as stuck); its caller does not wait out the time limit.
     */
    @Test
    void aCaughtPauseOfAScriptThatSwallowsItsCancellationPausesWithinTheStopGrace() throws InterruptedException {
        for (Map.Entry<String, String> stubborn : STUBBORN.entrySet()) {
            String label = stubborn.getKey();
            Timed<JsonNode> paused = timed(() -> run(fx.ctx(fx.writer), catching(label, stubborn.getValue())));
            JsonNode outcome = paused.value();
            assertThat(outcome.get("status").asString()).as("%s: %s", label, outcome).isEqualTo("paused");
            assertThat(paused.elapsed()).as("%s: paused in %s", label, paused.elapsed()).isLessThan(BOUND);
            assertThat(paused.log()).as(label).doesNotContain(" INFO ", " ERROR ", "host code");
            TIMES.add(label + " " + paused.elapsed().toMillis() + " ms");
            awaitNoScriptRunning();
        }
        assertThat(Codemode.sharedSandbox().run("return 1", new Sandbox.Bindings((t, a) -> "null", new java.util.TreeSet<>(),
                1L, 0L, line -> { }), Codemode.Limits.DEFAULT.sandbox())).as("the sandbox still takes scripts")
                .isEqualTo(new Sandbox.Result.Returned("1"));
        assertThat(fx.notes.reads).hasValue(0);
    }

    /** Waits until no script thread runs (a stopped one is reaped on another thread). */
    private static void awaitNoScriptRunning() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            boolean running = Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName()
                    .startsWith("toolgate-codemode-script-") && t.getState() == Thread.State.RUNNABLE);
            if (!running) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("a script thread still runs 10 s after its run paused");
    }

    @Test
    void anUncaughtPauseLogsNothingAboveDebugEither() {
        Timed<JsonNode> paused = timed(() -> run(fx.ctx(fx.writer), "tools.notes.add({id: \"n1\", text: \"x\"}); return 1;"));
        assertPaused("uncaught", paused, 1);
    }

    @Test
    void aDeniedCallCaughtThenAMutationCaughtPausesAtOnce() {
        gate.setMode(fx.ctx(fx.admin), OverrideScope.TENANT, "notes.purge", Mode.DENY);
        String code = """
                let denied;
                try { tools.notes.purge({id: "a"}); } catch (e) { denied = e.name; }
                try { tools.notes.add({id: "n1", text: denied}); } catch (e) { console.log("after"); }
                for (;;) { try { tools.notes.list({}); } catch (e) { } }
                """;
        Timed<JsonNode> paused = timed(() -> run(fx.ctx(fx.writer), code));
        assertPaused("denied, then caught", paused, 2);
        assertThat(paused.value().get("pending").get(0).get("arguments").get("text").asString()).isEqualTo("DeniedError");
        assertThat(fx.notes.reads).hasValue(0);
    }

    @Test
    void aReplayWhoseScriptCatchesTheSecondPausePausesAgainAtOnce() {
        String code = """
                try { tools.notes.add({id: "n1", text: "one"}); } catch (e) { console.log("after"); }
                try { tools.notes.add({id: "n2", text: "two"}); } catch (e) { console.log("after"); }
                for (;;) { }
                """;
        Timed<JsonNode> first = timed(() -> run(fx.ctx(fx.writer), code));
        assertPaused("first attempt", first, 1);
        String id = first.value().get("executionId").asString();

        Timed<ExecutionOutcome> replay = timed(() -> gate.executions().approve(fx.ctx(fx.approver), id));
        assertThat(replay.value()).isInstanceOfSatisfying(ExecutionOutcome.Paused.class,
                p -> assertThat(p.pending().get(0).seq()).isEqualTo(2));
        assertUnderBoundAndQuiet("the replay", replay);
        assertThat(fx.notes.snapshot()).containsOnlyKeys("n1");
        assertThat(fx.notes.mutations).hasValue(1);
    }

    @Test
    void aBudgetRefusalCaughtByTheScriptFailsTheRunAtOnce() {
        Toolgate tight = gate(fx, ToolBudget.perPrincipal(3, Duration.ofHours(1)));
        Timed<JsonNode> refused = timed(() -> run(tight, fx.ctx(fx.reader), """
                for (let i = 0; i < 10; i++) { try { tools.notes.list({}); } catch (e) { console.log("after", e.name); } }
                for (;;) { }
                """));
        assertThat(refused.value().get("status").asString()).isEqualTo("error");
        assertThat(refused.value().get("error").asString()).contains("refused").containsIgnoringCase("budget");
        assertThat(refused.value().get("logs").toString()).doesNotContain("after");
        assertThat(refused.elapsed()).as("refused in %s", refused.elapsed()).isLessThan(BOUND);
        assertThat(refused.log()).doesNotContain(" WARN ", " ERROR ", "host code");
        LoggerFactory.getLogger(CaughtPauseTest.class).debug("budget refusal: {} ms", refused.elapsed().toMillis());
    }

    @Test
    void aTestRunRefusedByTheBudgetEndsAtOnceWhateverTheScriptCatches() {
        Toolgate tight = gate(fx, ToolBudget.perPrincipal(3, Duration.ofHours(1)));
        Timed<JsonNode> report = timed(() -> {
            CallResult result = tight.call(fx.ctx(fx.reader), Codemode.TEST, Json.toTree(Map.of("code", """
                    for (let i = 0; i < 10; i++) { try { tools.notes.list({}); } catch (e) { console.log("after", e.name); } }
                    for (;;) { }
                    """)));
            return ((Executed) result).result();
        });
        assertThat(report.value().get("status").asString()).isEqualTo("error");
        assertThat(report.value().get("error").asString()).contains("refused");
        assertThat(report.value().get("logs").toString()).doesNotContain("after");
        assertThat(report.elapsed()).as("refused in %s", report.elapsed()).isLessThan(BOUND);
        assertThat(report.log()).doesNotContain(" WARN ", " ERROR ", "host code");
    }

    private static void assertPaused(String label, Timed<JsonNode> paused, int seq) {
        JsonNode outcome = paused.value();
        assertThat(outcome.get("status").asString()).as("%s: %s", label, outcome).isEqualTo("paused");
        assertThat(outcome.get("pending").get(0).get("seq").asInt()).as(label).isEqualTo(seq);
        assertThat(outcome.path("logs").toString()).as("%s: nothing logged after the pause", label).doesNotContain("after");
        assertUnderBoundAndQuiet(label, paused);
    }

    private static void assertUnderBoundAndQuiet(String label, Timed<?> timed) {
        assertThat(timed.elapsed()).as("%s: paused in %s", label, timed.elapsed()).isLessThan(BOUND);
        assertThat(timed.log()).as("%s: a normal pause logs nothing above DEBUG", label)
                .doesNotContain(" INFO ", " WARN ", " ERROR ", "A script failed inside the sandbox's host code");
        TIMES.add(label + " " + timed.elapsed().toMillis() + " ms");
    }

    static final List<String> TIMES = new java.util.concurrent.CopyOnWriteArrayList<>();

    @AfterEach
    void report() {
        if (!TIMES.isEmpty()) {
            System.out.println("caught pause timings: " + TIMES);
            TIMES.clear();
        }
    }

    /** What an action returned, how long it took, and what was logged meanwhile. */
    record Timed<T>(T value, Duration elapsed, String log) {
    }

    /** Runs {@code action} with standard error captured (slf4j-simple writes there). */
    static <T> Timed<T> timed(Supplier<T> action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        long start = System.nanoTime();
        T value;
        Duration elapsed;
        try {
            value = action.get();
            elapsed = Duration.ofNanos(System.nanoTime() - start);
        } catch (RuntimeException | AssertionError e) {
            e.addSuppressed(new Exception("standard error while it ran:\n" + captured.toString(StandardCharsets.UTF_8)));
            throw e;
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        if (!log.isEmpty()) {
            original.print(log); // still visible in the test's output
        }
        return new Timed<>(value, elapsed, log);
    }
}
