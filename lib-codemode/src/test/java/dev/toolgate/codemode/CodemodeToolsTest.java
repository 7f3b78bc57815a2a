package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.execution.RollbackResult;
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
import dev.toolgate.tool.ToolValidationException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The three codemode tools through the gate, as a model calls them, on the in-memory store. */
class CodemodeToolsTest {

    private MutableClock clock;
    private Fixture fx;
    private Toolgate gate;

    @BeforeEach
    void open() {
        clock = new MutableClock();
        fx = new Fixture(clock, new InMemoryStore(clock));
        gate = fx.gate(b -> b.programs(Codemode.programs()));
        // 100,000 statements: an endless loop meets the statement limit well before the 2 s, on a slow machine too
        gate.registry().register(Codemode.tools(gate, Codemode.Limits.DEFAULT.withTimeout(Duration.ofSeconds(2))
                .withMaxStatements(100_000)));
    }

    @AfterEach
    void close() {
        fx.close();
    }

    private CallContext writer() {
        return fx.ctx(fx.writer);
    }

    private CallContext approver() {
        return fx.ctx(fx.approver);
    }

    private JsonNode read(CallContext ctx, String tool, Object input) {
        CallResult result = gate.call(ctx, tool, Json.toTree(input));
        assertThat(result).as("%s is a read", tool).isInstanceOf(Executed.class);
        return ((Executed) result).result();
    }

    /** codemode.run: the call applies at once (standing approval); its result is the run's outcome. */
    private JsonNode run(CallContext ctx, String code) {
        CallResult result = gate.call(ctx, Codemode.RUN, Json.toTree(Map.of("code", code)));
        assertThat(result).isInstanceOfSatisfying(Applied.class, a -> assertThat(a.automatic()).isTrue());
        return ((Applied) result).result();
    }

    /** A source whose tools a script calls as {@code tools["mcp:docs"].search(...)}. */
    static final class DocsSource implements dev.toolgate.source.ToolSource {
        final java.util.List<String> published = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public String id() {
            return "mcp:docs";
        }

        @Override
        public java.util.List<dev.toolgate.source.SourceTool> listTools(dev.toolgate.source.SourceContext context) {
            tools.jackson.databind.node.ObjectNode schema = (tools.jackson.databind.node.ObjectNode) Json.toTree(Map.of(
                    "type", "object", "properties", Map.of("text", Map.of("type", "string")), "required", List.of("text")));
            return List.of(dev.toolgate.source.SourceTool.of("search", "Search the docs.", dev.toolgate.tool.Effect.READ, schema),
                    dev.toolgate.source.SourceTool.of("publish", "Publish a page.", dev.toolgate.tool.Effect.MUTATE, schema));
        }

        @Override
        public JsonNode callTool(String tool, JsonNode arguments, dev.toolgate.source.SourceContext context) {
            if (tool.equals("publish")) {
                published.add(arguments.get("text").asString());
                return Json.toTree(Map.of("published", arguments.get("text").asString()));
            }
            return Json.toTree(Map.of("hits", List.of("page about " + arguments.get("text").asString())));
        }
    }

    @Test
    void aSourcesToolsAreDeclaredUnderTheirSourceAndAScriptCallsThemThroughTheGate() {
        DocsSource docs = new DocsSource();
        Toolgate withSource = fx.gate(b -> b.programs(Codemode.programs()).source(docs));
        withSource.registry().register(Codemode.tools(withSource, Codemode.Limits.DEFAULT.withTimeout(Duration.ofSeconds(2))));

        JsonNode declared = ((Executed) withSource.call(fx.ctx(fx.admin), Codemode.DESCRIBE, Json.toTree(Map.of()))).result();
        assertThat(declared.get("typescript").asString()).contains("\"mcp:docs\": {").contains("search(input")
                .contains("publish(input");

        JsonNode reads = ((Applied) withSource.call(fx.ctx(fx.admin), Codemode.RUN, Json.toTree(Map.of("code",
                "return tools[\"mcp:docs\"].search({text: \"x\"}).hits;")))).result();
        assertThat(reads.get("status").asString()).isEqualTo("completed");
        assertThat(reads.get("result").get(0).asString()).isEqualTo("page about x");

        CallResult result = withSource.call(fx.ctx(fx.admin), Codemode.RUN, Json.toTree(Map.of("code", """
                const found = tools["mcp:docs"].search({text: "budgets"});
                tools["mcp:docs"].publish({text: found.hits[0]});
                return found;
                """)));
        JsonNode outcome = ((Applied) result).result();
        assertThat(outcome.get("status").asString()).as("the source's MUTATE tool pauses the run").isEqualTo("paused");
        assertThat(docs.published).as("nothing is sent to the source before consent").isEmpty();
    }

