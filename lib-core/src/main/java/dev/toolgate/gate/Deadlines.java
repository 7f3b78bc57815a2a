package dev.toolgate.gate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deadlines of tool code running on its caller's thread: one daemon thread, started on first
 * use, that sleeps until the earliest deadline and interrupts the thread whose tool is still running
 * then. A new deadline wakes it only when it is earlier than the one it sleeps towards, so calls that
 * finish in time cost it nothing. Each {@link Watch} ends exactly once, either fired (its thread
 * interrupted) or released by its own thread; once released it can no longer fire, so the interrupt
 * never reaches a thread after its tool returned.
 */
final class Deadlines implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StandardEngine.class);

    /** One tool run on its caller's thread, until its deadline. */
    static final class Watch {
        private static final int RUNNING = 0;
        private static final int RELEASED = 1;
        private static final int FIRED = 2;

        private final Thread thread;
        private final long deadline;
        private int state = RUNNING;

        private Watch(Thread thread, long deadline) {
            this.thread = thread;
            this.deadline = deadline;
        }

        /** Interrupts the thread if its tool still runs; the interrupt is set before this returns. */
        private synchronized void fire() {
            if (state == RUNNING) {
                state = FIRED;
                thread.interrupt();
            }
        }

        /** Ends the watch from its own thread: true if it fired first (the thread carries its interrupt). */
        private synchronized boolean release() {
            if (state == RUNNING) {
                state = RELEASED;
                return false;
            }
            return state == FIRED;
        }
    }

    private final Object lock = new Object();
    private final PriorityQueue<Watch> watches = new PriorityQueue<>((a, b) -> Long.signum(a.deadline - b.deadline));
    private final String threadName;
    // guarded by lock
    private Thread thread;
    private boolean sleepingTowards;
    private long wakeAt;
    private boolean closed;

    Deadlines(String threadName) {
        this.threadName = threadName;
    }

    /** Watches the calling thread until {@code limit} from now; release the watch when the tool returns. */
    Watch watch(Duration limit) {
        long now = System.nanoTime();
        Watch watch = new Watch(Thread.currentThread(), now + saturatedNanos(limit));
        synchronized (lock) {
            if (closed) {
                throw new RejectedExecutionException("the gate is closed");
            }
            watches.add(watch);
            if (thread == null) {
                thread = new Thread(this::loop, threadName);
                thread.setDaemon(true);
                thread.start();
            } else if (watches.peek() == watch && (!sleepingTowards || watch.deadline - wakeAt < 0)) {
                lock.notifyAll();
            }
        }
        return watch;
    }

    /** Ends {@code watch}: true if its deadline passed first and its thread was interrupted for it. */
    boolean release(Watch watch) {
        synchronized (lock) {
            watches.remove(watch);
        }
        return watch.release();
    }

    /** How many watches are open (tests). */
    int open() {
        synchronized (lock) {
            return watches.size();
        }
    }

    private void loop() {
        List<Watch> due = new ArrayList<>();
        while (true) {
            synchronized (lock) {
                while (due.isEmpty()) {
                    if (closed) {
                        return;
                    }
                    Watch first = watches.peek();
                    long now = System.nanoTime();
                    try {
                        if (first == null) {
                            sleepingTowards = false;
                            lock.wait();
                        } else if (first.deadline - now > 0) {
                            sleepingTowards = true;
                            wakeAt = first.deadline;
                            TimeUnit.NANOSECONDS.timedWait(lock, first.deadline - now);
                        } else {
                            while (!watches.isEmpty() && watches.peek().deadline - now <= 0) {
                                due.add(watches.poll());
                            }
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            // outside the lock: an interrupt may close an interruptible channel the tool is blocked in
            for (Watch watch : due) {
                try {
                    watch.fire();
                } catch (RuntimeException e) { // the watchdog outlives one thread it could not interrupt
                    LOG.warn("Could not interrupt {} at its tool's deadline: {}", watch.thread.getName(), e.toString());
                }
            }
            due.clear();
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
    }

    private static long saturatedNanos(Duration limit) {
        try {
            return Math.min(limit.toNanos(), Long.MAX_VALUE / 4);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }
}
