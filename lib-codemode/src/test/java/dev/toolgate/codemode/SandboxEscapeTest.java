package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scripts written to get out of the sandbox: to reach the host (classes, files, network, processes,
 * the host callbacks), to fool the gate (forged arguments or results, calls after the end), or to
 * exhaust it (loops, recursion, memory, promise jobs). Every one must end as an error outcome within
 * its limits, and the only calls that reach the tool caller are calls of the declared tools with JSON
 * arguments: nothing runs outside the gate.
 */
class SandboxEscapeTest {

    private static final Sandbox.Limits LIMITS = new Sandbox.Limits(Duration.ofSeconds(2), 1_000_000, 200_000);
    private static final Pattern ALLOWED_CALL = Pattern.compile("x\\.y \\{.*\\}");
    private static Sandbox sandbox;

    @BeforeAll
    static void open() {
        sandbox = new Sandbox();
    }

    @AfterAll
    static void close() {
        sandbox.close();
    }

    static Stream<Arguments> attacks() {
        return Stream.of(
                // the host and other languages
                attack("Java.type", "return Java.type('java.lang.Runtime').getRuntime().exec('id');"),
                attack("Java through a computed global", "return globalThis['Ja' + 'va'].type('java.lang.System').exit(1);"),
                attack("Packages", "return Packages.java.lang.System.getenv();"),
                attack("java package global", "return java.lang.Runtime.getRuntime();"),
                attack("javax package global", "return javax.script.ScriptEngineManager;"),
                attack("Polyglot.eval", "return Polyglot.eval('js', 'Java.type(\"java.io.File\")');"),
                attack("Polyglot.import", "return Polyglot.import('secrets').read();"),
                attack("load a file", "return load('/etc/passwd');"),
                attack("loadWithNewGlobal", "return loadWithNewGlobal({script: 'Java', name: 'x'});"),
                attack("require", "return require('fs').readFileSync('/etc/passwd', 'utf8');"),
                attack("fetch", "return fetch('http://127.0.0.1:5432/');"),
                attack("process", "process.exit(1);"),
                attack("Graal builtin", "return Graal.versionJS.concat(Graal.isGraalRuntime());"),
                attack("print and quit", "print('out'); quit();"),
                attack("dynamic import", "return import('fs').then(fs => fs.readFileSync('/etc/passwd'));"),
                attack("a Worker thread", "return new Worker('while(true){}');"),
                attack("SharedArrayBuffer and Atomics", "const b = new SharedArrayBuffer(8); Atomics.wait(new Int32Array(b), 0, 0);"),
                attack("timers", "setTimeout(() => tools.x.y({late: true}), 0); return 1 + undefinedName;"),
                // reflection and prototype tricks
                attack("Function constructor to the global Java",
                        "return this.constructor.constructor('return Java')().type('java.lang.System');"),
                attack("Function('return this') probing for host globals",
                        "const g = Function('return this')(); return g.Java.type(g.Packages ? 'a' : 'b');"),
                attack("through a tool function's prototype",
                        "return Object.getPrototypeOf(tools.x.y).constructor('return Packages')().java.lang;"),
                attack("a tool function's constructor to load",
                        "return tools.x.y.constructor('return load')()('/etc/passwd');"),
                attack("eval of a forbidden global", "return eval('Java.type(\"java.lang.System\")');"),
                attack("the host callback from the prelude's scope", "return eval('callTool')('x.y', '{}');"),
                attack("the host callback through a tool's source", "const s = tools.x.y.toString(); return callTool(s);"),
                attack("swapping tools' prototype", "tools.__proto__ = {evil: () => 1}; return tools.evil();"),
                attack("redefining a tool", "Object.defineProperty(tools.x, 'y', {value: () => 'forged'}); return tools.x.y();"),
                attack("adding a tool", "tools.x.z = () => 1; return tools.x.z();"),
                attack("arguments.callee.caller", "function f() { return arguments.callee.caller; } return f().name;"),
                attack("forged arguments through JSON.stringify",
                        "JSON.stringify = () => '{\"id\":\"forged\"}'; const r = tools.x.y({id: 'a'});"
                                + " if (r.id !== 'forged') throw new Error('the gate saw the real input'); return r;"),
                attack("forged results through JSON.parse",
                        "JSON.parse = () => ({ok: {admin: true}}); const r = tools.x.y({id: 'a'});"
                                + " if (!r.admin) throw new Error('the real result came back'); return r;"),
                attack("polluting Object.prototype to fake a result",
                        "Object.defineProperty(Object.prototype, 'ok', {get() { return {admin: true}; }});"
                                + " const r = tools.x.y({id: 'a'}); if (!r || !r.admin) throw new Error('no'); return r;"),
                attack("toJSON forging the arguments",
                        "Object.prototype.toJSON = function () { return {id: 'via toJSON'}; }; tools.x.y({id: 'a'});"
                                + " throw new Error('the call went through with what the script sent');"),
                attack("a Proxy as arguments calling tools from its traps",
                        "const p = new Proxy({}, {ownKeys() { tools.x.y({from: 'trap'}); return ['a']; },"
                                + " getOwnPropertyDescriptor() { return {value: 1, enumerable: true, configurable: true}; }});"
                                + " tools.x.y(p); throw new Error('end');"),
                attack("a getter that throws inside the arguments", "tools.x.y({get a() { throw new Error('getter'); }});"),
                attack("BigInt in the arguments", "tools.x.y({n: 10n});"),
                attack("cyclic arguments", "const a = {}; a.a = a; tools.x.y(a);"),
                attack("a throwing name getter on the thrown object", "throw {get name() { for (;;) { } }, message: 'x'};"),
                attack("Date and Math.random overridden to fake time",
                        "Date.now = () => 0; Math.random = () => 0; throw new Error('only the script sees it: ' + Date.now());"),
                attack("debugger statement", "debugger; return Java.type('x');"),
                // exhaustion
                attack("while (true)", "while (true) { }"),
                attack("for (;;) with try/catch", "for (;;) { try { } catch (e) { } }"),
                attack("infinite recursion", "function f() { return f() + 1; } return f();"),
                attack("recursion inside catch", "function f() { try { f(); } catch (e) { f(); } } f();"),
                attack("huge string by repeat", "return 'x'.repeat(2 ** 30).length;"),
                attack("string doubling", "let s = 'x'; for (let i = 0; i < 40; i++) { s += s; } return s.length;"),
                attack("a billion-element array", "return new Array(1e9).fill(0).length;"),
                attack("a huge ArrayBuffer", "return new ArrayBuffer(2 ** 31).byteLength;"),
                attack("a huge typed array", "return new Uint8Array(2 ** 30).length;"),
                attack("a huge join", "return new Array(2 ** 24).join('x'.repeat(100)).length;"),
                attack("a result too large to return", "return 'x'.repeat(2 * 1024 * 1024);"),
                attack("deeply nested source", "return " + "(".repeat(40_000) + "1" + ")".repeat(40_000) + ";"),
                attack("an endless promise chain", "(function f() { Promise.resolve().then(f); })(); return 1;"),
                attack("an async function awaiting a tool",
                        "async function f() { await null; return tools.x.y({late: true}); } return f();"),
                attack("a tool call after return through then", "return Promise.resolve().then(() => tools.x.y({late: true}));"),
                attack("queueMicrotask loop", "(function f() { queueMicrotask(f); })(); return 1;"),
                attack("an infinite generator", "function* g() { for (;;) yield 1; } for (const x of g()) { } return 1;"),
                attack("console flooding", "for (;;) { console.log('x'.repeat(1000)); }"),
                attack("catastrophic regex then a forbidden global",
                        "/(a+)+$/.test('a'.repeat(40) + 'b'); return Java.type('java.lang.System');"));
    }

