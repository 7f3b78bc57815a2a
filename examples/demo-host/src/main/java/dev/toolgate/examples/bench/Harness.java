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
     * @param machineCpuMicrosPerOp CPU time the whole machine was busy per operation, every process and
     *                     thread (the database's backends, the collector, the pool): what the throughput
     *                     of a workload that saturates the cores is the inverse of (from Linux's
     *                     {@code /proc/stat}; NaN elsewhere)
     * @param stealShare   the share of the cores' time the hypervisor gave to other machines during the
     *                     slices (NaN where not known): a throughput measured under steal measures the
     *                     neighbours too
     * @param processCpuMicrosPerOp CPU time this JVM used per operation, all its threads (the collector's,
     *                     the compiler's, a library's own): the part of {@code machineCpuMicrosPerOp} not in
     *                     the database (NaN where the JVM cannot tell)
     * @param gcPauseMicrosPerOp time the garbage collectors reported spent in collections per operation
     *                     (wall time, several of their threads at once)
     * @param databaseCpuMicrosPerOp CPU time the database server's processes on this machine used per
     *                     operation (every {@code postgres} process: the backends of both pools, the WAL
     *                     writer, the checkpointer), measured on their own in nanoseconds rather than as
     *                     the machine's time less this JVM's, which also holds every other service of the
     *                     machine (NaN where Linux's {@code /proc/<pid>/schedstat} is not there)
     */
    record Result(long ops, long refused, double opsPerSecond, double p50Micros, double p99Micros, double cpuMicrosPerOp,
                  double bytesPerOp, double machineCpuMicrosPerOp, double stealShare, double processCpuMicrosPerOp,
                  double gcPauseMicrosPerOp, double databaseCpuMicrosPerOp) {
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
        boolean machine = samples.stream().allMatch(s -> s.machine() != null);
        long busy = machine ? samples.stream().mapToLong(s -> s.machine().busy()).sum() : -1;
        long steal = machine ? samples.stream().mapToLong(s -> s.machine().steal()).sum() : -1;
        long all = machine ? samples.stream().mapToLong(s -> s.machine().total()).sum() : -1;
        long process = samples.stream().anyMatch(s -> s.processNanos() < 0) ? -1
                : samples.stream().mapToLong(Sample::processNanos).sum();
        long database = samples.stream().anyMatch(s -> s.databaseNanos() < 0) ? -1
                : samples.stream().mapToLong(Sample::databaseNanos).sum();
        double seconds = samples.size() * slice.toNanos() / 1e9;
        return new Result(latencies.length, refused, latencies.length / seconds,
                percentile(latencies, 0.50) / 1e3, percentile(latencies, 0.99) / 1e3,
                cpu < 0 || latencies.length == 0 ? Double.NaN : cpu / 1e3 / latencies.length,
                bytes < 0 || latencies.length == 0 ? Double.NaN : (double) bytes / latencies.length,
                !machine || latencies.length == 0 ? Double.NaN : busy * MachineTimes.NANOS_PER_TICK / 1e3 / latencies.length,
                !machine || all == 0 ? Double.NaN : (double) steal / all,
                process < 0 || latencies.length == 0 ? Double.NaN : process / 1e3 / latencies.length,
                latencies.length == 0 ? Double.NaN : samples.stream().mapToLong(Sample::gcMillis).sum() * 1e3 / latencies.length,
                database < 0 || latencies.length == 0 ? Double.NaN : database / 1e3 / latencies.length);
    }

    /**
     * @param cpuNanos the measuring threads' CPU time, or -1 if the JVM cannot measure it
     * @param machine  the machine's CPU times over the slice, or null where {@code /proc/stat} is not there
     * @param processNanos this JVM's CPU time over the slice, or -1 if it cannot tell
     * @param gcMillis     the collectors' time in collections over the slice
     * @param databaseNanos the database server's processes' CPU time over the slice, or -1 if unknown
     */
    private record Sample(long[] latencies, long refused, long cpuNanos, long bytes, MachineTimes machine,
                          long processNanos, long gcMillis, long databaseNanos) {
    }

    /** The name (Linux's {@code comm}) of the database server's processes whose CPU time a slice measures. */
    private static final String DATABASE_PROCESS = System.getProperty("bench.database-process", "postgres");

    /**
     * The CPU time, in nanoseconds, of every process now running whose name is {@code name}: the first
     * field of {@code /proc/<pid>/schedstat} (time on a CPU, in nanoseconds, unlike the clock ticks of
     * {@code /proc/<pid>/stat}), by pid; empty where Linux does not tell.
     */
    static java.util.Map<Long, Long> processTimes(String name) {
        java.util.Map<Long, Long> times = new java.util.HashMap<>();
        java.io.File[] entries = new java.io.File("/proc").listFiles((dir, n) -> !n.isEmpty() && n.chars().allMatch(Character::isDigit));
        if (entries == null) {
            return times;
        }
        for (java.io.File entry : entries) {
            try {
                if (!java.nio.file.Files.readString(entry.toPath().resolve("comm")).strip().equals(name)) {
                    continue;
                }
                String schedstat = java.nio.file.Files.readString(entry.toPath().resolve("schedstat")).strip();
                times.put(Long.parseLong(entry.getName()), Long.parseLong(schedstat.substring(0, schedstat.indexOf(' '))));
            } catch (java.io.IOException | RuntimeException e) {
                // gone in between, or not ours to read: not counted
            }
        }
        return times;
    }

    /**
     * The CPU time the processes of {@code start} and {@code end} used in between: a process in both, the
     * difference; one started in between (a new backend), all of its time; one that ended, what it used
     * before {@code start} was taken is unknown and counts nothing. -1 if neither saw a process.
     */
    static long cpuBetween(java.util.Map<Long, Long> start, java.util.Map<Long, Long> end) {
        if (start.isEmpty() && end.isEmpty()) {
            return -1;
        }
        long total = 0;
        for (java.util.Map.Entry<Long, Long> e : end.entrySet()) {
            total += e.getValue() - start.getOrDefault(e.getKey(), 0L);
        }
        return total;
    }

    /** The collectors' total time in collections so far, in milliseconds. */
    private static long gcMillisNow() {
        long total = 0;
        for (java.lang.management.GarbageCollectorMXBean gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    /** This JVM's CPU time, all threads, or -1 if it cannot tell. */
    private static long processCpuNow() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
    }

    /**
     * The whole machine's CPU time in clock ticks (Linux's {@code USER_HZ}, 100 a second), from the first
     * line of {@code /proc/stat}: busy (user, nice, system, irq, softirq), stolen by the hypervisor, and all
     * of it (idle and I/O wait included).
     */
    record MachineTimes(long busy, long steal, long total) {

        static final double NANOS_PER_TICK = 1e9 / 100;

        /** Now, or null where {@code /proc/stat} cannot be read. */
        static MachineTimes now() {
            try {
                String line = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat")).get(0);
                String[] f = line.trim().split("\\s+"); // cpu user nice system idle iowait irq softirq steal ...
                long user = Long.parseLong(f[1]);
                long nice = Long.parseLong(f[2]);
                long system = Long.parseLong(f[3]);
                long idle = Long.parseLong(f[4]);
                long iowait = Long.parseLong(f[5]);
                long irq = Long.parseLong(f[6]);
                long softirq = Long.parseLong(f[7]);
                long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
                long busy = user + nice + system + irq + softirq;
                return new MachineTimes(busy, steal, busy + idle + iowait + steal);
            } catch (java.io.IOException | RuntimeException e) {
                return null;
            }
        }

        /** The times from {@code start} to this, or null if either is unknown. */
        MachineTimes since(MachineTimes start) {
            return start == null ? null : new MachineTimes(busy - start.busy, steal - start.steal, total - start.total);
        }
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
        java.util.Map<Long, Long> databaseStart = processTimes(DATABASE_PROCESS);
        MachineTimes machineStart = MachineTimes.now();
        long processStart = processCpuNow();
        long gcStart = gcMillisNow();
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
        MachineTimes machineEnd = MachineTimes.now();
        java.util.Map<Long, Long> databaseEnd = processTimes(DATABASE_PROCESS);
        long processEnd = processCpuNow();
        long gcEnd = gcMillisNow();
        MachineTimes machine = machineEnd == null ? null : machineEnd.since(machineStart);
        long cpuTotal = Arrays.stream(cpu).anyMatch(c -> c < 0) ? -1 : Arrays.stream(cpu).sum();
        long bytesTotal = Arrays.stream(bytes).anyMatch(b -> b < 0) ? -1 : Arrays.stream(bytes).sum();
        return new Sample(all.stream().flatMapToLong(Arrays::stream).toArray(), Arrays.stream(refused).sum(), cpuTotal,
                bytesTotal, machine, processStart < 0 || processEnd < 0 ? -1 : processEnd - processStart,
                gcEnd - gcStart, cpuBetween(databaseStart, databaseEnd));
    }

    private static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }
}
