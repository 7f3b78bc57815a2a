package dev.toolgate.mcp;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor the JDK server hands each connection to, as soon as its first byte arrives: a fixed
 * maximum of worker threads behind a bounded queue, every task under a {@link HttpWatchdog.Watch}.
 *
 * <p>The watch's deadline is the read timeout counted from when the connection was handed over, so
 * a request that waited in the queue has had that long to arrive; it still gets a short grace
 * ({@link #GRACE}, at most the read timeout) once a worker takes it, to read what is already
 * buffered. A request that is not fully read by then is cut off: the worker is interrupted, which
 * closes the connection, and the thread is free.
 *
 * <p>When every worker is busy and the queue is full, the connection goes to a small overload
 * responder instead ({@link #OVERLOAD_THREADS} threads, a queue of {@link #OVERLOAD_QUEUE}) that
 * reads only the request's head and answers 503 with {@code Retry-After} and
 * {@code Connection: close} ({@link #overloaded()} tells the handler); past that, the connection is
 * closed without an answer (the JDK server closes what its executor refuses).
 *
 * <p>A task never lets a {@link Throwable} escape: it is logged once and the thread lives on.
 */
final class HttpWorkers implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();

    static final Duration GRACE = Duration.ofSeconds(1);
    static final int OVERLOAD_THREADS = 2;
    static final int OVERLOAD_QUEUE = 32;

    private static final ThreadLocal<Boolean> OVERLOADED = new ThreadLocal<>();

    private final ThreadPoolExecutor workers;
    private final ThreadPoolExecutor overload;
    private final HttpWatchdog watchdog;
    private final long readTimeout;
    private final long grace;
    private final AtomicLong refused = new AtomicLong();
    private volatile long lastRefusalLog;

    HttpWorkers(int maxThreads, int maxQueued, Duration readTimeout, Duration keepAlive, HttpWatchdog watchdog,
                ThreadFactory workerThreads, ThreadFactory overloadThreads) {
        this.watchdog = watchdog;
        this.readTimeout = readTimeout.toNanos();
        this.grace = Math.min(this.readTimeout, GRACE.toNanos());
        this.workers = new ThreadPoolExecutor(maxThreads, maxThreads, keepAlive.toNanos(), TimeUnit.NANOSECONDS,
                new ArrayBlockingQueue<>(maxQueued), workerThreads, new ThreadPoolExecutor.AbortPolicy());
        this.workers.allowCoreThreadTimeOut(true);
        this.overload = new ThreadPoolExecutor(OVERLOAD_THREADS, OVERLOAD_THREADS, keepAlive.toNanos(), TimeUnit.NANOSECONDS,
                new ArrayBlockingQueue<>(OVERLOAD_QUEUE), overloadThreads, new ThreadPoolExecutor.AbortPolicy());
        this.overload.allowCoreThreadTimeOut(true);
    }

    /** True on a thread that serves a connection only to answer 503 (every worker busy, the queue full). */
    static boolean overloaded() {
        return Boolean.TRUE.equals(OVERLOADED.get());
    }

    @Override
    public void execute(Runnable exchange) {
        long handedOver = System.nanoTime();
        try {
            workers.execute(() -> run(exchange, Math.max(handedOver + readTimeout, System.nanoTime() + grace), false));
        } catch (RejectedExecutionException busy) {
            try {
                overload.execute(() -> run(exchange, System.nanoTime() + grace, true));
            } catch (RejectedExecutionException full) {
                logRefusal();
                throw full;
            }
        }
    }

    private void run(Runnable exchange, long deadline, boolean overloaded) {
        HttpWatchdog.Watch watch = watchdog.arm(deadline);
        if (overloaded) {
            OVERLOADED.set(Boolean.TRUE);
        }
        try {
            exchange.run();
        } catch (Throwable e) {
            LOG.error("MCP HTTP connection failed", LOGGED.redactThrowable(e));
        } finally {
            OVERLOADED.remove();
            watch.end();
        }
    }

    private void logRefusal() {
        long count = refused.incrementAndGet();
        long now = System.nanoTime();
        if (now - lastRefusalLog > TimeUnit.SECONDS.toNanos(10)) {
            lastRefusalLog = now;
            LOG.warn("MCP HTTP server overloaded: all {} workers busy, {} requests queued; {} connection(s) closed "
                    + "without an answer so far", workers.getMaximumPoolSize(), workers.getQueue().size(), count);
        }
    }

    /** Worker threads running a request now (for tests and diagnostics). */
    int busy() {
        return workers.getActiveCount() + overload.getActiveCount();
    }

    /** Requests waiting for a worker (for tests and diagnostics). */
    int queued() {
        return workers.getQueue().size();
    }

    void shutdownNow() {
        workers.shutdownNow();
        overload.shutdownNow();
    }
}
