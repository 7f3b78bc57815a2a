package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.execution.ProgramException;
import dev.toolgate.call.Applied;
import dev.toolgate.call.Executed;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.json.Json;
import dev.toolgate.json.TextCap;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.testkit.Fixture;
import dev.toolgate.testkit.MutableClock;
import dev.toolgate.testkit.Notes;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 45: a script's, a tool's or a program's message of 10 MB is neither logged whole (slf4j-simple
 * logs at INFO here, to standard error, which each case captures) nor lost from what the model gets:
 * the model's outcome keeps {@code error}, its redacted beginning and a marker.
 */
class LongMessagesTest {

    /** A log line's own words around the capped message: logger, thread, level, ids. */
    private static final int LINE_OVERHEAD = 300;
    private static final String SCRIPT = "throw new Error(\"password=hunter2 \" + \"x\".repeat(10000000));";

    private Fixture fx;
    private Toolgate gate;

    @BeforeEach
    void open() {
        MutableClock clock = new MutableClock();
        fx = new Fixture(clock, new InMemoryStore(clock));
        Tool<NoInput, Object> huge = Tool.builder("fail", NoInput.class).description("fails at length").effect(Effect.READ)
                .requires(Notes.READ).execute((in, ctx) -> {
                    throw new IllegalStateException("password=hunter2 " + "y".repeat(10_000_000));
                }).build();
        gate = fx.gate(b -> b.programs(Codemode.programs()).tools("huge", huge).program("huge.program", run -> {
            throw new ProgramException("password=hunter2 " + "z".repeat(10_000_000));
        }));
        gate.registry().register(Codemode.tools(gate));
    }

    @AfterEach
    void close() {
        fx.close();
    }

    private static void assertCapped(String label, String error, String prefix) {
        assertThat(error).as(label).isNotNull().hasSizeLessThanOrEqualTo(TextCap.MESSAGE_CHARS).contains(prefix)
                .contains("password=[REDACTED]").endsWith(" more characters)").doesNotContain("hunter2");
    }

    private static void assertLogBounded(String label, String log, String expected) {
        assertThat(log).as(label).contains(expected).doesNotContain("hunter2");
        for (String line : log.split("\n")) {
            assertThat(line.length()).as("%s: a logged line of %s characters", label, line.length())
                    .isLessThanOrEqualTo(TextCap.LOG_CHARS + LINE_OVERHEAD);
        }
    }

    @Test
    void aScriptsHugeErrorInCodemodeRunIsLoggedCutAndTheModelKeepsItsBeginning() {
        CaughtPauseTest.Timed<JsonNode> run = CaughtPauseTest.timed(() ->
                ((Applied) gate.call(fx.ctx(fx.writer), Codemode.RUN, Json.toTree(Map.of("code", SCRIPT)))).result());
        assertThat(run.value().get("status").asString()).isEqualTo("error");
        assertCapped("codemode.run", run.value().get("error").asString(), "Error at 1:7: password=[REDACTED] xxxx");
        assertThat(run.value().has("_truncated")).as("the outcome fits whole").isFalse();
        assertLogBounded("codemode.run", run.log(), "failed: Error at 1:7");
        String id = run.value().get("executionId").asString();
        assertThat(gate.executions().find(id).orElseThrow().error()).isEqualTo(run.value().get("error").asString());
    }

    @Test
    void aScriptsHugeErrorInCodemodeTestComesBackCut() {
        CaughtPauseTest.Timed<JsonNode> report = CaughtPauseTest.timed(() ->
                ((Executed) gate.call(fx.ctx(fx.writer), Codemode.TEST, Json.toTree(Map.of("code", SCRIPT)))).result());
        assertThat(report.value().get("status").asString()).isEqualTo("error");
        assertCapped("codemode.test", report.value().get("error").asString(), "password=[REDACTED] xxxx");
        assertThat(report.value().has("_truncated")).isFalse();
        assertLogBounded("codemode.test", report.log(), "");
    }

    @Test
    void aToolsHugeMessageIsLoggedCutAndTheCallerAndTheScriptGetItsBeginning() {
        CaughtPauseTest.Timed<ToolExecutionException> call = CaughtPauseTest.timed(() -> {
            try {
                gate.call(fx.ctx(fx.writer), "huge.fail", (String) null);
                throw new AssertionError("huge.fail did not fail");
            } catch (ToolExecutionException e) {
                return e;
            }
        });
        assertCapped("the caller", call.value().getMessage(), "password=[REDACTED] yyyy");
        assertThat(call.value().getMessage()).as("no Java class name for the model").doesNotContain("IllegalStateException");
        assertLogBounded("the gate", call.log(), "Tool huge.fail failed");

        CaughtPauseTest.Timed<JsonNode> run = CaughtPauseTest.timed(() -> ((Applied) gate.call(fx.ctx(fx.writer), Codemode.RUN,
                Json.toTree(Map.of("code", "try { tools.huge.fail({}); } catch (e) { return e.message; }")))).result());
        assertThat(run.value().get("status").asString()).isEqualTo("completed");
        assertThat(run.value().get("result").asString()).hasSizeLessThanOrEqualTo(TextCap.MESSAGE_CHARS + 100)
                .startsWith("huge.fail failed: password=[REDACTED] yyyy");
        assertLogBounded("the gate, for a script", run.log(), "Tool huge.fail failed");

        CaughtPauseTest.Timed<JsonNode> uncaught = CaughtPauseTest.timed(() -> ((Applied) gate.call(fx.ctx(fx.writer),
                Codemode.RUN, Json.toTree(Map.of("code", "return tools.huge.fail({});")))).result());
        assertThat(uncaught.value().get("status").asString()).isEqualTo("error");
        assertCapped("a script's uncaught ToolError", uncaught.value().get("error").asString(), "ToolError");
        assertLogBounded("an uncaught ToolError", uncaught.log(), "failed: ToolError");
    }

    @Test
    void aDurableProgramsHugeMessageIsLoggedCutAndItsOutcomeKeepsItsError() {
        CaughtPauseTest.Timed<ExecutionOutcome> run = CaughtPauseTest.timed(() ->
                gate.executions().start(fx.ctx(fx.writer), "huge.program", (String) null));
        assertThat(run.value()).isInstanceOf(ExecutionOutcome.Failed.class);
        assertCapped("the outcome", run.value().toJson().get("error").asString(), "password=[REDACTED] zzzz");
        assertLogBounded("the engine", run.log(), "Execution " + run.value().executionId() + " of huge.program failed");
        assertThatThrownBy(() -> gate.executions().find(run.value().executionId()).orElseThrow().error().substring(
                TextCap.MESSAGE_CHARS)).as("the stored error is capped too").isInstanceOf(StringIndexOutOfBoundsException.class);
    }
}
