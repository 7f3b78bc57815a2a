package dev.toolgate.codemode;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads scripts run on, and what stops one that overstays. A script runs on a thread of its
 * own while its caller waits at most its time limit and a grace period; at the limit the context is
 * cancelled (asynchronously: closing a context waits for it to stop). GraalJS cannot always cancel:
 * a script that catches its own stack overflow and recurses again from the handler swallows the
 * cancellation and the statement limit alike. Such a thread is then stopped (Thread.stop, on the JDKs
 * that still have it, at a moment it is not inside a tool call); where the JDK cannot stop threads it
 * is counted as stuck, and once {@value #MAX_STUCK} are stuck the sandbox takes no more scripts (fail
 * closed) until they end.
 */
final class ScriptThreads implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ScriptThreads.class);
    /** How long past its limit a script gets to stop once cancelled, before its thread is stopped. */
    static final Duration GRACE = Duration.ofSeconds(1);
    /**
     * How long a script that was stopped (a pause, a refusal) gets to end once cancelled, before it is
     * abandoned and its thread stopped: its run's outcome no longer depends on it, so its caller does
     * not wait out the time limit for a script that swallows its cancellation.
     */
    static final Duration STOP_GRACE = Duration.ofMillis(500);
    /** Scripts that could not be stopped, past which the sandbox refuses new ones. */
    static final int MAX_STUCK = 4;
    private static final int REAP_ATTEMPTS = 100;
    private static final Duration REAP_PAUSE = Duration.ofMillis(50);

    /** One script's run, as the threads see it. */
    interface Script<T> extends Callable<T> {
        /** Cancels the script's context without waiting (called at the time limit). */
        void cancel();

        /** Makes sure the script calls nothing more (waits for a tool call in flight to end). */
        void abandon();

        /** Stops {@code thread} at a moment it is not inside a tool call; false if this JDK cannot. */
        boolean kill(Thread thread);

        /**
         * Completes when the script's run is over whatever the script does next (its caller's stop
         * signal arrived and the script was cancelled): the caller then waits {@link #STOP_GRACE} at most.
         */
        default CompletableFuture<?> stopped() {
            return new CompletableFuture<>();
        }
    }

    /** What became of a script the threads ran. */
    sealed interface Outcome<T> {
        /** It ended by itself (or when cancelled) with this value. */
        record Ended<T>(T value) implements Outcome<T> {
        }

        /** It overstayed its limit and was abandoned. */
        record Overstayed<T>() implements Outcome<T> {
        }
    }

    private final ExecutorService scripts = Executors.newCachedThreadPool(daemons("toolgate-codemode-script-"));
    private final ExecutorService closers = Executors.newCachedThreadPool(daemons("toolgate-codemode-closer-"));
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(daemons("toolgate-codemode-timer-"));
    private final AtomicInteger stuck = new AtomicInteger();

    /** How many scripts could not be stopped and still run. */
    int stuck() {
        return stuck.get();
    }

    /**
     * Runs {@code script} on a script thread, cancelled at {@code limit}, abandoned a grace period later;
     * or, once its {@linkplain Script#stopped() stop} completes, abandoned if it has not ended
     * {@link #STOP_GRACE} later (it was cancelled when stopped), whatever time it had left.
     */
    <T> Outcome<T> run(Script<T> script, Duration limit) {
        Thread[] thread = new Thread[1];
        boolean[] counted = new boolean[1];
        CompletableFuture<T> done = new CompletableFuture<>();
        scripts.execute(() -> {
            synchronized (thread) {
                thread[0] = Thread.currentThread();
            }
            try {
                done.complete(script.call());
            } catch (Throwable t) { // the script's own failure, or the stop of a thread that overstayed
                done.completeExceptionally(t);
            } finally {
                synchronized (thread) {
                    thread[0] = null;
                    if (counted[0]) {
                        stuck.decrementAndGet();
                    }
                }
            }
        });
        ScheduledFuture<?> deadline = timer.schedule(() -> closers.execute(script::cancel), limit.toNanos(), TimeUnit.NANOSECONDS);
        try {
            CompletableFuture.anyOf(done, script.stopped()).get(limit.plus(GRACE).toNanos(), TimeUnit.NANOSECONDS);
            return new Outcome.Ended<>(done.get(STOP_GRACE.toNanos(), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            Thread running;
            synchronized (thread) {
                running = thread[0];
            }
            script.abandon();
            if (running != null) {
                closers.execute(() -> reap(script, running, thread, counted));
            }
            return new Outcome.Overstayed<>();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closers.execute(script::cancel);
            return new Outcome.Overstayed<>();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        } finally {
            deadline.cancel(false);
        }
    }

    /**
     * Stops a script's thread that did not stop when cancelled: again and again, because the script
     * may swallow a stop as it swallowed the cancellation (a stop that lands while the stack is full
     * becomes a catchable stack overflow). Counts it as stuck if it cannot be stopped.
     */
    private void reap(Script<?> script, Thread running, Thread[] thread, boolean[] counted) {
        for (int attempt = 0; attempt < REAP_ATTEMPTS; attempt++) {
            synchronized (thread) {
                if (thread[0] != running) {
                    return; // it ended
                }
            }
            if (attempt == 0) {
                LOG.warn("A codemode script did not stop when cancelled; stopping its thread {}", running.getName());
            }
            if (!script.kill(running)) {
                break;
            }
            try {
                Thread.sleep(REAP_PAUSE.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        synchronized (thread) {
            if (thread[0] == running && !counted[0]) {
                counted[0] = true;
                LOG.error("A codemode script could not be stopped; its thread {} keeps running ({} such)", running.getName(),
                        stuck.incrementAndGet());
            }
        }
    }

    /** Runs {@code task} soon on another thread (closing a context waits for it to stop). */
    void later(Runnable task) {
        closers.execute(task);
    }

    /** Stops {@code thread} if this JDK still can (Thread.stop is gone from JDK 20 on). */
    @SuppressWarnings({"deprecation", "removal"})
    static boolean stop(Thread thread) {
        try {
            thread.stop();
            return true;
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        scripts.shutdownNow();
        closers.shutdown();
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
