package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The sandbox's contract with its callers: values, tools, errors, determinism, limits, threads. */
class SandboxTest {

    private static final Sandbox.Limits LIMITS = new Sandbox.Limits(Duration.ofSeconds(2), 1_000_000, 10_000);
    private static Sandbox sandbox;

    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final List<String> logs = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void open() {
        sandbox = new Sandbox();
    }

    @AfterAll
    static void close() {
        sandbox.close();
    }

    /**
     * Starting the JavaScript language on an engine takes hundreds of milliseconds (seconds on a slow
     * machine): the sandbox runs a script of its own when it is created, through the whole path, so a
     * caller's first script has its whole wall-clock limit for itself. (The times are logged, not
     * asserted: here about 100 ms for a fresh engine's first script without the warm-up, 6 ms with it.)
     */
    @Test
    void aNewSandboxHasRunAScriptOfItsOwnBeforeTheCallersFirst() {
        long created = System.nanoTime();
        try (Sandbox fresh = new Sandbox()) {
            long ready = System.nanoTime();
            assertThat(fresh.scriptsRun()).as("the warm-up").isEqualTo(1);
            assertThat(calls).as("the warm-up calls none of a caller's tools").isEmpty();
            assertThat(logs).isEmpty();
            Sandbox.Result first = fresh.run("return 1 + 1", bindings((tool, args) -> "null"), LIMITS);
            org.slf4j.LoggerFactory.getLogger(SandboxTest.class).info("new sandbox {} ms, its first script {} ms",
                    (ready - created) / 1_000_000, (System.nanoTime() - ready) / 1_000_000);
            assertThat(first).isInstanceOf(Sandbox.Result.Returned.class);
            assertThat(((Sandbox.Result.Returned) first).json()).isEqualTo("2");
            assertThat(fresh.scriptsRun()).isEqualTo(2);
        }
    }

    private Sandbox.Bindings bindings(Sandbox.ToolCaller caller, String... tools) {
        return new Sandbox.Bindings((tool, args) -> {
            calls.add(tool + " " + args);
            return caller.call(tool, args);
        }, new TreeSet<>(Set.of(tools)), 42L, 1_700_000_000_000L, logs::add);
    }

    private Sandbox.Result run(String code, Sandbox.ToolCaller caller, String... tools) {
        return sandbox.run(code, bindings(caller, tools), LIMITS);
    }

    private String returned(String code, Sandbox.ToolCaller caller, String... tools) {
        Sandbox.Result result = run(code, caller, tools);
        assertThat(result).as(code).isInstanceOf(Sandbox.Result.Returned.class);
        return ((Sandbox.Result.Returned) result).json();
    }

    private CodeError failed(String code, Sandbox.ToolCaller caller, String... tools) {
        Sandbox.Result result = run(code, caller, tools);
        assertThat(result).as(code).isInstanceOf(Sandbox.Result.Failed.class);
        return ((Sandbox.Result.Failed) result).error();
    }

    private static String echo(String tool, String args) {
        return args;
    }

    @Test
    void returnsEachJsonValueAndUndefinedAsNull() {
        assertThat(returned("return {a: [1, 'x', true, null], b: 2.5};", SandboxTest::echo))
                .isEqualTo("{\"a\":[1,\"x\",true,null],\"b\":2.5}");
        assertThat(returned("return 'text';", SandboxTest::echo)).isEqualTo("\"text\"");
        assertThat(returned("const x = 1;", SandboxTest::echo)).isEqualTo("null");
        assertThat(returned("return undefined;", SandboxTest::echo)).isEqualTo("null");
        assertThat(failed("return 10n;", SandboxTest::echo).message()).contains("cannot be written as JSON");
        assertThat(failed("const a = {}; a.self = a; return a;", SandboxTest::echo).kind())
                .isEqualTo(CodeError.Kind.NOT_JSON);
    }

    @Test
    void toolsAreNamedByPluginAndLocalNameAndTakeTheirInputAsJson() {
        String result = returned("""
                const a = tools.incident.create({title: "x", n: 1});
                const b = tools.a["b.c"]({});
                const c = tools.solo();
                return [a, b, c, Object.keys(tools).sort(), typeof tools.incident.missing];
                """, (tool, args) -> "{\"tool\":\"" + tool + "\"}", "incident.create", "a.b.c", "solo");
        assertThat(result).isEqualTo("[{\"tool\":\"incident.create\"},{\"tool\":\"a.b.c\"},{\"tool\":\"solo\"},"
                + "[\"a\",\"incident\",\"solo\"],\"undefined\"]");
        assertThat(calls).containsExactly("incident.create {\"title\":\"x\",\"n\":1}", "a.b.c {}", "solo {}");
        assertThat(returned("return [Object.isFrozen(tools), Object.isFrozen(tools.a), Object.getPrototypeOf(tools)];",
                SandboxTest::echo, "a.b")).isEqualTo("[true,true,null]");
    }

