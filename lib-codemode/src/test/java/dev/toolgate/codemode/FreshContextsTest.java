package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Contexts prepared ahead of their scripts: each is one no script had, whatever the script before it did;
 * each runs under its own script's statement limit; the limit counts the script's code (its own
 * {@code eval} and {@code Function} too, whatever they call themselves) and not the prelude's.
 */
class FreshContextsTest {

    private static final Sandbox.Limits LIMITS = new Sandbox.Limits(Duration.ofSeconds(5), 1_000_000, 10_000);
    private static Sandbox sandbox;

    @BeforeAll
    static void open() {
        sandbox = new Sandbox();
    }

    @AfterAll
    static void close() {
        sandbox.close();
    }

    private static Sandbox.Result run(String code, Sandbox.Limits limits) {
        return sandbox.run(code, new Sandbox.Bindings((tool, args) -> args, new TreeSet<>(Set.of("t.echo")), 7L, 0L, line -> { }),
                limits);
    }

    private static String returned(String code) {
        Sandbox.Result result = run(code, LIMITS);
        assertThat(result).as(code).isInstanceOf(Sandbox.Result.Returned.class);
        return ((Sandbox.Result.Returned) result).json();
    }

    private static CodeError.Kind failedKind(String code, Sandbox.Limits limits) {
        Sandbox.Result result = run(code, limits);
        assertThat(result).as(code).isInstanceOf(Sandbox.Result.Failed.class);
        return ((Sandbox.Result.Failed) result).error().kind();
    }

    /** Waits until a context prepared ahead is there, so the next script surely runs in one. */
    private static void awaitSpare(long before) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (sandbox.contextsPreparedAhead() <= before && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(sandbox.contextsPreparedAhead()).as("a context was prepared ahead").isGreaterThan(before);
    }

    @Test
    void whatAScriptChangesReachesNoLaterScriptThoughTheirContextsWerePreparedAhead() throws Exception {
        String poison = """
                globalThis.leaked = 1;
                Object.prototype.polluted = 1;
                Array.prototype.push = function () { return 'hijacked'; };
                JSON.parse = function () { return {ok: 'hijacked'}; };
                JSON.stringify = function () { return '"hijacked"'; };
                Math.random = function () { return 0.5; };
                Date.now = function () { return 42; };
                DeniedError.prototype.hijacked = true;
                Object.defineProperty(globalThis, 'trap', {get() { throw new Error('trapped'); }, configurable: false});
                String.prototype.slice = function () { return 'hijacked'; };
                Function.prototype.call = function () { return 'hijacked'; };
                return tools.t.echo({n: 1}).n;
                """;
        String check = """
                const a = [];
                a.push(1);
                return [typeof leaked, typeof ({}).polluted, a.length, JSON.parse('{"x":1}').x, JSON.stringify({y: 2}),
                        Math.random() === 0.5, Date.now(), DeniedError.prototype.hijacked === undefined,
                        Object.getOwnPropertyDescriptor(globalThis, 'trap') === undefined, 'abc'.slice(1),
                        tools.t.echo({n: 2}).n, typeof bind, typeof callTool, typeof run];
                """;
        for (int i = 0; i < 5; i++) {
            long before = sandbox.contextsPreparedAhead();
            assertThat(returned(poison)).isEqualTo("1");
            awaitSpare(before);
            assertThat(returned(check)).as("round " + i)
                    .isEqualTo("[\"undefined\",\"undefined\",1,1,\"{\\\"y\\\":2}\",false,0,true,true,\"bc\",2,"
                            + "\"undefined\",\"undefined\",\"undefined\"]");
        }
    }

    @Test
    void eachScriptRunsUnderItsOwnStatementLimitWhateverWasPreparedAhead() throws Exception {
        Sandbox.Limits tight = new Sandbox.Limits(Duration.ofSeconds(5), 1_000, 10_000);
        Sandbox.Limits loose = new Sandbox.Limits(Duration.ofSeconds(5), 1_000_000, 10_000);
        String loop = "let n = 0; for (let i = 0; i < 20000; i++) { n++; } return n;";
        for (int i = 0; i < 3; i++) {
            long before = sandbox.contextsPreparedAhead();
            assertThat(((Sandbox.Result.Returned) run(loop, loose)).json()).isEqualTo("20000");
            awaitSpare(before);
            assertThat(failedKind(loop, tight)).as("spares made under the loose limit are not used").isEqualTo(
                    CodeError.Kind.STATEMENT_LIMIT);
            before = sandbox.contextsPreparedAhead();
            assertThat(failedKind(loop, tight)).isEqualTo(CodeError.Kind.STATEMENT_LIMIT);
            awaitSpare(before);
            assertThat(((Sandbox.Result.Returned) run(loop, loose)).json()).as("nor those made under the tight one")
                    .isEqualTo("20000");
        }
    }

    @Test
    void scriptsUnderTwoLimitsInTurnEachFindSparesUnderTheirOwn() throws Exception {
        Sandbox.Limits tight = new Sandbox.Limits(Duration.ofSeconds(5), 1_000, 10_000);
        Sandbox.Limits loose = new Sandbox.Limits(Duration.ofSeconds(5), 1_000_000, 10_000);
        String loop = "let n = 0; for (let i = 0; i < 20000; i++) { n++; } return n;";
        run("return 1;", tight);
        run("return 1;", loose);
        for (int i = 0; i < 6; i++) {
            Thread.sleep(200); // time for the spares of both limits to be made
            long before = sandbox.contextsPreparedAhead();
            assertThat(failedKind(loop, tight)).isEqualTo(CodeError.Kind.STATEMENT_LIMIT);
            assertThat(((Sandbox.Result.Returned) run(loop, loose)).json()).isEqualTo("20000");
            awaitSpare(before);
        }
    }

    @Test
    void theLimitCountsTheScriptsCodeIncludingWhatItEvaluatesButNotThePrelude() {
        Sandbox.Limits small = new Sandbox.Limits(Duration.ofSeconds(30), 500, 10_000);
        // 100 tool calls and log lines: about three statements of the script's each, many more of the prelude's
        assertThat(((Sandbox.Result.Returned) run("let n = 0; for (let i = 0; i < 100; i++) { n += tools.t.echo({n: 1}).n;"
                + " console.log('x', i); } return n;", small)).json()).isEqualTo("100");
        for (String endless : new String[] {"eval('for (;;) { }');", "new Function('for (;;) { }')();",
                "eval('for (;;) { }\\n//# sourceURL=toolgate-prelude.js');",
                "new Function('for (;;) { }\\n//# sourceURL=toolgate-prelude.js')();"}) {
            assertThat(failedKind(endless, small)).as(endless).isEqualTo(CodeError.Kind.STATEMENT_LIMIT);
        }
    }
}
