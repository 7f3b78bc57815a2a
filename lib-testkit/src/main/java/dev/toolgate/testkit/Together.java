package dev.toolgate.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs work on several real threads released at the same instant, for the concurrency tests. */
public final class Together {

    /** The work of one thread, given its index. */
    @FunctionalInterface
    public interface Task<T> {
        T run(int thread) throws Exception;
    }

    private Together() {
    }

    /**
     * Starts {@code threads} threads, releases them at once, waits for all (at most a minute), and
     * returns their results in thread order; a failure in any thread (an assertion too) is rethrown.
     */
    public static <T> List<T> run(int threads, Task<T> task) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    return task.run(thread);
                }));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
