package dev.toolgate.codemode;

import dev.toolgate.Toolgate;
import dev.toolgate.execution.Program;
import dev.toolgate.execution.ProgramProvider;
import dev.toolgate.tool.ToolProvider;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Codemode: the model writes a short JavaScript program against the governed tools instead of a long
 * chain of single calls. Three tools, governed like any other:
 * <ul>
 *   <li>{@value #DESCRIBE} (READ): TypeScript declarations of exactly the tools the caller may use,
 *       so the model writes against real symbols ({@code tools.incident.create({...})});</li>
 *   <li>{@value #TEST} (READ): runs the code with every mutation answered by its dry-run, so nothing
 *       changes; returns the result, the logs and the steps that would pause for approval;</li>
 *   <li>{@value #RUN} (MUTATE, with a standing approval: each call the code makes gets its own
 *       consent): runs the code as a durable execution of the program {@value #RUN}; a call that
 *       needs consent pauses the run, an approval replays it from its log.</li>
 * </ul>
 *
 * <pre>{@code
 * Toolgate gate = Toolgate.builder()...build();      // finds the codemode program through ServiceLoader
 * gate.registry().register(Codemode.tools(gate));    // the three tools
 * }</pre>
 *
 * <p>The program is found through {@code META-INF/services/dev.toolgate.execution.ProgramProvider}
 * when the builder discovers tools (the default); otherwise add {@code .programs(Codemode.programs())}
 * to the builder. Every instance that may resume a run needs it. The code runs in a GraalJS sandbox
 * with no host access; see the module's README for its rules and limits.
 */
public final class Codemode {

    /** The plugin id of the three tools. */
    public static final String PLUGIN = "codemode";
    /** The declarations tool. */
    public static final String DESCRIBE = "codemode.describe";
    /** The dry-run tool. */
    public static final String TEST = "codemode.test";
    /** The run tool, and the name of the program behind it. */
    public static final String RUN = "codemode.run";

    private static volatile Sandbox shared;

    private Codemode() {
    }

    /** The three tools with the default {@link Limits}, usable by any principal the gate serves. */
    public static ToolProvider tools(Toolgate gate) {
        return tools(gate, Limits.DEFAULT);
    }

    /**
     * The three tools.
     *
     * @param gate          the gate whose tools the code calls, and which governs each call
     * @param limits        what one script may take
     * @param requiredRules access rules a caller must hold to see the tools (none by default: each
     *                      call the code makes is governed for the caller anyway)
     * @throws IllegalStateException the gate has no codemode program (see the class description)
     */
    public static ToolProvider tools(Toolgate gate, Limits limits, String... requiredRules) {
        Objects.requireNonNull(gate, "gate");
        Objects.requireNonNull(limits, "limits");
        if (!gate.executions().programs().contains(RUN)) {
            throw new IllegalStateException("the gate has no program " + RUN + ": build it with tool discovery on (the "
                    + "default) or add .programs(Codemode.programs()) to the builder, on every instance");
        }
        String[] rules = Arrays.copyOf(requiredRules, requiredRules.length);
        Sandbox sandbox = sharedSandbox();
        return ToolProvider.of(PLUGIN,
                DescribeTool.build(gate, rules),
                TestTool.build(gate, sandbox, limits, rules),
                RunTool.build(gate, limits, rules));
    }

    /** The codemode program, for a builder that does not discover it. */
    public static ProgramProvider programs() {
        return new CodemodePrograms();
    }

    /** The program that runs a script as a durable execution (what {@link #programs()} registers). */
    static Program program() {
        return new CodemodeProgram(sharedSandbox());
    }

    /** One GraalJS engine for the JVM: its contexts are cheap, the engine is not. */
    static Sandbox sharedSandbox() {
        Sandbox sandbox = shared;
        if (sandbox == null) {
            synchronized (Codemode.class) {
                sandbox = shared;
                if (sandbox == null) {
                    sandbox = new Sandbox();
                    shared = sandbox;
                }
            }
        }
        return sandbox;
    }

    /**
     * What one script may take. Immutable; start from {@link #DEFAULT} and change with the
     * {@code withX} methods.
     *
     * @param timeout        wall-clock time, tool calls included (default 5 s, at most 5 minutes)
     * @param maxStatements  JavaScript statements executed (default 10,000,000)
     * @param maxSourceBytes the code's size in UTF-8 (default 100 KB, at most 1 MB)
     * @param maxLogLines    {@code console.log} lines kept (default 100, at most 1,000)
     */
    public record Limits(Duration timeout, long maxStatements, int maxSourceBytes, int maxLogLines) {

        static final Duration MAX_TIMEOUT = Duration.ofMinutes(5);
        static final int MAX_SOURCE_BYTES = 1024 * 1024;
        static final int MAX_LOG_LINES = 1_000;

        /** 5 s, 1e7 statements, 100 KB of source, 100 log lines. */
        public static final Limits DEFAULT = new Limits(Duration.ofSeconds(5), 10_000_000L, 100 * 1024, 100);

        /** Checks each limit is positive and within its cap. */
        public Limits {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
                throw new IllegalArgumentException("timeout must be positive and at most " + MAX_TIMEOUT + ", got " + timeout);
            }
            if (maxStatements < 1) {
                throw new IllegalArgumentException("maxStatements must be positive, got " + maxStatements);
            }
            if (maxSourceBytes < 1 || maxSourceBytes > MAX_SOURCE_BYTES) {
                throw new IllegalArgumentException("maxSourceBytes must be 1.." + MAX_SOURCE_BYTES + ", got " + maxSourceBytes);
            }
            if (maxLogLines < 0 || maxLogLines > MAX_LOG_LINES) {
                throw new IllegalArgumentException("maxLogLines must be 0.." + MAX_LOG_LINES + ", got " + maxLogLines);
            }
        }

        /** These limits with another wall-clock timeout. */
        public Limits withTimeout(Duration timeout) {
            return new Limits(timeout, maxStatements, maxSourceBytes, maxLogLines);
        }

        /** These limits with another statement limit. */
        public Limits withMaxStatements(long maxStatements) {
            return new Limits(timeout, maxStatements, maxSourceBytes, maxLogLines);
        }

        /** These limits with another source size limit. */
        public Limits withMaxSourceBytes(int maxSourceBytes) {
            return new Limits(timeout, maxStatements, maxSourceBytes, maxLogLines);
        }

        /** These limits with another number of log lines kept. */
        public Limits withMaxLogLines(int maxLogLines) {
            return new Limits(timeout, maxStatements, maxSourceBytes, maxLogLines);
        }

        Sandbox.Limits sandbox() {
            return new Sandbox.Limits(timeout, maxStatements, maxSourceBytes);
        }

        ObjectNode toJson() {
            ObjectNode json = JsonNodeFactory.instance.objectNode();
            json.put("timeoutMillis", timeout.toMillis());
            json.put("maxStatements", maxStatements);
            json.put("maxSourceBytes", maxSourceBytes);
            json.put("maxLogLines", maxLogLines);
            return json;
        }

        /**
         * The limits a run was started with, from its input; a field that is missing or out of range
         * takes the default's value, so a run's input cannot lift a limit past its cap.
         */
        static Limits fromJson(JsonNode json) {
            Limits d = DEFAULT;
            long timeout = json.path("timeoutMillis").asLong(d.timeout.toMillis());
            long statements = json.path("maxStatements").asLong(d.maxStatements);
            int source = json.path("maxSourceBytes").asInt(d.maxSourceBytes);
            int logs = json.path("maxLogLines").asInt(d.maxLogLines);
            return new Limits(timeout > 0 && timeout <= MAX_TIMEOUT.toMillis() ? Duration.ofMillis(timeout) : d.timeout,
                    statements > 0 ? statements : d.maxStatements,
                    source > 0 && source <= MAX_SOURCE_BYTES ? source : d.maxSourceBytes,
                    logs >= 0 && logs <= MAX_LOG_LINES ? logs : d.maxLogLines);
        }
    }

    /**
     * The input of {@value #RUN} and {@value #TEST}.
     *
     * @param code the body of a function: statements, with {@code return} for the result
     */
    public record Code(String code) {
    }

    /**
     * The input of {@value #DESCRIBE}.
     *
     * @param plugins only these plugins' tools (all when absent)
     */
    public record Describe(Optional<java.util.List<String>> plugins) {
    }

    /** The program provider ServiceLoader finds. */
    static Map<String, Program> programMap() {
        return Map.of(RUN, program());
    }
}