    @Test
    void aToolFailureIsACatchableErrorWithNameToolAndData() {
        Sandbox.ToolCaller denying = (tool, args) -> {
            throw new Sandbox.ToolFailure("DeniedError", tool + " was denied", "{\"reason\":\"policy\"}");
        };
        assertThat(returned("""
                try { tools.x.y({}); } catch (e) {
                  return [e.name, e.message, e.tool, e.data.reason, e instanceof Error, e instanceof DeniedError];
                }
                """, denying, "x.y")).isEqualTo("[\"DeniedError\",\"x.y was denied\",\"x.y\",\"policy\",true,true]");
        assertThat(failed("\n  tools.x.y({});", denying, "x.y").describe()).startsWith("DeniedError at 2:").endsWith(": x.y was denied");
        assertThat(returned("try { tools.x.y({}); } catch (e) { return [e.name, e instanceof TypeError]; }",
                (tool, args) -> {
                    throw new Sandbox.ToolFailure("TypeError", "no such tool", null);
                }, "x.y")).isEqualTo("[\"TypeError\",true]");
    }

    @Test
    void anyOtherExceptionOfTheCallerStopsTheScriptWhateverItCatches() {
        stopsWhateverItCatches(new IllegalStateException("pause at step 1"));
        // the execution engine's stop signals are Errors, so that ordinary catch blocks of programs miss them
        stopsWhateverItCatches(new Error("paused at step 1", null, false, false) { });
    }

    private void stopsWhateverItCatches(Throwable pause) {
        Sandbox.ToolCaller pausing = (tool, args) -> {
            if (pause instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) pause;
        };
        for (String code : List.of(
                "try { tools.x.y({}); } catch (e) { } return 1;",
                "try { tools.x.y({}); } finally { return 1; }",
                "for (let i = 0; i < 3; i++) { try { tools.x.y({}); } catch (e) { } } return 1;",
                "try { tools.x.y({}); } catch (e) { for (;;) { } }",
                "try { tools.x.y({}); } catch (e) { Promise.resolve().then(() => tools.x.y({})); } return 1;")) {
            calls.clear();
            assertThatThrownBy(() -> run(code, pausing, "x.y")).as(code).isSameAs(pause);
            assertThat(calls).as("%s: no call after the stop", code).hasSize(1);
        }
    }

    @Test
    void aScriptAfterAStoppedOneRunsInItsOwnContextWhateverThreadItGets() {
        // a stop cancels the script's context; the next script, likely on the pooled thread that was in it,
        // must run in a context of its own and never meet the cancelled one
        Sandbox.ToolCaller pausing = (tool, args) -> {
            throw new IllegalStateException("pause");
        };
        for (int i = 0; i < 30; i++) {
            assertThatThrownBy(() -> run("try { tools.x.y({}); } catch (e) { for (;;) { } }", pausing, "x.y"))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(returned("return tools.x.y({n: " + i + "});", SandboxTest::echo, "x.y")).isEqualTo("{\"n\":" + i + "}");
        }
    }

    @Test
    void noToolCallIsMadeAfterTheScriptReturned() {
        String result = returned("""
                Promise.resolve().then(() => tools.x.y({late: true}));
                return "returned";
                """, SandboxTest::echo, "x.y");
        assertThat(result).isEqualTo("\"returned\"");
        assertThat(calls).isEmpty();
        assertThat(failed("return (async () => { await null; return tools.x.y({}); })();", SandboxTest::echo, "x.y").message()).contains("Promise");
        assertThat(calls).isEmpty();
        assertThat(failed("await tools.x.y({});", SandboxTest::echo, "x.y").kind()).isEqualTo(CodeError.Kind.SYNTAX);
    }

    @Test
    void randomNumbersAreFixedBySeedAndTheClockIsTheGivenInstant() {
        String code = "return [Math.random(), Math.random(), Date.now(), new Date().getTime(), new Date(0).getTime(), "
                + "typeof Date(), new Date() instanceof Date];";
        Sandbox.Bindings one = new Sandbox.Bindings(SandboxTest::echo, new TreeSet<>(), 7L, 1_000L, logs::add);
        Sandbox.Bindings other = new Sandbox.Bindings(SandboxTest::echo, new TreeSet<>(), 8L, 1_000L, logs::add);
        String first = ((Sandbox.Result.Returned) sandbox.run(code, one, LIMITS)).json();
        String again = ((Sandbox.Result.Returned) sandbox.run(code, one, LIMITS)).json();
        String seeded = ((Sandbox.Result.Returned) sandbox.run(code, other, LIMITS)).json();
        assertThat(again).isEqualTo(first);
        assertThat(seeded).isNotEqualTo(first);
        assertThat(first).endsWith(",1000,1000,0,\"string\",true]");
        assertThat(returned("const r = Math.random(); return r >= 0 && r < 1;", SandboxTest::echo)).isEqualTo("true");
    }

