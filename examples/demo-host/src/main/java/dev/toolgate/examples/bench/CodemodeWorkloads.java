package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.codemode.Codemode;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Codemode's workloads for {@link StorageBenchmark}: a script making {@value #CALLS} read calls
 * ({@code codemode.run}, a durable run of {@value #CALLS} steps) against the same {@value #CALLS}
 * governed calls made directly, and the cost of one sandbox context (a {@code codemode.test} of
 * {@code return 1}, which makes no call, less a governed READ call).
 */
final class CodemodeWorkloads {

    static final int CALLS = 100;
    static final String SCRIPT = "for (let i = 0; i < " + CALLS + "; i++) { tools.bench.ping({}); }\nreturn " + CALLS + ";";
    private static final JsonNode RUN = Json.toTree(Map.of("code", SCRIPT));
    private static final JsonNode EMPTY = Json.toTree(Map.of("code", "return 1;"));

    /** Where a measured row goes: the benchmark's table. */
    interface Rows {
        void row(String db, String workload, int threads, Harness.Result ours, String baseline, Harness.Result base);
    }

    private CodemodeWorkloads() {
    }

    /**
     * Registers the codemode tools on a gate built with {@code Codemode.programs()}, with a script timeout
     * of 60 s rather than the default 5 s: a script of {@value #CALLS} durable calls on a loaded machine can
     * take longer than 5 s, and a benchmark measures, it does not stop there.
     */
    static Toolgate withTools(Toolgate gate) {
        gate.registry().register(Codemode.tools(gate, Codemode.Limits.DEFAULT.withTimeout(Duration.ofSeconds(60))));
        return gate;
    }

    /** The script of {@value #CALLS} reads against {@value #CALLS} governed calls, at each thread count. */
    static void scriptVersusCalls(String db, Toolgate gate, Harness harness, int[] threadCounts, CallContext[] ctx, Rows rows)
            throws Exception {
        for (int threads : threadCounts) {
            Harness.Result[] results = harness.compare(threads, t -> {
                JsonNode outcome = ((Applied) gate.call(ctx[t], Codemode.RUN, RUN)).result();
                if (!"completed".equals(outcome.path("status").asString())) {
                    throw new IllegalStateException("the benchmark script did not complete: " + outcome);
                }
                return true;
            }, t -> {
                for (int i = 0; i < CALLS; i++) {
                    gate.call(ctx[t], BenchTools.PING, "{}");
                }
                return true;
            });
            rows.row(db, "codemode script, " + CALLS + " reads", threads, results[0], CALLS + " governed single calls", results[1]);
        }
    }

    /** One sandbox context: a script that makes no call, against one governed READ call (in-memory, 1 thread). */
    static String contextCost(Toolgate gate, Harness harness, CallContext ctx, Rows rows) throws Exception {
        Harness.Result[] results = harness.compare(1, t -> {
            gate.call(ctx, Codemode.TEST, EMPTY);
            return true;
        }, t -> {
            gate.call(ctx, BenchTools.PING, "{}");
            return true;
        });
        rows.row("in-memory", "codemode.test of `return 1`", 1, results[0], "governed READ call", results[1]);
        return String.format(Locale.ROOT, "one sandbox context (create, evaluate `return 1`, close) costs about %.0f us:"
                + " the p50 of codemode.test of `return 1` (%.0f us) less that of a governed READ call (%.0f us)",
                results[0].p50Micros() - results[1].p50Micros(), results[0].p50Micros(), results[1].p50Micros());
    }
}