    @Test
    void describeDeclaresExactlyTheToolsTheCallerMayUse() {
        JsonNode writer = read(writer(), Codemode.DESCRIBE, Map.of());
        assertThat(Json.mapper().convertValue(writer.get("tools"), List.class)).contains("notes.add", "notes.list", "notes.purge")
                .noneMatch(name -> name.toString().startsWith("codemode."));
        assertThat(writer.get("typescript").asString()).contains("declare const tools").contains("notes").contains("add(");

        JsonNode reader = read(fx.ctx(fx.reader), Codemode.DESCRIBE, Map.of());
        assertThat(Json.mapper().convertValue(reader.get("tools"), List.class)).contains("notes.list").doesNotContain("notes.add");

        gate.setMode(fx.ctx(fx.admin), OverrideScope.TENANT, "notes.purge", Mode.DENY);
        JsonNode denied = read(writer(), Codemode.DESCRIBE, Map.of("plugins", List.of("notes")));
        assertThat(Json.mapper().convertValue(denied.get("tools"), List.class)).as("a tool policy denies is not offered")
                .contains("notes.add").doesNotContain("notes.purge");
    }

    @Test
    void describeRefusesAPluginTheCallerDoesNotHave() {
        assertThatThrownBy(() -> gate.call(writer(), Codemode.DESCRIBE, Json.toTree(Map.of("plugins", List.of("notes", "billing")))))
                .isInstanceOfSatisfying(ToolValidationException.class, e -> assertThat(e.issues()).singleElement()
                        .satisfies(issue -> {
                            assertThat(issue.path()).isEqualTo("/plugins/1");
                            assertThat(issue.message()).contains("billing").contains("notes");
                        }));
    }

    @Test
    void testRunsReadsForRealAndAnswersMutationsWithTheirDryRunsChangingNothing() {
        fx.notes.put("a", "alpha");
        JsonNode report = read(writer(), Codemode.TEST, Map.of("code", """
                const before = tools.notes.list({});
                const added = tools.notes.add({id: "n1", text: "hello"});
                console.log("would add", added.summary);
                return {before: Object.keys(before).length, dryRun: added.dryRun};
                """));

        assertThat(report.get("status").asString()).isEqualTo("completed");
        assertThat(report.get("result").get("before").asInt()).isEqualTo(1);
        assertThat(report.get("result").get("dryRun").asBoolean()).isTrue();
        assertThat(report.get("logs").get(0).asString()).isEqualTo("would add Add note n1");
        assertThat(report.get("steps").get(0).get("outcome").asString()).isEqualTo("ran");
        assertThat(report.get("steps").get(1).get("outcome").asString()).isEqualTo("would_pause");
        assertThat(report.get("steps").get(1).get("summary").asString()).isEqualTo("Add note n1");
        assertThat(report.get("wouldPause").get(0).asInt()).isEqualTo(2);
        assertThat(fx.notes.snapshot()).containsOnlyKeys("a");
        assertThat(fx.notes.mutations).hasValue(0);
        assertThat(fx.records()).extracting(CallRecord::status).doesNotContain(CallStatus.PROPOSED, CallStatus.APPLIED);
    }

    @Test
    void aRunPausesAtTheMutationAndAnApprovalReplaysItToTheEnd() {
        fx.notes.put("a", "alpha");
        JsonNode paused = run(writer(), """
                const before = tools.notes.list({});
                console.log("notes before:", Object.keys(before).length);
                tools.notes.add({id: "n1", text: "from a script"});
                return Object.keys(tools.notes.list({})).length;
                """);
        assertThat(paused.get("status").asString()).isEqualTo("paused");
        assertThat(paused.get("next").asString()).contains("approve");
        JsonNode step = paused.get("pending").get(0);
        assertThat(step.get("seq").asInt()).isEqualTo(2);
        assertThat(step.get("tool").asString()).isEqualTo("notes.add");
        assertThat(step.get("summary").asString()).isEqualTo("Add note n1");
        assertThat(fx.notes.snapshot()).containsOnlyKeys("a");
        String id = paused.get("executionId").asString();

        ExecutionOutcome done = gate.executions().approve(approver(), id);
        assertThat(done).isInstanceOfSatisfying(ExecutionOutcome.Completed.class, c -> {
            assertThat(c.result().asInt()).isEqualTo(2);
            assertThat(c.logs()).containsExactly("notes before: 1");
        });
        assertThat(fx.notes.snapshot()).containsOnlyKeys("a", "n1");
        assertThat(fx.notes.reads).as("step 1 was answered from the log on the replay").hasValue(2);
        assertThat(gate.executions().steps(id)).extracting(CallRecord::stepSeq).containsExactly(1, 2, 3);
    }

