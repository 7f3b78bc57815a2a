package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.access.Principal;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.testkit.Notes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The compaction of an embedded H2 file racing the calls as hard as it can: a round every 5 ms at a
 * fill rate of 99% with a retention time of 0, so that chunks are rewritten, moved into the holes of
 * freed ones and the file truncated while writers add audit rows and readers read old and new rows
 * (pages in the chunks being moved). H2 moves a chunk by copying it and then switching its position; a
 * reader that picked the old position re-reads at the new one. Every call and every read must succeed
 * and find its row: on the file system the store opens a file on ({@code interruptsafe:}) and on H2's default
 * one ({@code nio:}, what the store used before), so that the compaction is shown safe on both.
 * A second test races it against the budget's admission log (rows numbered, inserted and deleted by
 * every call): the workload under which an earlier compaction (H2's package-private
 * {@code FileStore.rewriteChunks} reached by reflection) failed commits with "Chunk N not found".
 */
class H2CompactionRaceTest {

    private static final int WRITERS = 3;
    private static final int READERS = 3;
    private static final Duration LOAD = Duration.ofSeconds(5);
    /** The longest a test's load goes on waiting for the race it needs (rounds, moves, calls, reads, refusals). */
    private static final Duration RACE_DEADLINE = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"file", "nio"})
    void readsAndWritesSucceedWhileChunksAreMovedAndTheFileTruncated(String fileSystem) throws Exception {
        String url = "jdbc:h2:" + fileSystem + ":" + dir.resolve("raced").toAbsolutePath();
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(WRITERS + READERS + 2)
                .h2Compaction(Duration.ofMillis(5), 99, Duration.ZERO).build();
             Hosts host = Hosts.on(store)) {
            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            AtomicReferenceArray<String> ids = new AtomicReferenceArray<>(1 << 20);
            AtomicLong written = new AtomicLong();
            AtomicLong reads = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < WRITERS; t++) {
                CallContext ctx = Hosts.ctx(Hosts.READER).withSession("writer-" + t);
                threads.add(new Thread(() -> {
                    while (!stop.get()) {
                        try {
                            CallResult result = host.gate().call(ctx, "notes.list", "{}");
                            if (!(result instanceof Executed)) {
                                failures.add("not executed: " + result);
                                continue;
                            }
                            long n = written.getAndIncrement();
                            if (n < ids.length()) {
                                ids.set((int) n, result.callId());
                            }
                        } catch (RuntimeException e) {
                            failures.add("write: " + e);
                        }
                    }
                }, "h2-race-writer-" + t));
            }
            for (int t = 0; t < READERS; t++) {
                threads.add(new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (!stop.get()) {
                        long known = Math.min(written.get(), ids.length());
                        if (known == 0) {
                            Thread.onSpinWait();
                            continue;
                        }
                        // old rows (pages in chunks being moved) as often as new ones
                        int n = (int) (random.nextBoolean() ? random.nextLong(Math.max(1, known / 4)) : random.nextLong(known));
                        String id = ids.get(n);
                        if (id == null) {
                            continue; // written but its id not yet published
                        }
                        try {
                            if (store.calls().find(id).isEmpty()) {
                                failures.add("row " + n + " (" + id + ") not found");
                            }
                            reads.incrementAndGet();
                        } catch (RuntimeException e) {
                            failures.add("read: " + e);
                        }
                    }
                }, "h2-race-reader-" + t));
            }
            threads.forEach(Thread::start);
            H2Compaction compaction = store.compaction();
            // at least LOAD, then until the race was run (a slow machine takes longer to get there), at
            // most RACE_DEADLINE: the assertions below then say which part of it did not happen
            Thread.sleep(LOAD.toMillis());
            long deadline = System.nanoTime() + RACE_DEADLINE.minus(LOAD).toNanos();
            while (System.nanoTime() < deadline && failures.isEmpty() && !(written.get() > 30 && reads.get() > 30
                    && compaction.compactions() > 10 && compaction.moves() > 0)) {
                Thread.sleep(50);
            }
            stop.set(true);
            for (Thread thread : threads) {
                thread.join();
            }

            assertThat(failures).as("calls and reads while the file was compacted").isEmpty();
            // rounds this close together hold H2's store lock much of the time: few calls, each raced
            assertThat(written.get()).as("calls").isGreaterThan(30);
            assertThat(reads.get()).as("reads").isGreaterThan(30);
            assertThat(compaction.compactions()).as("rounds that rewrote or moved chunks meanwhile").isGreaterThan(10);
            assertThat(compaction.moves()).as("rounds that moved chunks or truncated the file meanwhile").isPositive();
            assertThat(host.gate().call(Hosts.ctx(Hosts.READER), "notes.list", "{}")).isInstanceOf(Executed.class);
        }
    }

    @Test
    void budgetedCallsSucceedOrAreRefusedWhileTheFileIsCompacted() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("budgeted").toAbsolutePath();
        int principals = 100;
        long seconds = Long.getLong("toolgate.h2-race-seconds", LOAD.toSeconds());
        // the store's own compaction settings (every 250 ms, 80%, retention time 0): the earlier one failed
        // at these, not at the 5-ms rounds of the test above
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(WRITERS + READERS + 2).build();
             Hosts host = Hosts.on(store, b -> b.budget(ToolBudget.perPrincipal(5, Duration.ofSeconds(1))))) {
            CallContext[] contexts = new CallContext[principals];
            for (int p = 0; p < principals; p++) {
                contexts[p] = CallContext.of(Principal.user("budget-" + p, Notes.READ))
                        .withTenant("acme").withSession("budget-" + p);
            }
            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            AtomicLong admitted = new AtomicLong();
            AtomicLong refused = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < WRITERS + 1; t++) {
                threads.add(new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (!stop.get()) {
                        try {
                            // half the calls by one principal: it is refused even on a machine too slow
                            // to call any of the others more than 5 times a second
                            int p = random.nextBoolean() ? 0 : random.nextInt(principals);
                            CallResult result = host.gate().call(contexts[p], "notes.list", "{}");
                            if (result instanceof Executed) {
                                admitted.incrementAndGet();
                            } else {
                                failures.add("not executed: " + result);
                            }
                        } catch (BudgetExceededException e) {
                            refused.incrementAndGet();
                        } catch (RuntimeException e) {
                            failures.add("call: " + e);
                        }
                    }
                }, "h2-race-budget-" + t));
            }
            threads.forEach(Thread::start);
            Thread.sleep(Duration.ofSeconds(seconds).toMillis());
            long deadline = System.nanoTime() + RACE_DEADLINE.toNanos();
            while (System.nanoTime() < deadline && failures.isEmpty() && !(admitted.get() > 30 && refused.get() > 0
                    && store.compaction().compactions() > 0)) {
                Thread.sleep(50);
            }
            stop.set(true);
            for (Thread thread : threads) {
                thread.join();
            }

            assertThat(failures).as("budgeted calls while the file was compacted").isEmpty();
            assertThat(admitted.get()).as("admitted calls").isGreaterThan(30);
            assertThat(refused.get()).as("calls the budget refused (its log rows written and deleted)").isPositive();
            assertThat(store.compaction().compactions()).as("rounds that rewrote or moved chunks meanwhile").isPositive();
        }
    }
}