    private static Arguments attack(String name, String code) {
        return Arguments.of(name, code);
    }

    @Test
    void theCorpusIsLargeEnough() {
        assertThat(attacks().count()).isGreaterThanOrEqualTo(30);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("attacks")
    void everyAttemptEndsAsAnErrorWithNothingRunOutsideTheGate(String name, String code) {
        List<String> calls = new CopyOnWriteArrayList<>();
        List<String> logs = new CopyOnWriteArrayList<>();
        Sandbox.Bindings bindings = new Sandbox.Bindings((tool, args) -> {
            calls.add(tool + " " + args);
            return args;
        }, new TreeSet<>(Set.of("x.y")), 1L, 0L, logs::add);

        Sandbox.Result result = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> sandbox.run(code, bindings, LIMITS));

        assertThat(result).as(name).isInstanceOf(Sandbox.Result.Failed.class);
        CodeError error = ((Sandbox.Result.Failed) result).error();
        assertThat(error.describe()).as(name).isNotBlank();
        assertThat(calls).as("%s: only declared tools, with JSON arguments", name)
                .allSatisfy(call -> assertThat(call).matches(ALLOWED_CALL));
        assertThat(calls).as("%s: no call from a promise after the end", name).noneMatch(call -> call.contains("late"));
    }

    @Test
    void theEngineStillWorksAfterTheWholeCorpus() {
        attacks().forEach(args -> sandbox.run((String) args.get()[1],
                new Sandbox.Bindings((tool, json) -> json, new TreeSet<>(Set.of("x.y")), 1L, 0L, line -> { }), LIMITS));
        Sandbox.Result after = sandbox.run("return tools.x.y({ok: 1}).ok + 1;",
                new Sandbox.Bindings((tool, json) -> json, new TreeSet<>(Set.of("x.y")), 1L, 0L, line -> { }), LIMITS);
        assertThat(after).isEqualTo(new Sandbox.Result.Returned("2"));
    }
}