    @Test
    void aReplayServesTheSameRandomNumbersAndClockSoTheScriptMakesTheSameCalls() {
        JsonNode paused = run(writer(), """
                const r = Math.random();
                const now = Date.now();
                tools.notes.add({id: "n" + Math.floor(r * 1e9), text: new Date().toISOString()});
                return {r, now, later: Math.random()};
                """);
        String id = paused.get("executionId").asString();
        String pendingId = paused.get("pending").get(0).get("arguments").get("id").asString();
        clock.advance(Duration.ofMinutes(7));

        ExecutionOutcome done = gate.executions().approve(approver(), id);
        assertThat(done).as("no divergence on replay").isInstanceOf(ExecutionOutcome.Completed.class);
        JsonNode result = ((ExecutionOutcome.Completed) done).result();
        assertThat("n" + (long) Math.floor(result.get("r").asDouble() * 1e9)).isEqualTo(pendingId);
        assertThat(result.get("now").asLong()).isEqualTo(gate.executions().find(id).orElseThrow().createdAt().toEpochMilli());
        assertThat(result.get("later").asDouble()).isNotEqualTo(result.get("r").asDouble());
        assertThat(fx.notes.snapshot()).containsOnlyKeys(pendingId);
    }

    @Test
    void aRejectedStepEndsTheRunAndARollbackUndoesWhatTheScriptApplied() {
        String script = """
                tools.notes.add({id: "x1", text: "one"});
                tools.notes.add({id: "x2", text: "two"});
                return "done";
                """;
        String rejectedRun = run(writer(), script).get("executionId").asString();
        assertThat(gate.executions().reject(approver(), rejectedRun, 1, "not today")).isTrue();
        assertThat(gate.executions().find(rejectedRun).orElseThrow().status()).isEqualTo(ExecutionStatus.REJECTED);
        assertThat(fx.notes.snapshot()).isEmpty();

        String id = run(writer(), script).get("executionId").asString();
        gate.executions().approve(approver(), id);
        assertThat(gate.executions().approve(approver(), id)).isInstanceOf(ExecutionOutcome.Completed.class);
        assertThat(fx.notes.snapshot()).containsOnlyKeys("x1", "x2");

        RollbackResult rollback = gate.executions().rollback(approver(), id);
        assertThat(rollback.reverted()).isEqualTo(2);
        assertThat(fx.notes.revertOrder).containsExactly("x2", "x1");
        assertThat(fx.notes.snapshot()).isEmpty();
        assertThat(gate.executions().find(id).orElseThrow().status()).isEqualTo(ExecutionStatus.ROLLED_BACK);
    }

    @Test
    void theScriptCanCatchADenialAndTheGatesOtherErrors() {
        gate.setMode(fx.ctx(fx.admin), OverrideScope.TENANT, "notes.add", Mode.DENY);
        JsonNode outcome = run(writer(), """
                const seen = [];
                try { tools.notes.add({id: "n1", text: "x"}); } catch (e) { seen.push(e.name, e instanceof Error, e.tool); }
                try { tools.notes.fail({}); } catch (e) { seen.push(e.name, e.message.includes("notes.fail")); }
                return seen;
                """);
        assertThat(outcome.get("status").asString()).isEqualTo("completed");
        assertThat(Json.mapper().convertValue(outcome.get("result"), List.class))
                .containsExactly("DeniedError", true, "notes.add", "ToolError", true);
        assertThat(fx.notes.snapshot()).isEmpty();
    }

    @Test
    void aScriptsErrorsAreErrorOutcomesWithWhereAndAreRecordedOnTheRun() {
        Map<String, String> cases = Map.of(
                "return 1 +;", "1:",
                "const a = 1;\nnull.x;", "2:",
                "throw new Error('boom');", "boom",
                "while (true) {}", "statements",
                "for (;;) { try { tools.notes.slow({}); } catch (e) { } }", "longer than 2 s",
                "function f() { return f() + 1; }\nreturn f();", "stack",
                "return tools.codemode.run({code: 'return 1'});", "TypeError");
        cases.forEach((code, expected) -> {
            JsonNode outcome = run(writer(), code);
            assertThat(outcome.get("status").asString()).as(code).isEqualTo("error");
            assertThat(outcome.get("error").asString()).as(code).containsIgnoringCase(expected);
            assertThat(gate.executions().find(outcome.get("executionId").asString()).orElseThrow())
                    .satisfies(run -> {
                        assertThat(run.status()).isEqualTo(ExecutionStatus.FAILED);
                        assertThat(run.error()).isEqualTo(outcome.get("error").asString());
                    });
        });
        assertThat(fx.notes.mutations).hasValue(0);
    }

