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
 * Runs tool code (dry-runs, executions, reverts) with a timeout. By default
 * ({@link dev.toolgate.tool.Tool#onCallerThread()}) on the calling thread: {@link Deadlines} interrupts
 * it at the deadline, and the call then fails with the timeout once the tool returns; the interrupt is
 * cleared before that. A tool that asked to be handed off runs on the gate's own daemon threads, at
 * the cost of two thread wake-ups: a timed-out tool is interrupted; code that ignores interruption
 * keeps its thread until it returns, but the caller is answered at the timeout.
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
    private final Deadlines deadlines = new Deadlines("toolgate-tool-deadlines");

    ToolRunner() {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory threads = task -> {
            Thread thread = new Thread(task, "toolgate-tool-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        this.executor = Executors.newCachedThreadPool(threads);
    }

    /**
     * Runs {@code work}, on the calling thread if {@code onCallerThread}, rethrowing what it throws,
     * or {@link Timeout} past {@code limit}.
     */
    <T> T run(Callable<T> work, Duration limit, boolean onCallerThread) throws Exception {
        return onCallerThread ? runHere(work, limit) : run(work, limit);
    }

    /** Runs {@code work} on a thread of the gate, rethrowing what it throws, or {@link Timeout} past {@code limit}. */
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

    /**
     * Runs {@code work} on this thread, interrupted at the deadline. An interrupt already pending
     * fails the call before the tool starts, as waiting for a tool thread would; the deadline's
     * interrupt is cleared before {@link Timeout} is thrown.
     */
    private <T> T runHere(Callable<T> work, Duration limit) throws Exception {
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedException("interrupted before the tool started");
        }
        Deadlines.Watch watch = deadlines.watch(limit);
        T result = null;
        Throwable failure = null;
        try {
            result = work.call();
        } catch (Throwable e) {
            failure = e;
        }
        if (deadlines.release(watch)) {
            Thread.interrupted();
            throw new Timeout(limit);
        }
        if (failure instanceof Exception exception) {
            throw exception;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
        return result;
    }

    /** Open deadlines of tools running on their callers' threads (tests). */
    int openDeadlines() {
        return deadlines.open();
    }

    @Override
    public void close() {
        executor.shutdownNow();
        deadlines.close();
    }

    static String describe(Duration d) {
        long millis = d.toMillis();
        return millis % 1000 == 0 ? (millis / 1000) + " s" : millis + " ms";
    }
}
