package dev.toolgate.mcp;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Interrupts threads blocked on a client for too long. The JDK server reads a request's line,
 * headers and body with blocking {@code SocketChannel} reads on a worker thread; such channels are
 * {@link java.nio.channels.InterruptibleChannel}s, so interrupting the thread closes the connection
 * and frees the thread ({@code ClosedByInterruptException}). A {@link Watch} covers one thread for
 * one stretch of waiting: armed with a deadline, suspended while the thread runs the host's code
 * (the authenticator), disarmed once the request has arrived. Works per server, unlike the JDK's
 * JVM-wide {@code sun.net.httpserver.maxReqTime}, which a library must not set.
 *
 * <p>A fired watch stays fired: whoever ends the watch learns it (a false return) and must treat
 * the connection as gone; the thread's interrupt status is cleared by {@link Watch#end()}, so a
 * pooled thread never carries an interrupt into its next task.
 */
final class HttpWatchdog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    private static final ThreadLocal<Watch> CURRENT = new ThreadLocal<>();

    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer;

    HttpWatchdog(Duration timeout, ThreadFactory threads) {
        this.timer = Executors.newSingleThreadScheduledExecutor(threads);
        long tick = Math.max(10, Math.min(250, timeout.toMillis() / 10));
        timer.scheduleWithFixedDelay(this::tick, tick, tick, TimeUnit.MILLISECONDS);
    }

    /** Arms a watch over the current thread, firing at {@code deadline} ({@link System#nanoTime()} based). */
    Watch arm(long deadline) {
        Watch watch = new Watch(this, Thread.currentThread(), deadline);
        watches.add(watch);
        CURRENT.set(watch);
        return watch;
    }

    /** The watch over the current thread, or null. */
    static Watch current() {
        return CURRENT.get();
    }

    /**
     * Runs one blocking write under a watch of {@code timeout}: a client that does not take the bytes
     * in time loses the connection ({@link InterruptedIOException}).
     */
    void guard(Duration timeout, IoAction write) throws IOException {
        Watch outer = CURRENT.get();
        Watch watch = arm(System.nanoTime() + timeout.toNanos());
        boolean completed = false;
        try {
            write.run();
            completed = true;
        } finally {
            boolean intact = watch.end();
            if (outer != null) {
                CURRENT.set(outer);
            }
            if (completed && !intact) {
                throw new InterruptedIOException("the client took no data for " + timeout.toMillis() + " ms");
            }
        }
    }

    /** A blocking write. */
    @FunctionalInterface
    interface IoAction {
        void run() throws IOException;
    }

    private void tick() {
        long now = System.nanoTime();
        for (Watch watch : watches) {
            if (watch.fireIfDue(now)) {
                watches.remove(watch);
                LOG.debug("Interrupted {}: the client sent or took nothing in time", watch.thread.getName());
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        watches.clear();
    }

    /** One thread waiting on one client. All state changes happen under the watch's lock. */
    static final class Watch {

        private static final int ARMED = 0;
        private static final int SUSPENDED = 1;
        private static final int DISARMED = 2;
        private static final int FIRED = 3;

        private final HttpWatchdog owner;
        private final Thread thread;
        private long deadline;
        private long suspendedAt;
        private int state = ARMED;

        private Watch(HttpWatchdog owner, Thread thread, long deadline) {
            this.owner = owner;
            this.thread = thread;
            this.deadline = deadline;
        }

        private synchronized boolean fireIfDue(long now) {
            if (state == ARMED && now - deadline >= 0) {
                state = FIRED;
                thread.interrupt();
                return true;
            }
            return false;
        }

        /** Stops the clock while the thread runs code that does not wait on the client. */
        synchronized void suspend() {
            if (state == ARMED) {
                state = SUSPENDED;
                suspendedAt = System.nanoTime();
            }
        }

        /** Restarts the clock, moving the deadline by the time spent suspended; false if the watch fired. */
        synchronized boolean resume() {
            if (state == SUSPENDED) {
                deadline += System.nanoTime() - suspendedAt;
                state = ARMED;
            }
            return state != FIRED;
        }

        /** The request has arrived: the watch no longer fires. False if it already fired. */
        boolean disarm() {
            synchronized (this) {
                if (state == FIRED) {
                    return false;
                }
                state = DISARMED;
            }
            owner.watches.remove(this);
            return true;
        }

        /**
         * Ends the watch at the end of the task: false if it fired. Clears the thread's interrupt
         * status either way (an interrupt from a fired watch was delivered before this returns).
         */
        boolean end() {
            boolean intact = disarm();
            if (CURRENT.get() == this) {
                CURRENT.remove();
            }
            Thread.interrupted();
            return intact;
        }
    }
}
