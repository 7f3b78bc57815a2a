package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.call.CallContext;
import dev.toolgate.access.Principal;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * One workload for a profiler, on one thread, side by side with its raw baseline in alternating
 * half-second slices: the governed READ against the raw durable insert ({@code --workload read}), or a
 * propose + apply pair against the raw insert, claim and outcome ({@code --workload pair}, sessions of
 * 10 proposals as in {@link StorageBenchmark}), or a call budgeted at 5 a second for each of 100
 * principals, most of them refused, against the raw insert ({@code --workload budget}), for {@code --seconds} (default 30). Run it under JFR
 * ({@code MAVEN_OPTS=-XX:StartFlightRecording=filename=read.jfr,settings=profile}) to see where a
 * governed call's time goes beyond the commit; with {@code pg_stat_statements} installed, the database
 * side shows each statement's own execution time.
 *
 * <p>Each side's line ends with the CPU time its calls used on the calling thread (kernel time of the
 * socket writes and reads included), which unlike latency does not depend on what else the machine
 * runs. For a sampling profiler ({@code perf} with {@code -XX:+PreserveFramePointer}, say),
 * {@code -Dprofile.side=0} runs only Toolgate's side and {@code -Dprofile.side=1} only the baseline.
 *
 * <p>Arguments: {@code --url jdbc:...} (default {@code TOOLGATE_TEST_PG_URL}), {@code --seconds N},
 * {@code --warmup N} (seconds run first and not counted; default 0), {@code --workload read|pair|budget}.
 */
public final class CallPathProfile {

    private CallPathProfile() {
    }

