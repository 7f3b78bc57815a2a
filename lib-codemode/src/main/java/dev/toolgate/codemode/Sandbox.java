package dev.toolgate.codemode;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.EnvironmentAccess;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.PolyglotAccess;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.ResourceLimits;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.io.IOAccess;
import org.graalvm.polyglot.proxy.ProxyExecutable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one script in a fresh GraalJS context of a shared engine, closed when it ends, failing
 * closed: no host classes, I/O, threads, processes, environment or other languages; only the
 * {@code tools} the bindings name, a capped {@code console}, a seeded {@code Math.random} and a fixed
 * clock. Whatever the script does ends as a {@link Result}; the only throwable {@link #run} lets out
 * is one the {@link ToolCaller} threw that is not a {@link ToolFailure} (the execution engine's
 * signal that the attempt must stop, an {@link Error}: a pause, a refusal), which the script cannot
 * catch: the script sees a tool call that failed, but its context is cancelled at once, no later call
 * or log line goes through, and {@link #run} throws the signal within {@link ScriptThreads#STOP_GRACE}
 * even if the script swallows the cancellation.
 */
final class Sandbox implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Sandbox.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();
    /** The most characters a script's result may take as JSON. */
    static final int MAX_RESULT_CHARS = 1024 * 1024;
    /** The longest string a script may build, in characters. */
    static final int MAX_STRING_LENGTH = 16 * 1024 * 1024;
    /** The largest typed array or array buffer, in elements. */
    static final int MAX_TYPED_ARRAY_LENGTH = 64 * 1024 * 1024;
    private static final String USER_SOURCE = "script.js";
    /** The user's code starts on the wrapper's first line, after this prefix, so lines match. */
    private static final String PREFIX = "(function (tools, console) { \"use strict\"; ";
    private static final String SUFFIX = "\n})";
    private static final String PRELUDE = prelude();
    /** The result of an attempt the caller's signal ended; {@link #run} throws the signal instead. */
    private static final Result STOPPED = new Result.Failed(new CodeError(CodeError.Kind.EXCEPTION, "stopped", 0, 0));

    /** The warm-up script's limit: starting the language on a slow machine took seconds. */
    private static final Duration WARM_UP_LIMIT = Duration.ofSeconds(60);

    private final Engine engine;
    private final java.util.concurrent.atomic.AtomicLong scriptsRun = new java.util.concurrent.atomic.AtomicLong();
    private final Source prelude;
    private final ScriptThreads threads = new ScriptThreads();

    Sandbox() {
        this.engine = Engine.newBuilder("js")
                .option("engine.WarnInterpreterOnly", "false")
                .allowExperimentalOptions(true)
                .option("js.string-length-limit", String.valueOf(MAX_STRING_LENGTH))
                .option("js.max-typed-array-length", String.valueOf(MAX_TYPED_ARRAY_LENGTH))
                .option("js.shared-array-buffer", "false")
                .option("js.load", "false")
                .option("js.print", "false")
                .option("js.console", "false")
                .option("js.polyglot-builtin", "false")
                .option("js.polyglot-evalfile", "false")
                .option("js.java-package-globals", "false")
                .option("js.graal-builtin", "false")
                .option("js.global-arguments", "false")
                .option("js.performance", "false")
                .option("js.unhandled-rejections", "none")
                .build();
        this.prelude = Source.newBuilder("js", PRELUDE, "toolgate-prelude.js").cached(true).buildLiteral();
        try {
            warmUp();
        } catch (RuntimeException e) {
            engine.close(true);
            throw e;
        }
    }

    /**
     * Runs one script through the whole path a caller's takes (a context, the prelude, a tool call, a
     * log line, the result's JSON, a script thread), so the engine has started the JavaScript language
     * and parsed the prelude before a caller's first script: that script's wall-clock limit does not pay
     * for it (hundreds of milliseconds, seconds on a slow machine, where a first script given a short
     * timeout failed with TIMEOUT before running a line).
     */
    private void warmUp() {
        Bindings none = new Bindings((tool, args) -> "{\"warm\":true}", new java.util.TreeSet<>(java.util.Set.of("warm.up")),
                1L, 0L, line -> { });
        Result result = run("const r = tools.warm.up({}); console.log(JSON.stringify(r)); return [r.warm, 1 + 1];",
                none, new Limits(WARM_UP_LIMIT, 1_000_000, 10_000));
        if (!(result instanceof Result.Returned)) {
            LOG.warn("The codemode sandbox's warm-up script did not return: {}", result);
        }
    }

    /**
     * Runs {@code code}, the body of a function of {@code tools} and {@code console}.
     *
     * @throws RuntimeException what the bindings' caller threw, other than a {@link ToolFailure}
     * @throws Error            what the bindings' caller threw (the execution engine's stop signals)
     */
    Result run(String code, Bindings bindings, Limits limits) {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(bindings, "bindings");
        Objects.requireNonNull(limits, "limits");
        int bytes = code.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > limits.maxSourceBytes()) {
            return failed(CodeError.Kind.SOURCE_TOO_LARGE, "the script is " + bytes + " bytes; the limit is "
                    + limits.maxSourceBytes(), 0, 0);
        }
        if (threads.stuck() >= ScriptThreads.MAX_STUCK) {
            return failed(CodeError.Kind.TIMEOUT, "the sandbox takes no scripts now: " + threads.stuck()
                    + " earlier scripts could not be stopped and still run", 0, 0);
        }
        Attempt attempt = new Attempt(bindings, newContext(limits.maxStatements()), code, limits);
        scriptsRun.incrementAndGet();
        ScriptThreads.Outcome<Result> outcome = threads.run(attempt, limits.timeout());
        if (attempt.stop instanceof RuntimeException signal) {
            throw signal; // the caller's own signal, on the caller's thread
        }
        if (attempt.stop instanceof Error signal) {
            throw signal; // the execution engine's stop signals are errors, so ordinary catch blocks miss them
        }
        if (outcome instanceof ScriptThreads.Outcome.Ended<Result> ended) {
            return ended.value();
        }
        return failed(CodeError.Kind.TIMEOUT, "the script ran longer than " + describe(limits.timeout())
                + " (tool calls included) and was stopped", 0, 0);
    }

    /** A context on the engine with no access to the host, stopped after {@code maxStatements} statements. */
    private Context newContext(long maxStatements) {
        return Context.newBuilder("js")
                .engine(engine)
                .allowHostAccess(HostAccess.NONE)
                .allowHostClassLookup(name -> false)
                .allowHostClassLoading(false)
                .allowIO(IOAccess.NONE)
                .allowCreateThread(false)
                .allowCreateProcess(false)
                .allowNativeAccess(false)
                .allowEnvironmentAccess(EnvironmentAccess.NONE)
                .allowPolyglotAccess(PolyglotAccess.NONE)
                .allowInnerContextOptions(false)
                .resourceLimits(ResourceLimits.newBuilder().statementLimit(maxStatements, null).build())
                .build();
    }

    /** Scripts this sandbox has started, its own warm-up included. */
    long scriptsRun() {
        return scriptsRun.get();
    }

    /** Stops the threads and closes the engine; a script that could not be stopped keeps its context. */
    @Override
    public void close() {
        threads.close();
        Thread closer = new Thread(() -> engine.close(true), "toolgate-codemode-engine-close");
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(ScriptThreads.GRACE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One run, on its script thread: the context, the caller's stop signal if any, and what became of
     * the time. Tool calls hold {@code calling}, so the run is never abandoned in the middle of one, and
     * none starts once it is.
     */
    private final class Attempt implements ScriptThreads.Script<Result> {
        private final Bindings bindings;
        private final Context context;
        private final String code;
        private final Limits limits;
        private final AtomicBoolean timedOut = new AtomicBoolean();
        private final ReentrantLock calling = new ReentrantLock();
        private volatile Throwable stop;
        private final CompletableFuture<Void> stopped = new CompletableFuture<>();
        private volatile boolean finished;
        private volatile boolean abandoned;

        Attempt(Bindings bindings, Context context, String code, Limits limits) {
            this.bindings = bindings;
            this.context = context;
            this.code = code;
            this.limits = limits;
        }

        @Override
        public Result call() {
            try {
                return execute(code, limits);
            } finally {
                finished = true;
                closeQuietly(context);
            }
        }

        @Override
        public void cancel() {
            timedOut.set(true);
            closeQuietly(context);
        }

        @Override
        public CompletableFuture<?> stopped() {
            return stopped;
        }

        @Override
        public void abandon() {
            abandoned = true;
            calling.lock(); // a tool call in flight ends first (its own timeout bounds it)
            calling.unlock();
        }

        @Override
        public boolean kill(Thread thread) {
            calling.lock(); // never inside a tool call: the host's code must not be stopped halfway
            try {
                return finished || !thread.isAlive() || ScriptThreads.stop(thread);
            } finally {
                calling.unlock();
            }
        }

        private Result execute(String code, Limits limits) {
            Value run;
            try {
                Value setup = context.eval(prelude);
                run = setup.execute((ProxyExecutable) this::callTool, (ProxyExecutable) this::log,
                        Value.asValue(names(bindings.toolNames())), Value.asValue((double) seed32(bindings.randomSeed())),
                        Value.asValue((double) bindings.nowEpochMillis()));
            } catch (PolyglotException e) {
                return failure(e, limits);
            }
            Value user;
            try {
                user = context.eval(Source.newBuilder("js", PREFIX + code + SUFFIX, USER_SOURCE).buildLiteral());
            } catch (PolyglotException e) {
                return failure(e, limits);
            }
            Value outcome;
            try {
                outcome = run.execute(user);
            } catch (PolyglotException e) {
                finished = true;
                return failure(e, limits);
            }
            finished = true;
            if (stop != null) {
                return STOPPED;
            }
            if (outcome.hasMember("error")) {
                return failed(CodeError.Kind.NOT_JSON, outcome.getMember("error").asString(), 0, 0);
            }
            Value json = outcome.getMember("json");
            String text = json.isNull() ? "null" : json.asString();
            if (text.length() > MAX_RESULT_CHARS) {
                return failed(CodeError.Kind.NOT_JSON, "the script's result is " + text.length() + " characters of JSON; the "
                        + "limit is " + MAX_RESULT_CHARS, 0, 0);
            }
            return new Result.Returned(text);
        }

        /** The host side of every tool call: a JSON envelope back, or the stop signal kept for {@link #run}. */
        private Object callTool(Value... arguments) {
            String tool = arguments[0].asString();
            String args = arguments[1].asString();
            calling.lock();
            try {
                if (finished || abandoned || stop != null) {
                    return "{\"abort\":true}";
                }
                return "{\"ok\":" + bindings.caller().call(tool, args) + "}";
            } catch (ToolFailure failure) {
                return "{\"error\":{\"name\":" + TsText.literal(failure.name())
                        + ",\"message\":" + TsText.literal(String.valueOf(failure.getMessage()))
                        + ",\"data\":" + (failure.dataJson() == null ? "null" : failure.dataJson()) + "}}";
            } catch (RuntimeException | Error signal) {
                // the attempt must stop (a pause, a refusal; the execution engine's are Errors): the script
                // may catch what it sees, so the signal is kept here, no later call goes through, and the
                // context is cancelled now
                stop = signal;
                threads.later(this::cancel); // whatever the script catches, it goes no further
                stopped.complete(null); // and its caller waits for it a short grace at most
                return "{\"abort\":true}";
            } finally {
                calling.unlock();
            }
        }

        private Object log(Value... arguments) {
            if (!finished && !abandoned && stop == null) {
                bindings.console().accept(arguments[0].asString());
            }
            return null;
        }

        private Result failure(PolyglotException e, Limits limits) {
            if (stop != null) {
                return STOPPED;
            }
            if (timedOut.get()) {
                return failed(CodeError.Kind.TIMEOUT, "the script ran longer than " + describe(limits.timeout())
                        + " (tool calls included) and was stopped", 0, 0);
            }
            if (e.isResourceExhausted() && e.isCancelled()) {
                return failed(CodeError.Kind.STATEMENT_LIMIT, "the script executed more than " + limits.maxStatements()
                        + " statements and was stopped (an endless loop?)", 0, 0);
            }
            if (e.isResourceExhausted()) {
                return failed(CodeError.Kind.OUT_OF_MEMORY, "the script used too much memory and was stopped", 0, 0);
            }
            if (e.isCancelled() || e.isExit() || e.isInterrupted()) {
                return failed(CodeError.Kind.TIMEOUT, "the script was stopped", 0, 0);
            }
            if (e.isHostException() || e.isInternalError()) {
                LOG.warn("A script failed inside the sandbox's host code", LOGGED.redactThrowable(e));
                return failed(CodeError.Kind.EXCEPTION, "the script failed in the sandbox: " + e.getMessage(), 0, 0);
            }
            return new Result.Failed(CodeError.of(e, USER_SOURCE, PREFIX.length()));
        }
    }

    /** 32 well-mixed bits of a 64-bit seed (SplitMix64's finalizer), for the script's generator. */
    static long seed32(long seed) {
        long z = seed + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return z & 0xFFFFFFFFL;
    }

    private static String names(SortedSet<String> names) {
        StringBuilder json = new StringBuilder("[");
        for (String name : names) {
            json.append(json.length() > 1 ? "," : "").append(TsText.literal(name));
        }
        return json.append(']').toString();
    }

    private static String describe(Duration d) {
        long millis = d.toMillis();
        return millis % 1000 == 0 ? (millis / 1000) + " s" : millis + " ms";
    }

    private static void closeQuietly(Context context) {
        try {
            context.close(true);
        } catch (RuntimeException e) {
            LOG.debug("Closing a script's context failed", e);
        }
    }

    private static Result failed(CodeError.Kind kind, String message, int line, int column) {
        return new Result.Failed(new CodeError(kind, message, line, column));
    }

    private static String prelude() {
        try (InputStream in = Sandbox.class.getResourceAsStream("prelude.js")) {
            if (in == null) {
                throw new IllegalStateException("prelude.js is missing from the codemode jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read prelude.js", e);
        }
    }

    /**
     * What one script may take.
     *
     * @param timeout        wall-clock time, tool calls included
     * @param maxStatements  statements executed
     * @param maxSourceBytes the source's size in UTF-8
     */
    record Limits(Duration timeout, long maxStatements, int maxSourceBytes) {
        Limits {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero() || maxStatements < 1 || maxSourceBytes < 1) {
                throw new IllegalArgumentException("limits must be positive: " + timeout + ", " + maxStatements + ", "
                        + maxSourceBytes);
            }
        }
    }

    /**
     * What the script sees.
     *
     * @param caller         makes the tool calls
     * @param toolNames      the tools on {@code tools}, by full name
     * @param randomSeed     seeds {@code Math.random}
     * @param nowEpochMillis what {@code Date.now()} and {@code new Date()} return
     * @param console        takes each {@code console} line
     */
    record Bindings(ToolCaller caller, SortedSet<String> toolNames, long randomSeed, long nowEpochMillis,
                    Consumer<String> console) {
        Bindings {
            Objects.requireNonNull(caller, "caller");
            Objects.requireNonNull(toolNames, "toolNames");
            Objects.requireNonNull(console, "console");
        }
    }

    /** Makes the script's tool calls. */
    @FunctionalInterface
    interface ToolCaller {
        /**
         * Called synchronously from the script with the tool's full name and its argument as JSON
         * text; returns the result as JSON text. Throws {@link ToolFailure} for an error the script
         * may catch; any other exception or error stops the script and comes out of {@link Sandbox#run}.
         */
        String call(String tool, String argsJson);
    }

    /** An error the script sees and may catch: an {@code Error} with this name, message, {@code tool} and {@code data}. */
    static final class ToolFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String name;
        private final String dataJson;

        ToolFailure(String name, String message, String dataJson) {
            super(message, null, false, false);
            this.name = Objects.requireNonNull(name, "name");
            this.dataJson = dataJson;
        }

        String name() {
            return name;
        }

        String dataJson() {
            return dataJson;
        }
    }

    /** What became of a script. */
    sealed interface Result {
        /** It returned; {@code json} is its value as JSON ({@code null} for undefined). */
        record Returned(String json) implements Result {
        }

        /** It did not. */
        record Failed(CodeError error) implements Result {
        }
    }
}