    @Test
    void consoleLinesAreFormattedAndCapped() {
        returned("""
                console.log("a", 1, {b: [2]}, null, undefined);
                console.warn("careful");
                console.error("bad");
                console.info("x".repeat(20000));
                """, SandboxTest::echo);
        assertThat(logs).hasSize(4);
        assertThat(logs.get(0)).isEqualTo("a 1 {\"b\":[2]} null undefined");
        assertThat(logs.get(1)).isEqualTo("warn: careful");
        assertThat(logs.get(2)).isEqualTo("error: bad");
        assertThat(logs.get(3)).hasSize(10_003).endsWith("...");
    }

    @Test
    void syntaxAndRuntimeErrorsSayWhereInTheScript() {
        CodeError first = failed("return 1 +;", SandboxTest::echo);
        assertThat(first.kind()).isEqualTo(CodeError.Kind.SYNTAX);
        assertThat(first.describe()).isEqualTo("SyntaxError at 1:11: Expected an operand but found ;");
        CodeError third = failed("const a = 1;\nconst b = 2;\nreturn a +* b;", SandboxTest::echo);
        assertThat(third.describe()).startsWith("SyntaxError at 3:");
        assertThat(third.line()).isEqualTo(3);
        CodeError runtime = failed("const a = null;\n  return a.x;", SandboxTest::echo);
        assertThat(runtime.kind()).isEqualTo(CodeError.Kind.EXCEPTION);
        assertThat(runtime.line()).isEqualTo(2);
        assertThat(runtime.describe()).startsWith("TypeError at 2:").contains("null");
        assertThat(failed("throw new Error('boom');", SandboxTest::echo).describe()).isEqualTo("Error at 1:7: boom");
        assertThat(failed("function f() { return f(); }\nreturn f();", SandboxTest::echo).kind())
                .isEqualTo(CodeError.Kind.STACK_OVERFLOW);
    }

    @Test
    void theLimitsStopAScriptAndTheEngineGoesOn() {
        assertThat(failed("for (;;) { }", SandboxTest::echo).kind()).isEqualTo(CodeError.Kind.STATEMENT_LIMIT);
        Sandbox.Limits slow = new Sandbox.Limits(Duration.ofMillis(500), Long.MAX_VALUE, 10_000);
        long start = System.nanoTime();
        Sandbox.Result spun = sandbox.run("for (;;) { }", bindings(SandboxTest::echo), slow);
        assertThat(((Sandbox.Result.Failed) spun).error().kind()).isEqualTo(CodeError.Kind.TIMEOUT);
        Sandbox.Result blocked = sandbox.run("for (;;) { tools.x.y({}); }", bindings((tool, args) -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "{}";
        }, "x.y"), slow);
        assertThat(((Sandbox.Result.Failed) blocked).error().describe()).contains("longer than 500 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        Sandbox.Result large = sandbox.run("return 1;" + " ".repeat(10_000), bindings(SandboxTest::echo), LIMITS);
        assertThat(((Sandbox.Result.Failed) large).error().kind()).isEqualTo(CodeError.Kind.SOURCE_TOO_LARGE);
        assertThat(returned("return 2;", SandboxTest::echo)).isEqualTo("2");
    }

    @Test
    void manyThreadsRunScriptsAtOnceEachInItsOwnContext() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<List<String>>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    List<String> results = new ArrayList<>();
                    for (int i = 0; i < 50; i++) {
                        SortedSet<String> names = new TreeSet<>(Set.of("t.id"));
                        Sandbox.Bindings b = new Sandbox.Bindings((tool, args) -> args, names, thread, 0L, line -> { });
                        Sandbox.Result r = sandbox.run("globalThis.leak = (globalThis.leak || 0) + 1;\n"
                                + "return [tools.t.id({n: " + (thread * 1000 + i) + "}).n, globalThis.leak];", b, LIMITS);
                        results.add(((Sandbox.Result.Returned) r).json());
                    }
                    return results;
                }));
            }
            for (int t = 0; t < 8; t++) {
                List<String> results = futures.get(t).get();
                for (int i = 0; i < 50; i++) {
                    assertThat(results.get(i)).as("nothing leaks from one context to the next")
                            .isEqualTo("[" + (t * 1000 + i) + ",1]");
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
