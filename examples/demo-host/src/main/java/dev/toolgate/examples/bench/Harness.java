package dev.toolgate.examples.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs operations from N threads and records every operation's latency. A comparison warms both
 * sides up, then alternates short timed slices of each side, so that both see the same background
 * noise (other processes, checkpoints, vacuum) rather than one side getting a quiet minute.
 */
final class Harness {

    /** One operation; returns false when it was refused (for example over budget). */
    interface Op {
        boolean run(int thread) throws Exception;
    }

    /**
     * What one side measured over all its timed slices.
     *
     * @param ops          operations started in timed slices
     * @param refused      of those, how many were refused
     * @param opsPerSecond throughput
     * @param p50Micros    median latency
     * @param p99Micros    99th percentile latency
     */
    record Result(long ops, long refused, double opsPerSecond, double p50Micros, double p99Micros) {
    }

    private final Duration warmup;
    private final Duration slice;
    private final int rounds;

    Harness(Duration warmup, Duration slice, int rounds) {
        this.warmup = warmup;
        this.slice = slice;
        this.rounds = rounds;
    }

    /** Measures {@code op} alone. */
    Result run(int threads, Op op) throws Exception {
        return compare(threads, op, null)[0];
    }

    /** Measures {@code a} and {@code b} (null for none) in alternating slices; returns their results in that order. */
    Result[] compare(int threads, Op a, Op b) throws Exception {
        return compare(threads, b == null ? List.of(a) : List.of(a, b));
    }

    /** Measures every op of {@code ops} in turn, slice by slice; returns their results in that order. */
    Result[] compare(int threads, List<Op> ops) throws Exception {
        List<List<Sample>> samples = sample(threads, ops);
        return samples.stream().map(this::merge).toArray(Result[]::new);
    }

    /**
     * Like {@link #compare}, but each round on its own, to show the spread between rounds: element
     * {@code [round][side]}.
     */
    Result[][] rounds(int threads, Op a, Op b) throws Exception {
        return rounds(threads, b == null ? List.of(a) : List.of(a, b));
    }

    /** Like {@link #rounds(int, Op, Op)} for any number of ops, which take turns slice by slice. */
    Result[][] rounds(int threads, List<Op> ops) throws Exception {
        List<List<Sample>> samples = sample(threads, ops);
        Result[][] results = new Result[rounds][samples.size()];
        for (int round = 0; round < rounds; round++) {
            for (int side = 0; side < samples.size(); side++) {
                results[round][side] = merge(List.of(samples.get(side).get(round)));
            }
        }
        return results;
    }

    /** Warms each side up, then runs the rounds of alternating slices: element {@code [side][round]}. */
    private List<List<Sample>> sample(int threads, List<Op> ops) throws Exception {
        List<List<Sample>> samples = new ArrayList<>();
        for (Op op : ops) {
            slice(threads, op, warmup);
            samples.add(new ArrayList<>());
        }
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < ops.size(); i++) {
                samples.get(i).add(slice(threads, ops.get(i), slice));
            }
        }
        return samples;
    }

    private Result merge(List<Sample> samples) {
        long[] latencies = samples.stream().flatMapToLong(s -> Arrays.stream(s.latencies())).sorted().toArray();
        long refused = samples.stream().mapToLong(Sample::refused).sum();
        double seconds = samples.size() * slice.toNanos() / 1e9;
        return new Result(latencies.length, refused, latencies.length / seconds,
                percentile(latencies, 0.50) / 1e3, percentile(latencies, 0.99) / 1e3);
    }

    private record Sample(long[] latencies, long refused) {
    }

    /** Runs {@code op} on {@code threads} threads for {@code length}, measuring nothing (a warm-up). */
    static void drive(int threads, Op op, Duration length) throws Exception {
        slice(threads, op, length);
    }

    /** Runs {@code op} on {@code threads} threads for {@code length}; counts operations started in it. */
    private static Sample slice(int threads, Op op, Duration length) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[] end = new long[1];
        long[] refused = new long[threads];
        List<Future<long[]>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                ready.countDown();
                go.await();
                long[] latencies = new long[1 << 14];
                int n = 0;
                while (true) {
                    long start = System.nanoTime();
                    if (start >= end[0]) {
                        break;
                    }
                    boolean admitted = op.run(thread);
                    if (n == latencies.length) {
                        latencies = Arrays.copyOf(latencies, n * 2);
                    }
                    latencies[n++] = System.nanoTime() - start;
                    if (!admitted) {
                        refused[thread]++;
                    }
                }
                return Arrays.copyOf(latencies, n);
            }));
        }
        ready.await();
        end[0] = System.nanoTime() + length.toNanos();
        go.countDown();
        List<long[]> all = new ArrayList<>();
        try {
            for (Future<long[]> f : futures) {
                all.add(f.get(length.toSeconds() + 120, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        return new Sample(all.stream().flatMapToLong(Arrays::stream).toArray(), Arrays.stream(refused).sum());
    }

    private static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }
}
