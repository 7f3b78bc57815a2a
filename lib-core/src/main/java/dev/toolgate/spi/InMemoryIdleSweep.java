package dev.toolgate.spi;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;

/**
 * When to sweep a map of per-client rows for rows with nothing to keep: once it holds more than
 * {@link InMemoryStore#IDLE_ROWS} and twice what the last sweep left, so sweeping costs O(1) amortised per row
 * added. One sweep at a time.
 */
final class InMemoryIdleSweep {
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private volatile int sweepAbove = InMemoryStore.IDLE_ROWS;

    /** Runs {@code sweep} (which returns the rows left) if {@code size} calls for it. */
    void check(int size, IntSupplier sweep) {
        if (size <= sweepAbove || !sweeping.compareAndSet(false, true)) {
            return;
        }
        try {
            int left = sweep.getAsInt();
            sweepAbove = Math.max(InMemoryStore.IDLE_ROWS, left > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE : 2 * left);
        } finally {
            sweeping.set(false);
        }
    }
}
