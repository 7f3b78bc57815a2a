package dev.toolgate.spi;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Ids in the order their records finished, at most {@code max}: adding one more hands the oldest
 * to the evictor. Lock-free; O(1) amortised per id.
 */
final class InMemoryFinishedLine {
    private final int max;
    private final ConcurrentLinkedQueue<String> ids = new ConcurrentLinkedQueue<>();
    /** Ids added and counted minus ids taken; never more than the queue holds. */
    private final AtomicInteger size = new AtomicInteger();

    InMemoryFinishedLine(int max) {
        this.max = max;
    }

    void add(String id, Consumer<String> evict) {
        ids.add(id);
        size.incrementAndGet();
        while (true) {
            int n = size.get();
            if (n <= max) {
                return;
            }
            if (size.compareAndSet(n, n - 1)) { // this thread takes exactly one id out
                String oldest = ids.poll();
                if (oldest != null) {
                    evict.accept(oldest);
                }
            }
        }
    }

    int size() {
        return size.get();
    }
}
