package dev.toolgate.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The database's clock as this instance estimates it, for the timestamps of rows whose time only
 * records when something happened (a finished call's {@code created_at} and {@code completed_at}):
 * this machine's clock corrected by the database clock's offset, read in one round trip at most once
 * a second (the midpoint of the round trip is taken as the moment the database read its clock, so the
 * estimate is within half a round trip of the database's clock, plus what the two clocks drift apart
 * in a second). Writing such a time as a bound value instead of the database's {@code
 * CURRENT_TIMESTAMP} lets the insert run without {@code RETURNING}: measured on PostgreSQL, reading
 * the two timestamps back cost 12 to 14 µs of a governed call's 130.
 *
 * <p>Times that decide something (a token's expiry, a budget window, an outcome's deadline) never
 * come from here: those statements read the database's clock themselves. With an injected
 * {@link Clock} the estimate is that clock.
 *
 * <p>Estimates never go backwards on one instance (a refreshed offset that is smaller does not move
 * the next time before the last one issued) and have microsecond precision, the databases'.
 */
final class DatabaseClock {

    /** How often the database clock is read again, at most. */
    static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseClock.class);

    private final Clock injected;
    private final Supplier<Instant> database;
    private final Supplier<Instant> local;
    private final LongSupplier nanoTime;
    private final AtomicBoolean reading = new AtomicBoolean();
    /** The last estimate issued, in microseconds since the epoch. */
    private final AtomicLong lastMicros = new AtomicLong(Long.MIN_VALUE);
    /** The database clock minus this machine's, in nanoseconds. */
    private volatile long offsetNanos;
    /** When the offset was last read or a reading failed ({@link System#nanoTime}). */
    private volatile long readAt;
    /** Whether {@link #readAt} is set. */
    private volatile boolean read;

    /**
     * @param injected the host's clock, or null to estimate {@code database}
     * @param database reads the database's clock (one round trip)
     */
    DatabaseClock(Clock injected, Supplier<Instant> database) {
        this(injected, database, Instant::now, System::nanoTime);
    }

    /** For tests: the local wall clock and the monotonic clock given too. */
    DatabaseClock(Clock injected, Supplier<Instant> database, Supplier<Instant> local, LongSupplier nanoTime) {
        this.injected = injected;
        this.database = database;
        this.local = local;
        this.nanoTime = nanoTime;
    }

    /**
     * The estimated database time now, to the microsecond; reads the database clock first (on this
     * thread) when the last reading is older than {@link #REFRESH_NANOS} and no other thread is reading it.
     */
    Instant now() {
        if (injected != null) {
            return injected.instant().truncatedTo(ChronoUnit.MICROS);
        }
        refreshIfStale();
        Instant estimate = local.get().plusNanos(offsetNanos);
        long micros = ChronoUnit.MICROS.between(Instant.EPOCH, estimate);
        long issued = lastMicros.accumulateAndGet(micros, Math::max);
        return Instant.EPOCH.plus(issued, ChronoUnit.MICROS);
    }

    /**
     * Reads the database clock if the last reading (or attempt) is older than {@link #REFRESH_NANOS},
     * or there is none, and no other thread is reading it. A failed reading keeps the last offset (the
     * statement that needed the time fails on its own if the database is unreachable) and is tried
     * again a second later, like a successful one: while the database is away, a caller waits for a
     * connection once, for its own statement, not twice.
     */
    void refreshIfStale() {
        if (injected != null || (read && nanoTime.getAsLong() - readAt < REFRESH_NANOS)) {
            return;
        }
        if (!reading.compareAndSet(false, true)) {
            return;
        }
        try {
            if (read && nanoTime.getAsLong() - readAt < REFRESH_NANOS) {
                return;
            }
            Instant before = local.get();
            Instant at = database.get();
            Instant after = local.get();
            Instant midpoint = before.plus(Duration.between(before, after).dividedBy(2));
            offsetNanos = Duration.between(midpoint, at).toNanos();
            readAt = nanoTime.getAsLong();
            read = true;
        } catch (RuntimeException e) {
            readAt = nanoTime.getAsLong();
            read = true;
            LOG.debug("Could not read the database clock; keeping the last offset", e);
        } finally {
            reading.set(false);
        }
    }

    /** The database clock minus this machine's, as last read (0 before the first reading). */
    Duration offset() {
        return Duration.ofNanos(offsetNanos);
    }
}
