package dev.toolgate.mcp;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in order, on a shared pool. A task's failure, {@link Error}s included,
 * is logged and never ends the pool's thread. {@link #execute} throws
 * {@link RejectedExecutionException} when the pool takes no more work.
 */
final class SerialExecutor implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();

    private final Executor pool;
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private Runnable active;

    SerialExecutor(Executor pool) {
        this.pool = pool;
    }

    @Override
    public synchronized void execute(Runnable task) {
        tasks.add(() -> {
            try {
                task.run();
            } catch (Throwable e) {
                LOG.error("An MCP stream task failed", LOGGED.redactThrowable(e));
            } finally {
                try {
                    next();
                } catch (RejectedExecutionException e) {
                    LOG.debug("Queued MCP stream writes dropped: the writer pool is full or stopped");
                }
            }
        });
        if (active == null) {
            next();
        }
    }

    private synchronized void next() {
        active = tasks.poll();
        if (active != null) {
            try {
                pool.execute(active);
            } catch (RejectedExecutionException e) {
                active = null;
                tasks.clear();
                throw e;
            }
        }
    }
}
