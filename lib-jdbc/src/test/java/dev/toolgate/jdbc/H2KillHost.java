package dev.toolgate.jdbc;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The child of {@link H2KillTest}: {@code <jdbc url> <retention ms> <threads> <write ms>}. Opens a
 * {@link JdbcStore} on the H2 file with its compaction (every 250 ms, 80%) and the given retention
 * time, and from {@code threads} threads proposes and applies tokens for {@code write ms}, printing
 * {@value #ACK} and the call's id after each apply has returned (its claim and its outcome committed);
 * then it stays alive, the compaction running on, until it is killed.
 */
final class H2KillHost {

    static final String ACK = "ACK ";
    static final String IDLE = "IDLE";

    private H2KillHost() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        Duration retention = Duration.ofMillis(Long.parseLong(args[1]));
        int threads = Integer.parseInt(args[2]);
        long writeMillis = Long.parseLong(args[3]);
        JdbcStore store = JdbcStore.builder().url(url).poolSize(threads + 2)
                .h2Compaction(H2Compaction.DEFAULT_INTERVAL, H2Compaction.DEFAULT_FILL_RATE, retention).build();
        Toolgate gate = CrashHost.gate(store, Duration.ofSeconds(30), callId -> { });
        long stopAt = System.nanoTime() + Duration.ofMillis(writeMillis).toNanos();
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int n = t;
            // a principal of its own for each writer of each child: the gate's budget (1,000 calls a minute
            // a principal) is then far beyond what one writer makes in its few seconds
            CallContext context = CallContext.of(Principal.user("writer-" + ProcessHandle.current().pid() + "-" + t,
                    "vault.write", "vault.read")).withTenant("acme").withSession("kill-" + t);
            Thread writer = new Thread(() -> {
                for (int i = 0; System.nanoTime() < stopAt; i++) {
                    Proposal proposal = gate.propose(context, CrashHost.TOOL,
                            "{\"key\":\"k" + n + "-" + i + "\",\"value\":\"" + "v".repeat(200) + "\"}");
                    gate.apply(context, proposal.token());
                    synchronized (System.out) {
                        System.out.println(ACK + proposal.callId());
                        System.out.flush();
                    }
                }
            }, "writer-" + t);
            writer.start();
            writers.add(writer);
        }
        for (Thread writer : writers) {
            writer.join();
        }
        System.out.println(IDLE);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // the compaction goes on until the kill
    }
}
