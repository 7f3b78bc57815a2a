package dev.toolgate.jdbc;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.h2.engine.Session;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.FileStore;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.RandomAccessStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an embedded H2 file database near its live data, off the call path.
 *
 * <p>Why it is needed: the store sets H2's {@code WRITE_DELAY} to 0 so that every commit is in the file
 * before it returns (see {@code JdbcStore}), and with a write delay of 0 H2 runs no background thread,
 * so its own housekeeping (rewriting sparse chunks, moving chunks to the front, truncating the file)
 * never runs. Every commit writes a new chunk; the pages of older chunks die one by one but a chunk
 * with one live page keeps its whole space, so under a write-heavy load the file grows without bound
 * (measured: 4.5 to 40 KB of file per governed read, a 2 GB file over 124 MB of live data).
 *
 * <p>What it does: a daemon thread, every {@code interval} (at a fixed rate: a round that used its
 * budget is followed by the next at its due time), runs steps on the database's store (found
 * through a connection at start, and again if the database was closed and reopened) until
 * one makes no progress or {@value #BUDGET_MS} ms have passed: when the live share of the chunks
 * ({@link FileStore#getChunksFillRate()}) is under {@code fillRate} percent, it rewrites the live pages
 * of the chunks no fuller than that average (see {@link #rewrite}, at most {@value #WRITE_LIMIT} bytes;
 * if none of those can be rewritten, of any chunks, {@link MVStore#compact(int, int)}) and commits them
 * (so that an idle database shrinks too; an idle store, a bounded number of steps per idle period, see
 * {@link #idleRewriteSteps}); when the store made no commit since the last round, or, while
 * calls commit, less than half of {@code fillRate} of the file is used (see {@link #MOVE_UNDER_LOAD_DIVISOR}),
 * it has H2 free the dead chunks whose retention time has
 * passed and, if the share is then under {@code fillRate}, move chunks into the holes and truncate the
 * file ({@link RandomAccessStore#compactMoveChunks(int, long, MVStore)}, after syncing the file without the
 * lock, so that the move's own syncs under it find little to write; a commit is what otherwise frees
 * dead chunks, and an idle store makes none). Once an idle store's rounds have had nothing to do for
 * longer than the retention time, one pass rewrites the chunks under {@value #IDLE_FILL_RATE}% live (see
 * {@link #idlePass}): a file that settled at {@code fillRate} with a fifth of its chunks dead comes down
 * to about 1.1 times its data, and then nothing more is written until a commit. Each step holds H2's store lock
 * for a bounded piece of work, as H2's own background housekeeping does, and the round then pauses as
 * long as the step took, so that the commits that queued meanwhile go first (see {@link #breathe}). The interval is what holds the
 * file near its data: the garbage a round leaves is what the calls wrote since the one before
 * ({@code H2DiskBenchmark} measured the choice; see the module's README). It sets the store's
 * retention time (how long a dead chunk's space waits before reuse, and a chunk before it may be
 * rewritten) to the configured one, 2 s by default: see {@link #DEFAULT_RETENTION}.
 * An in-memory or a remote ({@code tcp:}) H2 database is left alone. {@link #close()} stops the thread
 * and waits for a round in progress.
 *
 * <p>Moving chunks while calls run is safe (H2CompactionRaceTest races it at a round every 5 ms): H2
 * copies a chunk to its new place before it switches the chunk's position and frees the old space, and
 * a reader that took the old position reads again at the new one ({@code Chunk.readBufferForPage});
 * H2's own background housekeeping moves chunks online the same way. "Overwritten irrespective of the
 * retention time" in {@code compactMoveChunks}' Javadoc is about the old space being reused at once, for
 * which H2 writes and syncs its file header first. A read that fails with "(length -1)" means the file's
 * channel was closed under it, by an interrupted thread (see {@code JdbcStore}'s interrupts), not moved.
 */
final class H2Compaction implements AutoCloseable {

    /** Rounds are this far apart unless configured. */
    static final Duration DEFAULT_INTERVAL = Duration.ofMillis(250);
    /** Compact when less than this percentage of the chunks, or of the file, is live, unless configured. */
    static final int DEFAULT_FILL_RATE = 80;
    /**
     * Live bytes rewritten by one step of a round: 1 MB. A step holds H2's store lock, which every
     * commit needs, and reads the pages it rewrites from the file: on a busy machine, steps of 4 MB held
     * the lock up to 361 ms (median 2.8 ms; H2's {@code async:} file system then, each read through a
     * thread of the JDK's pool), and a call waited that long (see the module's README).
     */
    static final int WRITE_LIMIT = 1 << 20;
    /**
     * The live share, in percent, below which an idle store's round rewrites a chunk, for one pass over
     * the live data of each idle period (see {@link #idleSteps}).
     */
    static final int IDLE_FILL_RATE = 95;
    /** Bytes of chunks moved by one step of a round. */
    static final long MOVE_LIMIT = 16L << 20;
    /**
     * While calls commit, chunks are moved only when less than the fill rate divided by this of the
     * file is used: a move syncs the file under H2's store lock, and under a write-heavy load the sync
     * waits for every write before it (60 ms median, 240 ms at worst, every call waiting). Under load the
     * dead chunks' space is reused by new chunks, so the file stops growing without moves, and an idle
     * round moves and truncates as before.
     */
    static final int MOVE_UNDER_LOAD_DIVISOR = 2;
    /**
     * How long a dead chunk's space is kept before it is reused, and a chunk before it may be
     * rewritten, unless configured: 2 s. H2's own 45 s keeps the last 45 s of writes in the file beyond
     * its data (the MCP soak's file reached 9.7 times its data in 3 minutes). With 0, H2 frees a chunk the
     * moment its last page dies and drops its pages from the cache, while a thread that took the map's
     * root a moment before (a commit walking its undo log) may still descend into it: the storage
     * benchmark's H2 part failed a COMMIT with "Chunk N not found" in runs at 0, with either way of
     * choosing the chunks to rewrite (see the module's README). H2's Javadoc of the setting: it "needs to
     * be long enough to allow reading old chunks while traversing over the entries of a map". Two
     * seconds is three orders of magnitude above a traversal, and costs two seconds of writes of file.
     * A short retention makes chunks land in holes of the file often, and H2's own open after a kill
     * then misses them (a header written for such a chunk names its predecessor); {@link H2Recovery}
     * finds them before the store opens the file, at any retention.
     */
    static final Duration DEFAULT_RETENTION = Duration.ofSeconds(2);
    /** Below this retention time the store warns at start: see {@link #DEFAULT_RETENTION}. */
    static final Duration SAFE_RETENTION = Duration.ofSeconds(1);
    /** A round stops starting steps after this many milliseconds. */
    static final long BUDGET_MS = 200;
    /** The shortest pause between two steps of a round: see {@link #breathe}. */
    static final long MIN_PAUSE_NANOS = 500_000;

    private static final Logger LOG = LoggerFactory.getLogger(H2Compaction.class);
    private static final AtomicInteger THREADS = new AtomicInteger();
    /** H2's {@code FileStore.rewriteChunks(int, int)} and {@code MVStore.tryExecuteUnderStoreLock}, or null: see {@link #rewrite}. */
    private static final Method REWRITE_CHUNKS = accessible(FileStore.class, "rewriteChunks", int.class, int.class);
    private static final Method UNDER_STORE_LOCK = accessible(MVStore.class, "tryExecuteUnderStoreLock", Callable.class);
    /** H2's {@code FileStore.getRewritableChunksFillRate()}, or null: see {@link #rewritableFillRate}. */
    private static final Method REWRITABLE_FILL_RATE = accessible(FileStore.class, "getRewritableChunksFillRate");

    /** How often to look and below what fill rate to compact; an interval of zero switches it off. */
    record Config(Duration interval, int fillRate, Duration retention) {
        Config {
            if (retention == null || retention.isNegative() || retention.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("the H2 retention time must be from 0 to " + Integer.MAX_VALUE
                        + " ms, got " + retention);
            }
            if (interval == null || interval.isNegative() || !interval.isZero() && interval.toMillis() < 1) {
                throw new IllegalArgumentException("the H2 compaction interval must be zero (off) or at least 1 ms, got "
                        + interval);
            }
            if (fillRate < 1 || fillRate > 99) {
                throw new IllegalArgumentException("the H2 compaction fill rate must be a percentage from 1 to 99, got "
                        + fillRate);
            }
        }

        static Config defaults() {
            return new Config(DEFAULT_INTERVAL, DEFAULT_FILL_RATE, DEFAULT_RETENTION);
        }
    }

    private final DataSource dataSource;
    private final int fillRate;
    private final ScheduledExecutorService timer;
    private final AtomicLong rounds = new AtomicLong();
    private final AtomicLong compactions = new AtomicLong();
    private final AtomicLong moves = new AtomicLong();
    private final AtomicLong idlePasses = new AtomicLong();
    /** The database's store, held between rounds so that a round takes no connection from the pool. */
    private volatile MVStore current;
    /** The store's version at the end of the last round: unchanged at the next means no commit came between. */
    private long lastVersion = -1;
    /** The store's version when this thread last synced the file before a move; -1 before the first. */
    private long syncedVersion = -1;
    /** Whether this idle period (no commit but the rounds' own since) has had its pass at {@link #IDLE_FILL_RATE}. */
    private boolean idlePassDone;
    /** Rewrite steps at the fill rate this idle period has left (-1: not counted yet; see {@link #idleRewriteSteps}). */
    private long idleRewritesLeft = -1;
    /** Rounds in a row of an idle store that found nothing to do. */
    private int quietRounds;
    /** After this many quiet rounds an idle period is settled and may have its pass. */
    private final int settledAfter;
    private volatile boolean closed;
    private volatile boolean warned;

    private H2Compaction(DataSource dataSource, MVStore store, Config config) {
        this.dataSource = dataSource;
        this.current = store;
        this.fillRate = config.fillRate();
        // quiet rounds after which every chunk is older than the retention time, so none is left for later
        this.settledAfter = (int) Math.min(1_000, config.retention().toMillis() / Math.max(1, config.interval().toMillis()) + 2);
        String name = "toolgate-h2-compaction-" + THREADS.incrementAndGet();
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, name);
            thread.setDaemon(true);
            return thread;
        });
        long millis = config.interval().toMillis();
        // at a fixed rate: a round that used its budget is followed by the next one at its due time, not
        // a whole interval later, so that the rounds keep up under a sustained write-heavy load
        timer.scheduleAtFixedRate(this::round, millis, millis, TimeUnit.MILLISECONDS);
    }

    /**
     * Starts the compaction for the H2 database behind {@code connection} if it is an embedded file
     * database and the interval is not zero; otherwise returns null.
     */
    static H2Compaction startIfFile(DataSource dataSource, Connection connection, Config config) {
        if (config.interval().isZero()) {
            return null;
        }
        MVStore store = fileStore(connection);
        if (store == null) {
            return null;
        }
        store.setRetentionTime((int) config.retention().toMillis());
        if (config.retention().compareTo(SAFE_RETENTION) < 0) {
            LOG.warn("H2 retention time {} ms: H2 can free a chunk that a thread walking an older root of a map still"
                    + " reads, and fail that call with 'Chunk N not found' (seen at 0 under load); use {} ms or more"
                    + " outside tests", config.retention().toMillis(), SAFE_RETENTION.toMillis());
        }
        return new H2Compaction(dataSource, store, config);
    }

    /** Whether {@code connection} is to an embedded H2 file database. */
    static boolean isEmbeddedFile(Connection connection) {
        return fileStore(connection) != null;
    }

    /** The MVStore behind an embedded H2 file database's connection, or null. */
    private static MVStore fileStore(Connection connection) {
        try {
            Session session = connection.unwrap(JdbcConnection.class).getSession();
            if (!(session instanceof SessionLocal local) || local.getDatabase().getStore() == null) {
                return null;
            }
            MVStore store = local.getDatabase().getStore().getMvStore();
            return store.getFileStore() instanceof RandomAccessStore && !store.isClosed() ? store : null;
        } catch (SQLException e) {
            return null; // not an H2 connection
        }
    }

    /** One round: rewrite sparse chunks, then move chunks and truncate, each within the round's budget. */
    private void round() {
        if (closed) {
            return;
        }
        rounds.incrementAndGet();
        try {
            MVStore store = current;
            if (store == null || store.isClosed()) {
                // the database was closed and opened again (its last connection closed): find it anew
                try (Connection connection = dataSource.getConnection()) {
                    store = fileStore(connection);
                    current = store;
                }
            }
            if (store == null || closed) {
                return;
            }
            RandomAccessStore file = (RandomAccessStore) store.getFileStore();
            long started = System.nanoTime();
            int chunksBefore = file.getChunksFillRate();
            int fileBefore = file.getFillRate();
            long sizeBefore = file.size();
            long stopAt = started + TimeUnit.MILLISECONDS.toNanos(BUDGET_MS);
            boolean idle = store.getCurrentVersion() == lastVersion;
            if (!idle) {
                idlePassDone = false; // a commit came: the next settled idle round may make its pass
                idleRewritesLeft = -1; // and the next idle period gets its own rewrite steps
            } else if (idleRewritesLeft < 0) {
                idleRewritesLeft = idleRewriteSteps(file);
            }
            boolean worked = false;
            for (boolean progress = true; progress && !closed && System.nanoTime() < stopAt; ) {
                // the live share of the chunks a rewrite may take (older than the retention time): the young
                // ones, dead or not, wait for it in any case, and counting them sent every round of a busy
                // file into rewriting old, full chunks for nothing (4 times the compaction's CPU per call)
                long stepStarted = System.nanoTime();
                int live = rewritableFillRate(file);
                // the sparse chunks first; if none of them can be rewritten (the newest chunk, pinned pages
                // of open transactions), any chunk, so that a small or idle file still comes down. An idle
                // store (no commit since the last round) rewrites every chunk below IDLE_FILL_RATE: no call
                // waits for its lock then, and a file left at fillRate after a burst comes down to its data
                progress = live < fillRate && (!idle || idleRewritesLeft > 0)
                        && (rewrite(store, file, live) || store.compact(fillRate, WRITE_LIMIT));
                if (progress) {
                    store.commit(); // the rewritten pages go to the file now, not with the next call's commit
                    if (idle) {
                        idleRewritesLeft--;
                    }
                }
                // when the store is idle (no commit since the last round), whatever the used share looks like:
                // H2 first frees the dead chunks whose retention time has passed (dropUnusedChunks), then moves
                // chunks only if the share is under fillRate. A commit frees them too, but an idle store makes
                // none, and until they are freed they count as used: checking the share first left an idle
                // file at 3 times its live data. Under load the commits free them, new chunks reuse their space,
                // and only a file less than half of fillRate used is worth a move's sync under the lock
                int used = file.getFillRate();
                if (idle || used < fillRate / MOVE_UNDER_LOAD_DIVISOR) {
                    long size = file.size();
                    // the moves sync the file under the store lock, up to four times; the writes not yet on
                    // disk (after a burst, up to the OS's 30 s of them) are flushed here first, without it,
                    // once per version of the store (an idle store's rounds sync it once, not 4 times a second)
                    long version = store.getCurrentVersion();
                    if (version != syncedVersion) {
                        file.sync();
                        syncedVersion = version;
                    }
                    file.compactMoveChunks(fillRate, MOVE_LIMIT, store);
                    if (file.size() < size || file.getFillRate() > used) {
                        progress = true;
                        moves.incrementAndGet();
                    }
                }
                worked |= progress;
                if (progress) {
                    breathe(System.nanoTime() - stepStarted);
                }
            }
            quietRounds = idle && !worked ? quietRounds + 1 : 0;
            if (quietRounds >= settledAfter && !idlePassDone && !closed && IDLE_FILL_RATE > fillRate) {
                // null: the round's time ran out before a step (a busy machine): the next round makes the pass
                Boolean pass = idlePass(store, file, stopAt);
                idlePassDone = pass != null;
                if (pass == Boolean.TRUE) {
                    worked = true;
                    idlePasses.incrementAndGet();
                }
            }
            lastVersion = store.getCurrentVersion(); // after this round's own commits
            if (worked) {
                compactions.incrementAndGet();
                if (LOG.isDebugEnabled()) {
                    LOG.debug("H2 compaction round: chunks {}% -> {}% live, file {}% -> {}% used, {} -> {} KB, {} ms",
                            chunksBefore, file.getChunksFillRate(), fileBefore, file.getFillRate(), sizeBefore / 1024,
                            file.size() / 1024, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                }
            }
        } catch (SQLException | RuntimeException | Error e) { // an Error would end the schedule silently
            if (!closed && !warned) {
                warned = true; // once: a database that is down fails every call anyway, and says so there
                LOG.warn("H2 compaction failed; the database file may grow until it works again", e);
            }
        }
    }

    /**
     * The rewrite steps at the fill rate an idle period may take: twice as many as the file has
     * {@link #WRITE_LIMIT}s, and four more (a step takes chunks of up to that size, often with far less
     * live data in them, so the live data alone undercounts what a file after a burst needs: with one step
     * per MB of live data a file was left at 3 times its data). Without a bound an idle store never settled
     * when its chunks were small: each step's commit leaves the chunk it wrote under the fill rate (the
     * store's metadata pages in it die with the next commit), so the next step rewrote that one, and so on,
     * a cycle of four rounds (1.4 MB to 2.4 MB of file and back) seen for 40 s and more after a burst of
     * calls, four commits a second on a store nobody used.
     */
    static long idleRewriteSteps(RandomAccessStore file) {
        return 2 * (file.size() / WRITE_LIMIT) + 4;
    }

    /**
     * Waits as long as the step that just ended took (at least {@value #MIN_PAUSE_NANOS} ns), so that
     * commits queued on H2's store lock during the step take it before the next step does: the lock is
     * not fair, and a thread that releases it and asks again at once mostly gets it back. A round then
     * holds the lock at most about half its time.
     */
    private static void breathe(long stepNanos) {
        LockSupport.parkNanos(Math.max(MIN_PAUSE_NANOS, stepNanos));
    }

    /**
     * The pass of a settled idle period: once the rounds of an idle store have found nothing to do at
     * the fill rate for longer than the retention time (so no chunk is too young to be rewritten), the
     * chunks under {@link #IDLE_FILL_RATE} live are rewritten in {@link #WRITE_LIMIT} steps, up to about
     * the live data once and within this one round's time (a file of gigabytes gets only part of the
     * pass), and the following rounds free and move the old copies after the retention time as usual.
     * At the fill rate a file settles with up to a fifth of its chunks dead, which after a burst was 1.5
     * to 2 times its data; the pass brings it to about 1.1 times. Once per idle period: every rewrite's
     * commit leaves its own chunk partly dead (the store's metadata pages die with the next commit), so
     * rewriting whatever is under 95% live at every idle round never settled, writing a few hundred KB
     * four times a second for ever. True: it rewrote; false: nothing to rewrite; null: no time for a step.
     */
    private static Boolean idlePass(MVStore store, RandomAccessStore file, long stopAt) {
        long liveBytes = file.size() / 100 * file.getChunksFillRate();
        Boolean worked = null; // out of time before the first step
        for (long steps = liveBytes / WRITE_LIMIT + 1; steps > 0 && System.nanoTime() < stopAt; steps--) {
            if (rewritableFillRate(file) >= IDLE_FILL_RATE
                    || !(rewrite(store, file, IDLE_FILL_RATE) || store.compact(IDLE_FILL_RATE, WRITE_LIMIT))) {
                return worked != null;
            }
            store.commit();
            worked = true;
        }
        return worked;
    }

    /**
     * Rewrites the live pages of chunks at most as full as the chunks on average ({@code live} percent),
     * at most {@value #WRITE_LIMIT} bytes, under H2's store lock; returns whether it rewrote any. This is
     * the choice H2's own housekeeping makes under load ({@code RandomAccessStore.doHousekeeping}). The
     * public {@link MVStore#compact(int, int)} takes any chunk, oldest first ({@code findOldChunks} with a
     * target of 100%): mostly the old, nearly full chunks of the audit rows, freeing little per byte
     * written, and falling behind a sustained write-heavy load. H2 offers the sparse choice only to its
     * own package, so it is reached by reflection; where that is refused (H2 on the module path, another
     * H2 version), the public call.
     */
    private static boolean rewrite(MVStore store, RandomAccessStore file, int live) {
        if (REWRITE_CHUNKS != null && UNDER_STORE_LOCK != null) {
            try {
                Callable<Boolean> rewrite = () -> (Boolean) REWRITE_CHUNKS.invoke(file, WRITE_LIMIT, live);
                Object result = UNDER_STORE_LOCK.invoke(store, rewrite);
                return Boolean.TRUE.equals(result);
            } catch (ReflectiveOperationException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                if (cause instanceof RuntimeException runtime) {
                    throw runtime;
                }
                if (cause instanceof Error error) {
                    throw error;
                }
                throw new IllegalStateException(cause);
            }
        }
        return store.compact(live + 1, WRITE_LIMIT);
    }

    /**
     * The live share, in percent, of the chunks old enough to be rewritten (H2's own measure for its
     * housekeeping); where H2 refuses the reflective call, that of all chunks.
     */
    private static int rewritableFillRate(RandomAccessStore file) {
        if (REWRITABLE_FILL_RATE != null) {
            try {
                return (Integer) REWRITABLE_FILL_RATE.invoke(file);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // fall through to the public measure
            }
        }
        return file.getChunksFillRate();
    }

    private static Method accessible(Class<?> type, String name, Class<?>... parameters) {
        try {
            Method method = type.getDeclaredMethod(name, parameters);
            method.setAccessible(true);
            return method;
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.debug("H2's {}.{} is not reachable ({}); compacting through"
                    + " MVStore.compact", type.getSimpleName(), name, e.toString());
            return null;
        }
    }

    /** The retention time, in milliseconds, that the database's store has now (H2's own value). */
    int retentionMillis() {
        MVStore store = current;
        return store == null ? -1 : store.getRetentionTime();
    }

    /** The file's state now, for diagnostics: the live shares of its chunks and of the file, its size. */
    String state() {
        MVStore store = current;
        if (store == null || store.isClosed()) {
            return "closed";
        }
        RandomAccessStore file = (RandomAccessStore) store.getFileStore();
        return "chunks " + file.getChunksFillRate() + "% live (rewritable " + rewritableFillRate(file) + "%), file "
                + file.getFillRate() + "% used, " + file.size() / 1024 + " KB";
    }

    /** Rounds run so far. */
    long rounds() {
        return rounds.get();
    }

    /** Rounds that rewrote or moved something. */
    long compactions() {
        return compactions.get();
    }

    /** Steps that moved chunks into holes or truncated the file. */
    long moves() {
        return moves.get();
    }

    /** Passes of settled idle periods that rewrote chunks (see {@link #idlePass}). */
    long idlePasses() {
        return idlePasses.get();
    }

    /** The database store's current version (-1 before the first round found it): unchanged means no commit. */
    long version() {
        MVStore store = current;
        return store == null || store.isClosed() ? -1 : store.getCurrentVersion();
    }

    /** Stops the rounds, waiting for one in progress. Idempotent. */
    @Override
    public void close() {
        closed = true;
        timer.shutdown();
        try {
            if (!timer.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("H2 compaction still running 10 s after close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