    @Test
    void theLimitsHoldAndTooLargeOrEmptySourceIsRefusedBeforeAnythingRuns() {
        Toolgate small = fx.gate(b -> b.programs(Codemode.programs()));
        // 60 s: the loop below must meet the statement limit, not the clock, and on a slow machine the default
        // 5 s was not always enough for a gate's first script, interpreted and on the gate's cold path
        small.registry().register(Codemode.tools(small, Codemode.Limits.DEFAULT.withMaxSourceBytes(64).withMaxStatements(1_000)
                .withMaxLogLines(2).withTimeout(Duration.ofSeconds(60))));
        assertThatThrownBy(() -> small.call(writer(), Codemode.RUN, Json.toTree(Map.of("code", "return 1;" + " ".repeat(100)))))
                .isInstanceOfSatisfying(ToolValidationException.class, e -> assertThat(e.issues()).singleElement()
                        .satisfies(issue -> assertThat(issue.path()).isEqualTo("/code")));
        assertThatThrownBy(() -> small.call(writer(), Codemode.RUN, Json.toTree(Map.of("code", "  "))))
                .isInstanceOf(ToolValidationException.class);
        assertThat(small.executions().executions(dev.toolgate.audit.ExecutionQuery.latest(10))).isEmpty();

        Applied loop = (Applied) small.call(writer(), Codemode.RUN, Json.toTree(Map.of("code", "for (;;) { }")));
        assertThat(loop.result().get("error").asString()).containsIgnoringCase("statement");
        Applied chatty = (Applied) small.call(writer(), Codemode.RUN,
                Json.toTree(Map.of("code", "for (let i = 0; i < 5; i++) console.log(i); return 1;")));
        assertThat(Json.mapper().convertValue(chatty.result().get("logs"), List.class))
                .containsExactly("0", "1", "(3 more line(s) dropped: at most 2 are kept)");
    }

    @Test
    void theToolsNeedTheProgramOnTheGate() {
        Toolgate without = fx.gate(b -> b);
        assertThatThrownBy(() -> Codemode.tools(without)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Codemode.programs()");
    }

    @Test
    void theCallsOfAScriptAreGovernedForItsCaller() {
        JsonNode outcome = run(fx.ctx(fx.reader), """
                const notes = tools.notes.list({});
                return typeof tools.notes.add;
                """);
        assertThat(outcome.get("status").asString()).isEqualTo("completed");
        assertThat(outcome.get("result").asString()).as("the reader's script sees only the reader's tools").isEqualTo("undefined");
    }

    @Test
    void aReplayThatMakesOtherCallsThanTheLogFailsTheRunAndRunsNothing() {
        java.util.concurrent.atomic.AtomicBoolean flagged = new java.util.concurrent.atomic.AtomicBoolean(true);
        dev.toolgate.access.Principal plain = dev.toolgate.access.Principal.user("writer", dev.toolgate.testkit.Notes.READ,
                dev.toolgate.testkit.Notes.WRITE);
        dev.toolgate.access.Principal withFlag = dev.toolgate.access.Principal.user("writer", dev.toolgate.testkit.Notes.READ,
                dev.toolgate.testkit.Notes.WRITE, "flag.read");
        Toolgate directed = fx.gate(b -> b.programs(Codemode.programs())
                .principalDirectory(ref -> java.util.Optional.of(flagged.get() ? withFlag : plain))
                .tools("flag", dev.toolgate.tool.Tool.builder("get", dev.toolgate.tool.NoInput.class).description("A flag")
                        .effect(dev.toolgate.tool.Effect.READ).requires("flag.read").execute((in, ctx) -> true).build()));
        directed.registry().register(Codemode.tools(directed));
        Applied started = (Applied) directed.call(fx.ctx(withFlag), Codemode.RUN, Json.toTree(Map.of("code", """
                if (tools.flag) { tools.flag.get({}); }
                tools.notes.add({id: "d1", text: "diverges"});
                return "done";
                """)));
        String id = started.result().get("executionId").asString();
        assertThat(started.result().get("pending").get(0).get("seq").asInt()).isEqualTo(2);

        flagged.set(false); // the writer lost the flag's rule: the replay takes the other branch
        ExecutionOutcome outcome = directed.executions().approve(approver(), id);
        assertThat(outcome).isInstanceOfSatisfying(ExecutionOutcome.Failed.class,
                f -> assertThat(f.error()).startsWith("replay diverged at step 1"));
        assertThat(fx.notes.snapshot()).isEmpty();
        assertThat(fx.notes.mutations).hasValue(0);
    }
}
