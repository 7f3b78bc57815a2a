package dev.toolgate.codemode;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongFunction;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out fresh contexts, each to one script only, and keeps up to {@value #SPARES} of them prepared
 * ahead on a thread of its own: created, the JavaScript realm started (its builtins, the larger part of
 * a context's cost) and the first step of the prelude run, which depends on no script. A script then
 * finds its context ready, and its caller does not wait for that work. A context is never handed out
 * twice and never holds anything of a script or caller before it is handed out: only the prelude's own
 * work, the same in every context. The statement limit is fixed when a context is built, so spares are
 * kept per limit, for the last {@value #LIMITS} limits asked for: a script under a limit with no spare
 * ready gets a context built for it on the spot, and spares under its limit are prepared next.
 */
final class FreshContexts implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FreshContexts.class);
    /** How many prepared contexts are kept per statement limit. */
    static final int SPARES = 2;
    /** For how many statement limits spares are kept (the least recently asked for is dropped). */
    static final int LIMITS = 4;

    /**
     * A context for one script and, when prepared ahead, the prelude's {@code bind} function in it
     * ({@code null}: the prelude has not run in it yet).
     */
    record Fresh(Context context, Value bind) {
    }

    /** The spares under one statement limit. */
    private static final class Spares {
        final ArrayDeque<Fresh> fresh = new ArrayDeque<>();
        int making;
    }

    private final LongFunction<Context> builder;
    private final Source prelude;
    private final ExecutorService maker;
    /** Per statement limit, least recently asked for first: the spares ready and how many are being made. */
    private final Map<Long, Spares> ready = new LinkedHashMap<>();
    private boolean closed;
    private long prepared;

    /**
     * @param builder builds a context stopped after the given number of statements
     * @param prelude the prelude, whose evaluation returns the function whose call returns {@code bind}
     */
    FreshContexts(LongFunction<Context> builder, Source prelude) {
        this.builder = builder;
        this.prelude = prelude;
        this.maker = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "toolgate-codemode-contexts");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * A context no script has had, under {@code maxStatements}: a prepared one if there is one, else one
     * built now whose prelude has not run. Either way, preparing the next spares starts.
     */
    Fresh take(long maxStatements) {
        Fresh taken;
        List<Fresh> stale = new ArrayList<>();
        synchronized (ready) {
            if (closed) {
                return new Fresh(builder.apply(maxStatements), null);
            }
            Spares spares = ready.remove(maxStatements); // and put back last: the most recently asked for
            ready.put(maxStatements, spares = spares != null ? spares : new Spares());
            taken = spares.fresh.poll();
            while (spares.fresh.size() + spares.making < SPARES) {
                spares.making++;
                try {
                    maker.execute(() -> prepareOne(maxStatements));
                } catch (RejectedExecutionException e) {
                    spares.making--;
                    break;
                }
            }
            for (var eldest = ready.entrySet().iterator(); ready.size() > LIMITS && eldest.hasNext(); ) {
                stale.addAll(eldest.next().getValue().fresh);
                eldest.remove(); // contexts still being made for it are closed when made
            }
        }
        for (Fresh old : stale) {
            closeQuietly(old.context());
        }
        return taken != null ? taken : new Fresh(builder.apply(maxStatements), null);
    }

    /** Contexts prepared ahead so far (for tests). */
    long prepared() {
        synchronized (ready) {
            return prepared;
        }
    }

    /** Evaluates the prelude in a fresh context: returns its {@code bind} function. */
    Value prepare(Context context) {
        return context.eval(prelude).execute();
    }

    private void prepareOne(long statements) {
        synchronized (ready) {
            Spares spares = closed ? null : ready.get(statements);
            if (spares == null) { // closed, or the limit was dropped before its turn
                return;
            }
        }
        Fresh fresh = null;
        try {
            Context context = builder.apply(statements);
            try {
                fresh = new Fresh(context, prepare(context));
            } catch (RuntimeException e) {
                closeQuietly(context);
                throw e;
            }
        } catch (RuntimeException e) {
            LOG.debug("Preparing a codemode context ahead failed; scripts build their own", e);
        }
        synchronized (ready) {
            Spares spares = closed ? null : ready.get(statements);
            if (spares != null) {
                spares.making = Math.max(0, spares.making - 1);
                if (fresh != null && spares.fresh.size() < SPARES) {
                    spares.fresh.add(fresh);
                    prepared++;
                    return;
                }
            }
        }
        if (fresh != null) {
            closeQuietly(fresh.context());
        }
    }

    /** Closes the spares and stops preparing more. */
    @Override
    public void close() {
        List<Fresh> spares = new ArrayList<>();
        synchronized (ready) {
            closed = true;
            ready.values().forEach(each -> spares.addAll(each.fresh));
            ready.clear();
        }
        maker.shutdownNow();
        for (Fresh spare : spares) {
            closeQuietly(spare.context());
        }
    }

    private static void closeQuietly(Context context) {
        try {
            context.close(true);
        } catch (RuntimeException e) {
            LOG.debug("Closing a spare codemode context failed", e);
        }
    }
}
