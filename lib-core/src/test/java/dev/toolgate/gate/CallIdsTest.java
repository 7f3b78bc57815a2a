package dev.toolgate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class CallIdsTest {

    @Test
    void anIdIsAVersion7UuidStampedWithTheTimeItWasMade() {
        long before = System.currentTimeMillis();
        UUID id = UUID.fromString(CallIds.next());
        long after = System.currentTimeMillis();

        assertThat(id.version()).isEqualTo(7);
        assertThat(id.variant()).isEqualTo(2);
        long stamp = id.getMostSignificantBits() >>> 16;
        // a later millisecond only if more than 4,096 ids were made in one (not here)
        assertThat(stamp).isBetween(before, after + 1);
        assertThat(CallIds.next()).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    }

    @Test
    void idsSortAsTextInTheOrderTheyWereMadeEvenWithinOneMillisecondAndWhenTheClockGoesBack() {
        long now = System.currentTimeMillis() + 60_000; // ahead of every id made so far by this JVM
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            made.add(CallIds.nextUuid(now).toString()); // one millisecond: more than its 4,096 sequence numbers
        }
        for (int i = 0; i < 100; i++) {
            made.add(CallIds.nextUuid(now - 5_000).toString()); // the clock stepped back 5 s
        }
        made.add(CallIds.nextUuid(now + 10_000).toString());

        for (int i = 1; i < made.size(); i++) {
            assertThat(made.get(i)).as("id %d against the one before", i).isGreaterThan(made.get(i - 1));
        }
        UUID last = UUID.fromString(made.get(made.size() - 1));
        assertThat(last.getMostSignificantBits() >>> 16).isEqualTo(now + 10_000);
        assertThat(last.getMostSignificantBits() & 0xFFF).as("a new millisecond restarts the sequence").isZero();
    }

    @Test
    void threadsMakingIdsAtOnceNeverGetTheSameOneAndEachSeesItsOwnInOrder() throws Exception {
        int threads = 4;
        int each = 50_000;
        ConcurrentLinkedQueue<String> all = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> outOfOrder = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                String previous = "";
                for (int i = 0; i < each; i++) {
                    String id = CallIds.next();
                    if (id.compareTo(previous) <= 0) {
                        outOfOrder.add(previous + " then " + id);
                    }
                    previous = id;
                    all.add(id);
                }
            });
            worker.start();
            workers.add(worker);
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }

        assertThat(outOfOrder).isEmpty();
        assertThat(all).hasSize(threads * each);
        Set<String> distinct = new HashSet<>(all);
        assertThat(distinct).hasSize(threads * each);
        // the 62 random bits differ: no two ids share them (a fixed or reused random part would)
        Set<Long> randomParts = new HashSet<>();
        for (String id : all) {
            randomParts.add(UUID.fromString(id).getLeastSignificantBits());
        }
        assertThat(randomParts).hasSize(threads * each);
    }

    @Test
    void theRandomPartIsSplitMix64AsTheJdkComputesIt() {
        // SplittableRandom's nextLong is SplitMix64: its seed advanced by the golden gamma, then mixed
        for (long seed : new long[] {0L, 1L, -1L, 1_234_567L, Long.MIN_VALUE, 0x0123_4567_89AB_CDEFL}) {
            assertThat(CallIds.mix(seed + 0x9E37_79B9_7F4A_7C15L)).as("seed %d", seed)
                    .isEqualTo(new java.util.SplittableRandom(seed).nextLong());
        }
        // consecutive counters give unrelated bits: about half of them differ, as random bits would
        long a = CallIds.mix(41L);
        long b = CallIds.mix(42L);
        assertThat(Long.bitCount(a ^ b)).isBetween(16, 48);
    }
}