    public static void main(String[] args) throws Exception {
        String url = System.getenv("TOOLGATE_TEST_PG_URL");
        int seconds = 30;
        int warmup = 0;
        String workload = "read";
        boolean verbose = Boolean.getBoolean("profile.verbose");
        int only = Integer.getInteger("profile.side", -1); // 0: only Toolgate's side, 1: only the baseline (for a sampling profiler)
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--url" -> url = args[i + 1];
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--workload" -> workload = args[i + 1];
                case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--url, --seconds, --warmup, --workload)");
            }
        }
        boolean pair = workload.equals("pair");
        boolean budget = workload.equals("budget");
        if (!pair && !budget && !workload.equals("read")) {
            throw new IllegalArgumentException("--workload is read, pair or budget, not " + workload);
        }
        if (url == null) {
            throw new IllegalArgumentException("no database: pass --url or set TOOLGATE_TEST_PG_URL");
        }
        BenchTools tools = new BenchTools();
        CallContext ctx = CallContext.of(Principal.user("profile", BenchTools.RULE)).withTenant("acme").withSession("profile");
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(4).build();
             RawBaseline raw = new RawBaseline(url, RawBaseline.script(url.startsWith("jdbc:postgresql:")), 4);
             Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(store)
                     .provider(tools.provider()).budget(budget ? ToolBudget.perPrincipal(Integer.getInteger("profile.cap", 5), Duration.ofSeconds(1)) : ToolBudget.unlimited())
                     .maxPendingPerSession(1000)
                     .sweepInterval(Duration.ZERO).build()) {
            long count = 0;
            CallContext[] principals = new CallContext[100];
            for (int i = 0; i < principals.length; i++) {
                principals[i] = CallContext.of(Principal.user("budget-" + i, BenchTools.RULE)).withTenant("acme");
            }
            long[][] sums = new long[2][];
            long[][] firstParts = new long[2][];
            long[] cpu = new long[2];
            long[] user = new long[2];
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            for (int s = -warmup; s < seconds; s++) {
                for (int side = 0; side < 2; side++) {
                    if (only >= 0 && side != only) {
                        sums[side] = new long[] {0};
                        firstParts[side] = new long[] {0};
                        continue;
                    }
                    long[] lat = new long[1 << 16];
                    long[] first = new long[lat.length];
                    int n = 0;
                    long end = System.nanoTime() + 500_000_000L;
                    long cpuBefore = threads.getCurrentThreadCpuTime();
                    long userBefore = threads.getCurrentThreadUserTime();
                    while (n < lat.length) {
                        long t0 = System.nanoTime();
                        CallContext session = ctx.withSession("profile-" + count++ / 10);
                        long middle = 0;
                        if (pair && side == 0) {
                            String token = gate.propose(session, BenchTools.TOUCH, "{\"key\":\"k\"}").token();
                            middle = System.nanoTime();
                            gate.apply(session, token);
                        } else if (pair) {
                            middle = raw.proposeClaimComplete(session.principal().key(), session.sessionId(),
                                    url.startsWith("jdbc:postgresql:"));
                        } else if (budget && side == 0) {
                            try {
                                gate.call(principals[(int) (count % principals.length)], BenchTools.PING, "{}");
                            } catch (BudgetExceededException e) {
                                // refused: the common case at 5 calls a second per principal
                            }
                        } else if (side == 0) {
                            gate.call(ctx, BenchTools.PING, "{}");
                        } else {
                            raw.insertExecuted(BenchTools.PING, ctx.principal().key(), ctx.sessionId());
                        }
                        long t1 = System.nanoTime();
                        first[n] = middle - t0;
                        lat[n++] = t1 - t0;
                        if (t1 > end) {
                            break;
                        }
                    }
                    if (s < 0) { // warming up: not counted
                        continue;
                    }
                    cpu[side] += threads.getCurrentThreadCpuTime() - cpuBefore;
                    user[side] += threads.getCurrentThreadUserTime() - userBefore;
                    long[] slice = Arrays.copyOf(lat, n);
                    sums[side] = sums[side] == null ? slice : concat(sums[side], slice);
                    long[] firstSlice = Arrays.copyOf(first, n);
                    firstParts[side] = firstParts[side] == null ? firstSlice : concat(firstParts[side], firstSlice);
                    if (verbose) {
                        Arrays.sort(slice);
                        System.out.printf(Locale.ROOT, "  second %3d %-14s p50 %7.1f us  mean %7.1f us%n", s, side == 0 ? "Toolgate" : "raw",
                                slice[n / 2] / 1e3, Arrays.stream(slice).average().orElse(0) / 1e3);
                    }
                }
            }
            for (int side = 0; side < 2; side++) {
                long[] all = sums[side];
                Arrays.sort(all);
                double mean = Arrays.stream(all).average().orElse(0) / 1e3;
                System.out.printf(Locale.ROOT, "%-14s calls %,9d  mean %6.1f us  p50 %6.1f  p90 %6.1f  p99 %7.1f  caller's CPU %5.1f us a call (%4.1f in the JVM)%n",
                        side == 0 ? (pair ? "propose+apply" : budget ? "budgeted READ" : "governed READ") : (pair ? "raw 3 commits" : "raw INSERT"), all.length, mean, all[all.length / 2] / 1e3,
                        all[(int) (all.length * 0.9)] / 1e3, all[(int) (all.length * 0.99)] / 1e3, cpu[side] / 1e3 / all.length,
                        user[side] / 1e3 / all.length);
            }
            if (pair) { // each pair's first part (the proposal) and second (its claim and outcome), apart
                for (int side = 0; side < 2; side++) {
                    double wholeMean = Arrays.stream(sums[side]).average().orElse(0);
                    long[] firstPart = firstParts[side];
                    double firstMean = Arrays.stream(firstPart).average().orElse(0);
                    Arrays.sort(firstPart);
                    System.out.printf(Locale.ROOT, "  %-28s mean %6.1f us  p50 %6.1f%n",
                            side == 0 ? "propose (proposal row)" : "raw INSERT of the proposal",
                            firstMean / 1e3, firstPart[firstPart.length / 2] / 1e3);
                    System.out.printf(Locale.ROOT, "  %-28s mean %6.1f us%n",
                            side == 0 ? "apply (claim + outcome)" : "raw claim + outcome",
                            (wholeMean - firstMean) / 1e3);
                }
            }
        }
    }

    private static long[] concat(long[] a, long[] b) {
        long[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
