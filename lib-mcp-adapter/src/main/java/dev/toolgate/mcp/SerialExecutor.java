package dev.toolgate.mcp;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/** Runs tasks one at a time, in order, on a shared pool. */
final class SerialExecutor implements Executor {

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
            } finally {
                next();
            }
        });
        if (active == null) {
            next();
        }
    }

    private synchronized void next() {
        active = tasks.poll();
        if (active != null) {
            pool.execute(active);
        }
    }
}
