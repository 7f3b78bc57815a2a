package dev.toolgate.gate;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs tool code (dry-runs and executions) with a timeout on the gate's own daemon threads. A
 * timed-out tool is interrupted; code that ignores interruption keeps its thread until it returns,
 * but the caller is answered at the timeout.
 */
final class ToolRunner implements AutoCloseable {

    /** Thrown when tool code exceeds its timeout. */
    static final class Timeout extends Exception {
        private static final long serialVersionUID = 1L;

        Timeout(Duration limit) {
            super("timed out after " + describe(limit));
        }
    }

    private final ExecutorService executor;

    ToolRunner() {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory threads = task -> {
            Thread thread = new Thread(task, "toolgate-tool-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        this.executor = Executors.newCachedThreadPool(threads);
    }

    /** Runs {@code work}, rethrowing what it throws, or {@link Timeout} past {@code limit}. */
    <T> T run(Callable<T> work, Duration limit) throws Exception {
        Future<T> future = executor.submit(work);
        try {
            return future.get(limit.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new Timeout(limit);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw e;
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    static String describe(Duration d) {
        long millis = d.toMillis();
        return millis % 1000 == 0 ? (millis / 1000) + " s" : millis + " ms";
    }
}
