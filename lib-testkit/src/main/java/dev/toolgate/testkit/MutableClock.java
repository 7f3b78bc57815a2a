package dev.toolgate.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock tests move by hand. Thread-safe. Starts on a whole second and moves in whole milliseconds
 * so every store (including databases with microsecond timestamps) records exactly the same instants.
 */
public final class MutableClock extends Clock {

    private final AtomicReference<Instant> now;

    public MutableClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    public MutableClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    /** Moves time forward (back, if {@code by} is negative: a clock stepped back). */
    public void advance(Duration by) {
        now.updateAndGet(t -> t.plus(by));
    }

    @Override
    public Instant instant() {
        return now.get();
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
