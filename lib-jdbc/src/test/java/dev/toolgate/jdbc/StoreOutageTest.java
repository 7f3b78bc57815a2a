package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.spi.StoreFault;
import dev.toolgate.spi.StoreUnavailableException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * An outage is begun once (one WARN) however many threads are refused at once, and ended once (one INFO);
 * a refusal just after the recovery is an aftershock, not a second outage.
 */
class StoreOutageTest {

    private static final StoreUnavailableException DOWN = new StoreUnavailableException("Toolgate store unavailable: x",
            null, StoreFault.UNREACHABLE, Duration.ofSeconds(2));

    @Test
    void manyRefusalsFromManyThreadsBeginOneOutageAndOneSuccessEndsIt() throws Exception {
        AtomicLong now = new AtomicLong();
        StoreOutage outage = new StoreOutage("test store", Duration.ofSeconds(2), now::get);
        int threads = 8;
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger began = new AtomicInteger();
        Thread[] workers = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            workers[i] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int j = 0; j < 1000; j++) {
                    if (outage.refused(DOWN)) {
                        began.incrementAndGet();
                    }
                }
            });
            workers[i].start();
        }
        go.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        assertThat(began).hasValue(1);
        assertThat(outage.outages()).isEqualTo(1);
        assertThat(outage.refusedTotal()).isEqualTo(threads * 1000L);
        assertThat(outage.isDown()).isTrue();

        now.set(Duration.ofSeconds(3).toNanos());
        outage.succeeded(outage.began());
        outage.succeeded(outage.began());
        assertThat(outage.isDown()).isFalse();

        now.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(outage.refused(DOWN)).as("a refusal just after the recovery is an aftershock").isFalse();
        assertThat(outage.aftershocks()).isEqualTo(1);
        assertThat(outage.isDown()).isFalse();
        assertThat(outage.outages()).isEqualTo(1);

        now.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(outage.refused(DOWN)).as("a later refusal begins a second outage").isTrue();
        assertThat(outage.outages()).isEqualTo(2);
    }

    @Test
    void aSuccessOfAnOperationBegunBeforeTheOutageDoesNotEndIt() {
        AtomicLong now = new AtomicLong();
        StoreOutage outage = new StoreOutage("test store", Duration.ofSeconds(2), now::get);
        long before = outage.began(); // a statement on a connection the database closes last
        assertThat(outage.refused(DOWN)).isTrue();
        now.addAndGet(Duration.ofMillis(5).toNanos());
        outage.succeeded(before);
        assertThat(outage.isDown()).as("still down: that statement began before the first refusal").isTrue();
        now.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(outage.refused(DOWN)).as("the same outage, no second WARN").isFalse();
        assertThat(outage.outages()).isEqualTo(1);
        long after = outage.began();
        outage.succeeded(after);
        assertThat(outage.isDown()).as("an operation begun during the outage ends it").isFalse();
    }
}
