package dev.toolgate.examples.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/** The clients: each one session on its own connection, calling in a loop until stopped. */
final class SoakLoad {
    final AtomicLong calls = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private final PrintStream out;
    private volatile boolean stopping;

    SoakLoad(URI endpoint, int clients, PrintStream out) {
        this.out = out;
        for (int c = 0; c < clients; c++) {
            int client = c;
            threads.add(new Thread(() -> run(endpoint, client), "soak-client-" + c));
        }
    }

    void start() {
        threads.forEach(Thread::start);
    }

    private void run(URI endpoint, int client) {
        McpSession session = null;
        for (long n = client; !stopping; n++) {
            long start = System.nanoTime();
            try {
                if (session == null) {
                    session = McpSession.open(endpoint, McpSoakCheck.TOKEN, "soak-" + client, McpSession.Client.HTTP_CLIENT);
                }
                session.call(McpSoakCheck.CALLS[(int) (n % McpSoakCheck.CALLS.length)]);
                latencies.add((System.nanoTime() - start) / 1_000);
            } catch (IOException e) {
                fail(e);
                if (!(e instanceof McpSession.CallFailed)) {
                    session = null; // a broken connection: a new session, as a client would do
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                fail(e);
            }
            calls.incrementAndGet();
        }
        if (session != null) {
            session.close();
        }
    }

    private void fail(Exception e) {
        if (errors.incrementAndGet() <= 20) {
            failures.add(e.toString());
        }
        if (errors.get() % 1000 == 1) {
            out.println("  call failed: " + e);
        }
    }

    List<Long> drainLatencies() {
        List<Long> drained = new ArrayList<>();
        for (Long v; (v = latencies.poll()) != null; ) {
            drained.add(v);
        }
        Collections.sort(drained);
        return drained;
    }

    void stop() throws InterruptedException {
        stopping = true;
        for (Thread thread : threads) {
            thread.join(60_000);
        }
    }
}
