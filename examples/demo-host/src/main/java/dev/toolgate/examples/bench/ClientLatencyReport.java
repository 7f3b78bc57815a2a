package dev.toolgate.examples.bench;

import dev.toolgate.examples.bench.ClientLatencyBenchmark.Round;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** How {@link ClientLatencyBenchmark} prints its cells: the rounds, the table with each cell's CPU floor, the HTTP-stdio gaps. */
final class ClientLatencyReport {

    private ClientLatencyReport() {
    }

    static void print(String cell, List<Round> rounds) {
        System.out.printf(Locale.ROOT, "  %s rounds (calls/s, p50 ms, p99 ms, client and server CPU µs per call): %s%n", cell,
                rounds.stream().map(r -> String.format(Locale.ROOT, "%.0f/%.3f/%.3f/%.0f/%.0f", r.callsPerSecond(), r.p50Millis(),
                        r.p99Millis(), r.clientCpuMicros(), r.serverCpuMicros()))
                .collect(Collectors.joining(" ")));
    }

    static void row(String cell, List<Round> rounds) {
        double client = median(rounds.stream().mapToDouble(Round::clientCpuMicros).toArray());
        double server = median(rounds.stream().mapToDouble(Round::serverCpuMicros).toArray());
        String kind = cell.substring(0, cell.indexOf(" x"));
        int clients = Integer.parseInt(cell.substring(cell.indexOf(" x") + 2));
        System.out.printf(Locale.ROOT, "%-20s %-22s %-22s %-22s %-11.0f %-11.0f %-9.3f%n", cell,
                spread(rounds.stream().mapToDouble(Round::callsPerSecond).toArray(), "%.0f"),
                spread(rounds.stream().mapToDouble(Round::p50Millis).toArray(), "%.3f"),
                spread(rounds.stream().mapToDouble(Round::p99Millis).toArray(), "%.3f"),
                client, server, cpuFloorMillis(kind, clients, client, server));
    }

    /**
     * The p50 a cell cannot beat for CPU alone, in ms: one call needs the client's CPU and then the
     * server's ({@code client + server}), and {@code clients} calls in flight share this machine's cores,
     * the client's part no more threads than the client runs (Node: its one event loop; a Java client:
     * a thread per caller), so the calls complete at most at {@code min(parallelism / client, cores /
     * (client + server))} a second and, by Little's law, each waits at least {@code clients} over that.
     * Where a cell's p50 is near its floor, its time is CPU, and the client's share of it is
     * {@code client / (client + server)}.
     */
    static double cpuFloorMillis(String kind, int clients, double clientMicros, double serverMicros) {
        int cores = Runtime.getRuntime().availableProcessors();
        int parallelism = kind.startsWith("ts-") ? 1 : Math.min(clients, cores);
        double perCall = Math.max(clientMicros / parallelism, (clientMicros + serverMicros) / cores);
        return Math.max(clientMicros + serverMicros, clients * perCall) / 1e3;
    }

    /** Per client and concurrency: the median HTTP p50 less the median stdio p50 (the goal: within 1 ms). */
    static void gaps(Map<String, List<Round>> results) {
        for (String client : List.of("java-sdk", "ts-sdk")) {
            for (String cell : results.keySet()) {
                if (!cell.startsWith(client + "-http x")) {
                    continue;
                }
                String concurrency = cell.substring(cell.indexOf(" x"));
                List<Round> stdio = results.get(client + "-stdio" + concurrency);
                if (stdio == null) {
                    continue;
                }
                double http = median(results.get(cell).stream().mapToDouble(Round::p50Millis).toArray());
                double pipe = median(stdio.stream().mapToDouble(Round::p50Millis).toArray());
                System.out.printf(Locale.ROOT, "%s%s: HTTP p50 %.3f ms, stdio p50 %.3f ms, gap %.3f ms%n", client, concurrency, http,
                        pipe, http - pipe);
            }
        }
    }

    private static String spread(double[] values, String format) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, format + "/" + format + "/" + format, sorted[0], median(values), sorted[sorted.length - 1]);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1 ? sorted[sorted.length / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
}
