package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.codemode.Codemode;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.json.Json;
import dev.toolgate.spi.InMemoryStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

import static dev.toolgate.examples.bench.BenchText.median;
import static dev.toolgate.examples.bench.BenchText.sorted;
import static dev.toolgate.examples.bench.StorageWorkloads.contexts;
import static dev.toolgate.examples.bench.StorageWorkloads.gate;

/**
 * Codemode's cells of {@link StorageBenchmark} on their own, with each round's ratio printed to show the
 * spread, and a durable run of the same reads written in Java (what the script's run costs without any
 * JavaScript, the bound of its ratio): the script of {@value CodemodeWorkloads#CALLS} reads against as many governed calls (in memory,
 * on H2 and on PostgreSQL, at 1 and 4 threads) and {@code codemode.test} of {@code return 1} against one
 * governed READ.
 *
 * <pre>
 * java -cp ... dev.toolgate.examples.bench.CodemodeBenchmark [jdbc:postgresql://...]
 * </pre>
 *
 * {@code -Dbench.only=memory,h2,postgres} picks the stores; {@code -Dbench.warmup-ms}, {@code -Dbench.slice-ms}
 * and {@code -Dbench.rounds} as in {@link StorageBenchmark} (defaults 3000, 1000, 5); codemode's path is
 * driven for {@code -Dbench.codemode-warmup-ms} (20 s) first, see {@link CodemodeWorkloads#warmUp}.
 */
public final class CodemodeBenchmark {

    private static final JsonNode RUN = Json.toTree(Map.of("code", CodemodeWorkloads.SCRIPT));
    private static final JsonNode EMPTY = Json.toTree(Map.of("code", "return 1;"));
    private static final int[] THREADS = {1, 4};

    private final Harness harness;
    private final int rounds;

    private CodemodeBenchmark(Harness harness, int rounds) {
        this.harness = harness;
        this.rounds = rounds;
    }

    public static void main(String[] args) throws Exception {
        String pgUrl = args.length > 0 ? args[0] : System.getenv("TOOLGATE_BENCH_PG_URL");
        int rounds = Integer.getInteger("bench.rounds", 5);
        CodemodeBenchmark bench = new CodemodeBenchmark(new Harness(Duration.ofMillis(Long.getLong("bench.warmup-ms", 3000)),
                Duration.ofMillis(Long.getLong("bench.slice-ms", 1000)), rounds), rounds);
        Set<String> only = Set.of(System.getProperty("bench.only", "memory,h2,postgres").split(","));
        BenchTools tools = new BenchTools();
        if (only.contains("memory")) {
            try (Toolgate gate = gate(new InMemoryStore(), tools, ToolBudget.unlimited())) {
                bench.contextCost(gate);
                bench.scriptVersusCalls("in-memory", gate);
            }
        }
        if (only.contains("h2")) {
            Path dir = Files.createTempDirectory("toolgate-codemode-bench");
            try (JdbcStore store = JdbcStore.builder().url("jdbc:h2:async:" + dir.resolve("bench").toAbsolutePath())
                    .poolSize(8).build(); Toolgate gate = gate(store, tools, ToolBudget.unlimited())) {
                bench.scriptVersusCalls("H2", gate);
            }
        }
        if (only.contains("postgres") && pgUrl != null) {
            try (JdbcStore store = JdbcStore.builder().url(BenchText.freshSchema(pgUrl, "toolgate_bench_codemode"))
                    .poolSize(8).build(); Toolgate gate = gate(store, tools, ToolBudget.unlimited())) {
                bench.scriptVersusCalls("PostgreSQL", gate);
            }
        }
    }

    private void scriptVersusCalls(String db, Toolgate gate) throws Exception {
        for (int threads : THREADS) {
            CallContext[] ctx = contexts(db.toLowerCase(Locale.ROOT) + "-coder-" + threads + "-", threads);
            CodemodeWorkloads.warmUp(gate, ctx[0]);
            Harness.Rounds measured = harness.measure(threads, List.of(t -> {
                JsonNode outcome = ((Applied) gate.call(ctx[t], Codemode.RUN, RUN)).result();
                if (!"completed".equals(outcome.path("status").asString())) {
                    throw new IllegalStateException("the benchmark script did not complete: " + outcome);
                }
                return true;
            }, t -> {
                for (int i = 0; i < CodemodeWorkloads.CALLS; i++) {
                    gate.call(ctx[t], BenchTools.PING, "{}");
                }
                return true;
            }, t -> {
                gate.executions().start(ctx[t], CodemodeWorkloads.PROGRAM, (String) null);
                return true;
            }), rounds);
            print(db, "script of " + CodemodeWorkloads.CALLS + " reads vs " + CodemodeWorkloads.CALLS + " calls", threads, measured);
            print(db, "Java run of " + CodemodeWorkloads.CALLS + " read steps vs the calls", threads, new Harness.Rounds(
                    java.util.Arrays.stream(measured.perRound()).map(round -> new Harness.Result[] {round[2], round[1]})
                            .toArray(Harness.Result[][]::new), new Harness.Result[] {measured.total()[2], measured.total()[1]}));
        }
    }

    private void contextCost(Toolgate gate) throws Exception {
        CallContext ctx = contexts("memory-tester", 1)[0];
        CodemodeWorkloads.warmUp(gate, ctx);
        Harness.Rounds measured = harness.measure(1, List.of(t -> {
            gate.call(ctx, Codemode.TEST, EMPTY);
            return true;
        }, t -> {
            gate.call(ctx, BenchTools.PING, "{}");
            return true;
        }), rounds);
        print("in-memory", "codemode.test of `return 1` vs governed READ", 1, measured);
    }

    private static void print(String db, String what, int threads, Harness.Rounds measured) {
        Harness.Result[] total = measured.total();
        double[] ratios = sorted(java.util.Arrays.stream(measured.perRound())
                .mapToDouble(round -> round[0].opsPerSecond() / round[1].opsPerSecond()));
        System.out.printf(Locale.ROOT, "%-10s %-45s %d thr: %8.1f vs %9.1f ops/s, p50 %9.1f vs %8.1f us, ratio %.3f"
                        + " (rounds min %.3f median %.3f max %.3f)%n", db, what, threads, total[0].opsPerSecond(),
                total[1].opsPerSecond(), total[0].p50Micros(), total[1].p50Micros(),
                total[0].opsPerSecond() / total[1].opsPerSecond(), ratios[0], median(ratios), ratios[ratios.length - 1]);
    }
}
