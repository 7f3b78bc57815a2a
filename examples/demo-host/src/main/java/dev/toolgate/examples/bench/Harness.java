package dev.toolgate.examples.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
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
     * @param cpuMicrosPerOp CPU time the measuring threads used per operation (their own thread CPU time:
     *                     unlike throughput, it does not depend on how much of a shared machine they got;
     *                     work on other threads, such as the garbage collector's, is not in it)
     * @param bytesPerOp  bytes the measuring threads allocated per operation (NaN where the JVM cannot tell)
     */
    record Result(long ops, long refused, double opsPerSecond, double p50Micros, double p99Micros, double cpuMicrosPerOp,
                  double bytesPerOp) {
    }

    private final Duration warmup;
    private final Duration slice;
    private final int rounds;

    Harness(Duration warmup, Duration slice, int rounds) {
        this.warmup = warmup;
        this.slice = slice;
        this.rounds = rounds;
    }

    /** How many rounds of slices a comparison takes. */
    int rounds() {
        return rounds;
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

    /**
     * Both views of one measurement: each round on its own ({@code [round][side]}) and every round merged
     * ({@code [side]}).
     */
    record Rounds(Result[][] perRound, Result[] total) {
    }

    /** Measures {@code rounds} rounds of {@code ops} taking turns slice by slice; see {@link Rounds}. */
    Rounds measure(int threads, List<Op> ops, int rounds) throws Exception {
        List<List<Sample>> samples = sample(threads, ops, rounds);
        Result[][] perRound = new Result[rounds][samples.size()];
        for (int round = 0; round < rounds; round++) {
            for (int side = 0; side < samples.size(); side++) {
                perRound[round][side] = merge(List.of(samples.get(side).get(round)));
            }
        }
        return new Rounds(perRound, samples.stream().map(this::merge).toArray(Result[]::new));
    }

    private List<List<Sample>> sample(int threads, List<Op> ops) throws Exception {
        return sample(threads, ops, rounds);
    }

    /**
     * Warms each side up, then runs the rounds of alternating slices: element {@code [side][round]}. Every
     * other round takes the sides in reverse order, so that no side always runs right after the same one
     * (after its garbage, say).
     */
    private List<List<Sample>> sample(int threads, List<Op> ops, int rounds) throws Exception {
        List<List<Sample>> samples = new ArrayList<>();
        for (Op op : ops) {
            slice(threads, op, warmup);
            samples.add(new ArrayList<>());
        }
        for (int round = 0; round < rounds; round++) {
            Sample[] taken = new Sample[ops.size()];
            for (int k = 0; k < ops.size(); k++) {
                int i = round % 2 == 0 ? k : ops.size() - 1 - k;
                taken[i] = slice(threads, ops.get(i), slice);
            }
            for (int i = 0; i < ops.size(); i++) {
                samples.get(i).add(taken[i]);
            }
        }
        return samples;
    }

    private Result merge(List<Sample> samples) {
        long[] latencies = samples.stream().flatMapToLong(s -> Arrays.stream(s.latencies())).sorted().toArray();
        long refused = samples.stream().mapToLong(Sample::refused).sum();
        long cpu = samples.stream().mapToLong(Sample::cpuNanos).sum();
        long bytes = samples.stream().anyMatch(s -> s.bytes() < 0) ? -1 : samples.stream().mapToLong(Sample::bytes).sum();
        double seconds = samples.size() * slice.toNanos() / 1e9;
        return new Result(latencies.length, refused, latencies.length / seconds,
                percentile(latencies, 0.50) / 1e3, percentile(latencies, 0.99) / 1e3,
                cpu < 0 || latencies.length == 0 ? Double.NaN : cpu / 1e3 / latencies.length,
                bytes < 0 || latencies.length == 0 ? Double.NaN : (double) bytes / latencies.length);
    }

    /** @param cpuNanos the measuring threads' CPU time, or -1 if the JVM cannot measure it */
    private record Sample(long[] latencies, long refused, long cpuNanos, long bytes) {
    }

    private static long allocatedNow() {
        return THREADS instanceof com.sun.management.ThreadMXBean sun && sun.isThreadAllocatedMemorySupported()
                ? sun.getCurrentThreadAllocatedBytes() : -1;
    }

    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    private static long cpuNow() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    }

    /**
     * Drives {@code ops} on one thread in turn, {@code window} each, until every op's throughput is
     * steady (no longer getting faster, see {@link #steady}) or
     * {@code max} has passed: on a small machine a fresh JVM compiles a governed call's path (engine,
     * JDBC driver, pool) for twenty seconds and more, and a cell measured before that measures the
     * compiler. Returns what it took, for the report.
     */
    static String warmUntilSteady(List<Op> ops, Duration window, Duration max) throws Exception {
        long start = System.nanoTime();
        List<List<Double>> rates = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            rates.add(new ArrayList<>());
        }
        while (true) {
            for (int i = 0; i < ops.size(); i++) {
                Sample s = slice(1, ops.get(i), window);
                rates.get(i).add(s.latencies().length / (window.toNanos() / 1e9));
            }
            boolean steady = rates.stream().allMatch(Harness::steady);
            double seconds = (System.nanoTime() - start) / 1e9;
            if (steady || seconds >= max.toNanos() / 1e9) {
                return String.format(Locale.ROOT, "%s after %.0f s of warm-up (%d workloads, %d ms each in turn)",
                        steady ? "steady" : "NOT steady", seconds, ops.size(), window.toMillis());
            }
        }
    }

    private static final int STEADY_WINDOWS = 3;
    /** How much faster the last windows may be than the ones before and still count as steady. */
    private static final double STEADY_GAIN = 1.05;

    /**
     * No longer getting faster: the median of the last {@value #STEADY_WINDOWS} windows is at most
     * {@code STEADY_GAIN} times the median of the {@value #STEADY_WINDOWS} before them. (Windows on a
     * shared 2-core machine scatter by more than 10 % even when warm, so a spread test never ends; a
     * compiler still at work shows as a trend instead.)
     */
    private static boolean steady(List<Double> rates) {
        int n = rates.size();
        if (n < 2 * STEADY_WINDOWS) {
            return false;
        }
        return median(rates.subList(n - STEADY_WINDOWS, n)) <= STEADY_GAIN * median(rates.subList(n - 2 * STEADY_WINDOWS, n - STEADY_WINDOWS));
    }

    private static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return sorted[sorted.length / 2];
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
        long[] cpu = new long[threads];
        long[] bytes = new long[threads];
        List<Future<long[]>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                ready.countDown();
                go.await();
                long[] latencies = new long[1 << 14];
                int n = 0;
                long cpuStart = cpuNow();
                long bytesStart = allocatedNow();
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
                cpu[thread] = cpuStart < 0 ? -1 : cpuNow() - cpuStart;
                bytes[thread] = bytesStart < 0 ? -1 : allocatedNow() - bytesStart;
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
        long cpuTotal = Arrays.stream(cpu).anyMatch(c -> c < 0) ? -1 : Arrays.stream(cpu).sum();
        long bytesTotal = Arrays.stream(bytes).anyMatch(b -> b < 0) ? -1 : Arrays.stream(bytes).sum();
        return new Sample(all.stream().flatMapToLong(Arrays::stream).toArray(), Arrays.stream(refused).sum(), cpuTotal,
                bytesTotal);
    }

    private static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }
}
