package dev.toolgate.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FirstSeenTest {

    @Test
    void aKeyIsFirstOnceAndEachPartMatters() {
        FirstSeen seen = new FirstSeen(100);
        assertThat(seen.first("acme", "mcp:ops.restart", "fp-2")).isTrue();
        assertThat(seen.first("acme", "mcp:ops.restart", "fp-2")).isFalse();
        assertThat(seen.first("acme", "mcp:ops.restart", "fp-2")).isFalse();
        assertThat(seen.first("globex", "mcp:ops.restart", "fp-2")).as("another tenant").isTrue();
        assertThat(seen.first("acme", "mcp:ops.restart", "fp-3")).as("the schema drifted again").isTrue();
        assertThat(seen.first("acme", "mcp:ops.purge", "fp-2")).as("another tool").isTrue();
        // parts are kept apart: no joining of "a" + "bc" into "ab" + "c"
        assertThat(seen.first("a", "bc", null)).isTrue();
        assertThat(seen.first("ab", "c", null)).isTrue();
        assertThat(seen.first("a", "bc", null)).isFalse();
    }

    @Test
    void itForgetsEverythingAtItsCapacitySoItStaysBounded() {
        FirstSeen seen = new FirstSeen(3);
        assertThat(seen.first("k1")).isTrue();
        assertThat(seen.first("k2")).isTrue();
        assertThat(seen.first("k3")).isTrue();
        assertThat(seen.first("k1")).as("still remembered below the capacity").isFalse();
        assertThat(seen.first("k4")).as("full: forgets, then remembers k4").isTrue();
        assertThat(seen.first("k1")).as("forgotten once, said once more").isTrue();
        assertThat(seen.first("k1")).isFalse();
        assertThatThrownBy(() -> new FirstSeen(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
    }

    @Test
    void threadsRacingOnANewKeyGetOneFirst() throws Exception {
        FirstSeen seen = new FirstSeen(10_000);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 200; round++) {
                String key = "tool-" + round;
                CountDownLatch go = new CountDownLatch(1);
                AtomicInteger firsts = new AtomicInteger();
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    done.add(pool.submit(() -> {
                        go.await();
                        if (seen.first("acme", key)) {
                            firsts.incrementAndGet();
                        }
                        return null;
                    }));
                }
                go.countDown();
                for (Future<?> f : done) {
                    f.get(10, TimeUnit.SECONDS);
                }
                assertThat(firsts.get()).as("round %d", round).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
