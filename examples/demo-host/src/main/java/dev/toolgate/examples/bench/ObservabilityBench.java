package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.micrometer.ToolgateObservability;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.spi.InMemoryStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The observability part of {@link StorageBenchmark}: what toolgate-micrometer costs a governed READ.
 */
final class ObservabilityBench {

    private final Harness harness;
    private final CodemodeWorkloads.Rows rows;
    private final List<String> notes;

    ObservabilityBench(Harness harness, CodemodeWorkloads.Rows rows, List<String> notes) {
        this.harness = harness;
        this.rows = rows;
        this.notes = notes;
    }

    /**
     * The governed READ on the in-memory store (where nothing hides its cost) with toolgate-micrometer
     * installed, against the same gate without it: with a no-op observation registry (metrics installed,
     * switched off), and with a real one recording into a {@link SimpleMeterRegistry}. Goal: within 10 %.
     * The three take turns slice by slice ({@code -Dbench.obs-rounds}, default 15, rounds; every other
     * round in reverse order); each round gives a ratio per registry, and the verdict is the median ratio,
     * with the spread printed, so that a busy moment on a shared machine does not decide it.
     */
    /** Measures and records the rows and notes. */
    void run() throws Exception {
        int rounds = Integer.getInteger("bench.obs-rounds", 15);
        System.out.printf("running the governed READ with and without toolgate-micrometer (load average %s) ...%n", load());
        BenchTools tools = new BenchTools();
        try (Toolgate plain = readGate(tools, null, null);
             Toolgate noop = readGate(tools, ObservationRegistry.NOOP, null);
             Toolgate simple = readGate(tools, ObservationRegistry.create(), new SimpleMeterRegistry())) {
            for (int threads : StorageBenchmark.THREADS) {
                CallContext[] ctx = StorageWorkloads.contexts("observed-" + threads + "-", threads);
                Harness.Rounds measured = harness.measure(threads, List.of(t -> {
                    plain.call(ctx[t], BenchTools.PING, "{}");
                    return true;
                }, t -> {
                    noop.call(ctx[t], BenchTools.PING, "{}");
                    return true;
                }, t -> {
                    simple.call(ctx[t], BenchTools.PING, "{}");
                    return true;
                }), rounds);
                observed("no-op registry", threads, measured, 1);
                observed("simple registry", threads, measured, 2);
                if (threads == 1) {
                    double listener = ListenerCost.nanosPerEvent();
                    double read = measured.total()[0].cpuMicrosPerOp() * 1000;
                    String cost = String.format(Locale.ROOT, "the listener alone (meters on a simple registry): %.0f ns of"
                            + " CPU per executed READ, %.1f %% of a governed READ's %.0f ns (median of 9 batches of 200,000"
                            + " events on one thread)", listener, 100 * listener / read, read);
                    System.out.println("  " + cost);
                    notes.add(cost);
                }
            }
        }
        System.out.printf("  load average after: %s%n", load());
    }

    private void observed(String registry, int threads, Harness.Rounds measured, int side) {
        Harness.Result[] total = measured.total();
        rows.row("in-memory", "governed READ + metrics (" + registry + ")", threads, total[side], "governed READ, no metrics",
                total[0]);
        double[] ratios = BenchText.sorted(java.util.Arrays.stream(measured.perRound())
                .mapToDouble(round -> round[side].opsPerSecond() / round[0].opsPerSecond()));
        double[] cpu = BenchText.sorted(java.util.Arrays.stream(measured.perRound())
                .mapToDouble(round -> round[side].cpuMicrosPerOp() / round[0].cpuMicrosPerOp()));
        String summary = String.format(Locale.ROOT, "metrics (%s) at %d thread(s), %d rounds: throughput ratio median %.3fx"
                        + " (interquartile %.3f-%.3f, min %.3f, max %.3f); CPU per call median %.3fx of without"
                        + " (interquartile %.3f-%.3f; %.2f vs %.2f us); allocated %.0f vs %.0f bytes per call", registry, threads, ratios.length, BenchText.median(ratios),
                ratios[ratios.length / 4], ratios[(3 * ratios.length) / 4], ratios[0], ratios[ratios.length - 1],
                BenchText.median(cpu), cpu[cpu.length / 4], cpu[(3 * cpu.length) / 4], total[side].cpuMicrosPerOp(),
                total[0].cpuMicrosPerOp(), total[side].bytesPerOp(), total[0].bytesPerOp());
        System.out.println("  " + summary);
        notes.add(summary);
        if (BenchText.median(ratios) < StorageBenchmark.OBSERVED_GOAL) {
            notes.add(String.format(Locale.ROOT, "goal missed by throughput: the governed READ with metrics (%s) at %d"
                    + " thread(s) is %.2fx of the READ without (median of the rounds; goal %.2fx, at most 10 %% slower)",
                    registry, threads, BenchText.median(ratios), StorageBenchmark.OBSERVED_GOAL));
        }
        if (BenchText.median(cpu) > 1 / StorageBenchmark.OBSERVED_GOAL) {
            notes.add(String.format(Locale.ROOT, "goal missed by CPU time: a governed READ with metrics (%s) at %d"
                    + " thread(s) costs %.2fx the CPU of one without (median of the rounds; goal at most %.2fx)",
                    registry, threads, BenchText.median(cpu), 1 / StorageBenchmark.OBSERVED_GOAL));
        }
    }

    /** The machine's load average (1, 5, 15 minutes), or "?" where it cannot be read. */
    private static String load() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (java.io.IOException | RuntimeException e) {
            double one = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            return one < 0 ? "?" : String.format(Locale.ROOT, "%.2f", one);
        }
    }

    /** A gate of the bench tools on its own in-memory store, with toolgate-micrometer if {@code observations} is set. */
    private static Toolgate readGate(BenchTools tools, ObservationRegistry observations, MeterRegistry meters) {
        ToolgateBuilder builder = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .provider(tools.provider()).budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO);
        if (observations == null) {
            return builder.build();
        }
        return ToolgateObservability.install(builder, observations, meters).bind(builder.build());
    }
}
