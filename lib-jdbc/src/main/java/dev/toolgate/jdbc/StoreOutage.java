package dev.toolgate.jdbc;

import dev.toolgate.spi.StoreUnavailableException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator reads of a store outage: one WARN when the store becomes unavailable (what failed,
 * no stack trace), one INFO when a statement succeeds again (how long it lasted, how many operations
 * were refused), and each refusal in between at DEBUG. Cheap on the success path: one volatile read.
 *
 * <p>A refusal within the settling time after a recovery (the connection timeout and a second: a caller
 * that was still waiting for a connection when the database came back) is an aftershock of the same
 * outage: logged at DEBUG and counted, without a second WARN.
 */
final class StoreOutage {

    private static final Logger LOG = LoggerFactory.getLogger(StoreOutage.class);

    /** An outage in progress: when it began (monotonic nanos) and what was refused since. */
    private static final class Down {
        final long since;
        final AtomicLong refused = new AtomicLong();

        Down(long since) {
            this.since = since;
        }
    }

    private final String store;
    private final LongSupplier nanos;
    private final long settleNanos;
    private volatile long endedAt = Long.MIN_VALUE;
    private final AtomicLong aftershocks = new AtomicLong();
    private final AtomicReference<Down> down = new AtomicReference<>();
    private final AtomicLong outages = new AtomicLong();
    private final AtomicLong refusedTotal = new AtomicLong();

    StoreOutage(String store, Duration settle) {
        this(store, settle, System::nanoTime);
    }

    StoreOutage(String store, Duration settle, LongSupplier nanos) {
        this.store = store;
        this.settleNanos = settle.toNanos();
        this.nanos = nanos;
    }

    /**
     * Notes a refusal: the first of an outage is logged as a WARN, the rest at DEBUG.
     *
     * @return true if this refusal began an outage
     */
    boolean refused(StoreUnavailableException e) {
        refusedTotal.incrementAndGet();
        Down current = down.get();
        if (current == null && endedAt != Long.MIN_VALUE && nanos.getAsLong() - endedAt < settleNanos) {
            aftershocks.incrementAndGet();
            if (LOG.isDebugEnabled()) {
                LOG.debug("{} refused an operation just after it was back ({}): {}", store, e.fault(), e.getMessage());
            }
            return false;
        }
        if (current == null) {
            Down started = new Down(nanos.getAsLong());
            if (down.compareAndSet(null, started)) {
                started.refused.incrementAndGet();
                outages.incrementAndGet();
                LOG.warn("{} is unavailable ({}: {}); calls that need it are refused{} until it is back",
                        store, e.fault(), e.getMessage(),
                        e.retryable() ? " with 'retry after " + e.retryAfterSeconds() + " s'" : "");
                return true;
            }
            current = down.get();
        }
        if (current != null) {
            current.refused.incrementAndGet();
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} refused an operation ({}): {}", store, e.fault(), e.getMessage());
        }
        return false;
    }

    /**
     * What an operation notes when it begins, for {@link #succeeded(long)}: the number of outages begun so
     * far (one volatile read).
     */
    long began() {
        return outages.get();
    }

    /**
     * Notes a success of an operation that began when {@link #began()} said {@code began}: ends an outage in
     * progress with one INFO, if the operation began after the outage did. One that began before (a
     * statement on a connection the database had not yet closed, while a fast shutdown closes them one by
     * one) says nothing of the database now: counting it ended an outage 0 ms after its first refusal and
     * began another one a second later, two WARNs for one stop.
     */
    void succeeded(long began) {
        Down current = down.get();
        if (current != null && began == outages.get() && down.compareAndSet(current, null)) {
            long now = nanos.getAsLong();
            endedAt = now;
            Duration lasted = Duration.ofNanos(now - current.since);
            LOG.info("{} is back after {} ms; {} operation(s) were refused meanwhile", store, lasted.toMillis(),
                    current.refused.get());
        }
    }

    /** True while an outage is in progress (no success since its first refusal). */
    boolean isDown() {
        return down.get() != null;
    }

    /** Outages begun since the store opened. */
    long outages() {
        return outages.get();
    }

    /** Refusals counted as aftershocks of an outage that had just ended. */
    long aftershocks() {
        return aftershocks.get();
    }

    /** Operations refused as unavailable since the store opened. */
    long refusedTotal() {
        return refusedTotal.get();
    }
}
