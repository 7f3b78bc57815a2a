package dev.toolgate.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The system clock, moved forward by a test so that an outcome falls due, or a quiet period and a grace
 * pass, without a long sleep. It keeps running: a store's own timers see time go on.
 */
final class ShiftedClock extends Clock {

    private final AtomicReference<Duration> shift = new AtomicReference<>(Duration.ZERO);

    void shift(Duration by) {
        shift.updateAndGet(d -> d.plus(by));
    }

    @Override
    public Instant instant() {
        return Instant.now().plus(shift.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
