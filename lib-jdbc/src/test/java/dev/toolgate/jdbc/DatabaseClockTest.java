package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The estimate of the database clock that finished calls' rows are stamped with. */
class DatabaseClockTest {

    private static final Instant T0 = Instant.parse("2026-11-28T12:00:00Z");

    /** This machine's wall clock and monotonic clock, moved by hand; the database's runs {@code skew} ahead. */
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final AtomicReference<Instant> local = new AtomicReference<>(T0);
    private final AtomicReference<Duration> skew = new AtomicReference<>(Duration.ofHours(1));
    private final AtomicInteger reads = new AtomicInteger();
    /** How long a reading of the database clock takes, on this machine's clocks. */
    private volatile Duration roundTrip = Duration.ZERO;

    private Instant database() {
        reads.incrementAndGet();
        Duration half = roundTrip.dividedBy(2);
        advance(half); // the request travels
        Instant at = local.get().plus(skew.get());
        advance(half); // the answer travels back
        return at;
    }

    private void advance(Duration d) {
        local.updateAndGet(i -> i.plus(d));
        nanos.addAndGet(d.toNanos());
    }

    private DatabaseClock clock() {
        return new DatabaseClock(null, this::database, local::get, nanos::get);
    }

    @Test
    void estimatesTheDatabaseClockNotThisMachines() {
        DatabaseClock clock = clock();

        assertThat(clock.now()).isEqualTo(T0.plus(Duration.ofHours(1)));
        advance(Duration.ofMillis(300));
        assertThat(clock.now()).isEqualTo(T0.plus(Duration.ofHours(1)).plusMillis(300));
        assertThat(clock.offset()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void takesTheMidpointOfTheRoundTripAsTheMomentTheDatabaseReadItsClock() {
        roundTrip = Duration.ofMillis(40);
        DatabaseClock clock = clock();

        Instant estimate = clock.now();

        // the database read its clock 20 ms into the reading; the estimate is taken 40 ms in
        assertThat(estimate).isEqualTo(local.get().plus(skew.get()));
        assertThat(clock.offset()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void readsTheDatabaseClockAtMostOnceASecond() {
        DatabaseClock clock = clock();
        clock.now();
        assertThat(reads).hasValue(1);

        skew.set(Duration.ofHours(2)); // the database clock jumps; the estimate follows at the next reading
        advance(Duration.ofMillis(999));
        assertThat(clock.now()).isEqualTo(local.get().plus(Duration.ofHours(1)));
        assertThat(reads).hasValue(1);

        advance(Duration.ofMillis(1));
        assertThat(clock.now()).isEqualTo(local.get().plus(Duration.ofHours(2)));
        assertThat(reads).hasValue(2);
    }

    @Test
    void neverGoesBackwardsWhenTheOffsetShrinks() {
        DatabaseClock clock = clock();
        Instant first = clock.now();

        skew.set(Duration.ofHours(1).minusSeconds(5)); // the database clock is stepped back 5 s
        advance(Duration.ofSeconds(1));
        Instant second = clock.now();
        assertThat(second).isEqualTo(first);
        advance(Duration.ofSeconds(10));
        assertThat(clock.now()).isEqualTo(local.get().plus(skew.get())).isAfter(second);
    }

    @Test
    void hasTheDatabasesMicrosecondPrecision() {
        local.set(T0.plusNanos(123_456_789));
        DatabaseClock clock = clock();

        assertThat(clock.now()).isEqualTo(T0.plus(Duration.ofHours(1)).plusNanos(123_456_000));
        Clock injected = Clock.fixed(T0.plusNanos(987_654_321), ZoneOffset.UTC);
        assertThat(new DatabaseClock(injected, this::database).now()).isEqualTo(T0.plusNanos(987_654_000));
    }

    @Test
    void anInjectedClockIsTheEstimateAndTheDatabaseIsNeverRead() {
        Clock injected = Clock.fixed(T0, ZoneOffset.UTC);
        DatabaseClock clock = new DatabaseClock(injected, this::database, local::get, nanos::get);

        assertThat(clock.now()).isEqualTo(T0);
        clock.refreshIfStale();
        assertThat(reads).hasValue(0);
    }

    @Test
    void aFailedReadingKeepsTheLastOffsetAndIsTriedAgainASecondLater() {
        AtomicInteger failures = new AtomicInteger();
        DatabaseClock clock = new DatabaseClock(null, () -> {
            if (failures.get() > 0) {
                failures.decrementAndGet();
                throw new IllegalStateException("database unreachable");
            }
            return database();
        }, local::get, nanos::get);
        assertThat(clock.now()).isEqualTo(local.get().plus(Duration.ofHours(1)));

        advance(Duration.ofSeconds(2));
        skew.set(Duration.ofHours(3));
        failures.set(1);
        assertThat(clock.now()).as("the last offset").isEqualTo(local.get().plus(Duration.ofHours(1)));
        int attempts = reads.get();
        advance(Duration.ofMillis(999));
        assertThat(clock.now()).as("no second attempt within the second").isEqualTo(local.get().plus(Duration.ofHours(1)));
        assertThat(reads).hasValue(attempts);
        advance(Duration.ofMillis(1));
        assertThat(clock.now()).as("read again a second later").isEqualTo(local.get().plus(Duration.ofHours(3)));
    }

    @Test
    void threadsFindingItStaleTogetherReadTheDatabaseClockOnce() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        DatabaseClock clock = new DatabaseClock(null, () -> {
            most.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
            try {
                inside.countDown();
                release.await(10, TimeUnit.SECONDS);
                return database();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                concurrent.decrementAndGet();
            }
        }, local::get, nanos::get);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            Future<Instant> reader = pool.submit(clock::now);
            assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
            List<Future<Instant>> others = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                others.add(pool.submit(clock::now)); // do not wait for the reading: the old (no) offset
            }
            for (Future<Instant> other : others) {
                assertThat(other.get(10, TimeUnit.SECONDS)).isBefore(T0.plus(Duration.ofMinutes(1)));
            }
            release.countDown();
            assertThat(reader.get(10, TimeUnit.SECONDS)).isAfterOrEqualTo(T0.plus(Duration.ofHours(1)));
            assertThat(reads).hasValue(1);
            assertThat(most).hasValue(1);
        } finally {
            pool.shutdownNow();
        }
    }
}
