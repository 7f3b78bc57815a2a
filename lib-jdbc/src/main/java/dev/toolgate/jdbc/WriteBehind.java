package dev.toolgate.jdbc;

import dev.toolgate.audit.CallRecord;
import dev.toolgate.spi.StoreUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit rows of calls that changed nothing (reads, refusals, invalid and failed calls; never a
 * step of a run, a proposal or a claim), written in batches by one background thread instead of one
 * durable commit per call: see {@link JdbcStore.Builder#writeBehind}.
 *
 * <p>A row is written at most {@code within} after its call, or at once when {@value #MAX_BATCH} rows
 * are waiting, one transaction per batch. What it bounds and how it fails:
 * <ul>
 *   <li><b>Memory:</b> at most {@code maxRows} rows and {@value #MAX_CHARS} characters of their text
 *       wait; beyond either, {@link #offer} refuses and the caller writes its row itself, durably.</li>
 *   <li><b>Reading one's own rows:</b> a lookup of one call on this instance finds a waiting row here
 *       ({@link #waiting}), and {@link #flush} writes every waiting row before a query of the audit;
 *       other instances see a row once its batch commits.</li>
 *   <li><b>The database going away:</b> a batch that cannot be written goes back to the head of the
 *       queue, nothing is dropped, and until a batch is written again {@link #offer} refuses, so calls
 *       write their own rows and fail closed ({@link StoreUnavailableException}) like every other
 *       call. A row the database itself refuses three times (not a lost connection) is dropped with
 *       an error in the log naming its id and tool.</li>
 *   <li><b>A crash:</b> rows still waiting are lost; {@link #close} writes them all first.</li>
 * </ul>
 */
final class WriteBehind implements AutoCloseable {

    /** Rows written in one transaction, at most; this many waiting start a batch before {@code within}. */
    static final int MAX_BATCH = 500;
    /** Rows that may wait, unless configured. */
    static final int MAX_ROWS = 10_000;
    /** Characters of the waiting rows' texts (results, payloads, errors) that may wait. */
    static final long MAX_CHARS = 8L * 1024 * 1024;
    /** Write rounds a row the database refuses (the connection still working) may take before it is dropped. */
    static final int ATTEMPTS = 3;
    /** The longest pause between write rounds while the database refuses batches. */
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final Logger LOG = LoggerFactory.getLogger(WriteBehind.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Db db;
    private final PlainSql insert;
    private final long withinNanos;
    private final int maxRows;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition due = lock.newCondition();
    /** Guarded by {@link #lock}. */
    private final ArrayDeque<Waiting> queue = new ArrayDeque<>();
    /** Guarded by {@link #lock}: characters of the queue's texts. */
    private long queuedChars;
    /** Guarded by {@link #lock}. */
    private boolean closed;
    /** One batch at a time, in the order they were taken, by the writer thread or a flush. */
    private final ReentrantLock writing = new ReentrantLock();
    /** Rows offered and not yet written or dropped: queued, or in a batch being written. */
    private final AtomicInteger unwritten = new AtomicInteger();
    /** Rows offered and not yet written or dropped, by call id: a lookup of one reads it here. */
    private final ConcurrentHashMap<String, CallRecord> byId = new ConcurrentHashMap<>();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    /** The last batch could not be written: callers write their own rows until one is. */
    private volatile boolean failing;
    /** The writer thread died of something unexpected: callers write their own rows from now on. */
    private volatile boolean stopped;
    private final Thread writer;

    WriteBehind(Db db, Duration within, int maxRows) {
        if (within.isNegative() || within.isZero()) {
            throw new IllegalArgumentException("within must be positive, got " + within);
        }
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be at least 1, got " + maxRows);
        }
        this.db = db;
        this.withinNanos = within.toNanos();
        this.maxRows = maxRows;
        this.insert = PlainSql.of("INSERT INTO " + CallRows.TABLE + " (" + CallRows.COLUMNS + ") VALUES ("
                + CallRows.values(":created_at", ":expires_at", ":completed_at") + ")");
        db.refreshEstimate();
        this.writer = new Thread(this::run, "toolgate-audit-writer-" + THREADS.incrementAndGet());
        writer.setDaemon(true);
        writer.start();
    }

    /**
     * Queues the row of {@code call}, a finished call outside any run, with its times set from the
     * store's clock; or returns null when the caller must write it itself (too many rows waiting, the
     * database refusing batches, or closed).
     */
    CallRecord offer(CallRecord call) {
        if (failing || stopped) {
            return null;
        }
        CallRecord row = CallRows.finished(call, db.estimatedTime());
        long chars = chars(row);
        lock.lock();
        try {
            if (closed || failing || stopped || queue.size() >= maxRows || queuedChars + chars > MAX_CHARS) {
                return null;
            }
            if (queue.isEmpty()) {
                due.signal();
            }
            queue.addLast(new Waiting(row, chars, System.nanoTime()));
            queuedChars += chars;
            unwritten.incrementAndGet();
            byId.put(row.id(), row);
            if (queue.size() >= MAX_BATCH) {
                due.signal();
            }
        } finally {
            lock.unlock();
        }
        return row;
    }

    /**
     * Writes every row offered before this call (waiting for a batch already being written), so that a
     * read of the audit on this instance sees them. Returns at once when nothing waits. A failure is
     * left to the read that follows, which meets the same database.
     */
    void flush() {
        if (unwritten.get() == 0) {
            return;
        }
        writing.lock();
        try {
            while (true) {
                List<Waiting> batch = take();
                if (batch.isEmpty() || !write(batch)) {
                    return;
                }
            }
        } finally {
            writing.unlock();
        }
    }

    /** Stops the writer and writes every waiting row; rows the database will not take are reported lost. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            due.signal();
        } finally {
            lock.unlock();
        }
        try {
            writer.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        flush();
        int lost = unwritten.get();
        if (lost > 0) {
            LOG.error("{} audit rows written behind could not be written before the store closed and are lost", lost);
        }
    }

    /** The row of call {@code id} if it is waiting to be written, else null (it is in the database, or never was). */
    CallRecord waiting(String id) {
        return byId.get(id);
    }

    /** Rows written so far. */
    long written() {
        return written.get();
    }

    /** Rows dropped after the database refused them {@value #ATTEMPTS} times. */
    long dropped() {
        return dropped.get();
    }

    /** Rows offered and not yet written or dropped. */
    int unwritten() {
        return unwritten.get();
    }

    /** Whether callers write their own rows because the last batch failed (or the writer stopped). */
    boolean failing() {
        return failing || stopped;
    }

    private void run() {
        long backoff = 0;
        try {
            while (true) {
                lock.lock();
                try {
                    if (backoff > 0 && !closed) {
                        due.awaitNanos(backoff);
                    }
                    while (!closed && !ready()) {
                        if (queue.isEmpty()) {
                            due.await();
                        } else {
                            due.awaitNanos(withinNanos - (System.nanoTime() - queue.peekFirst().at));
                        }
                    }
                    if (closed) {
                        return; // close() writes what is left on its own thread
                    }
                } finally {
                    lock.unlock();
                }
                boolean ok;
                writing.lock();
                try {
                    ok = write(take());
                } finally {
                    writing.unlock();
                }
                backoff = ok ? 0 : Math.min(MAX_BACKOFF_NANOS, Math.max(backoff * 2, withinNanos));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            stopped = true; // for good: every caller writes its own row from now on
            LOG.error("The audit writer stopped; every call now writes its own audit row", e);
            throw e;
        }
    }

    /** Guarded by {@link #lock}: a batch is due (full, or its oldest row has waited {@code within}). */
    private boolean ready() {
        return !queue.isEmpty() && (queue.size() >= MAX_BATCH || System.nanoTime() - queue.peekFirst().at >= withinNanos);
    }

    /** Takes up to {@link #MAX_BATCH} waiting rows, oldest first. */
    private List<Waiting> take() {
        lock.lock();
        try {
            int n = Math.min(MAX_BATCH, queue.size());
            List<Waiting> batch = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                Waiting w = queue.pollFirst();
                queuedChars -= w.chars;
                batch.add(w);
            }
            return batch;
        } finally {
            lock.unlock();
        }
    }

    /** Puts rows that were not written back at the head of the queue, in their order. */
    private void giveBack(List<Waiting> rows) {
        lock.lock();
        try {
            for (int i = rows.size() - 1; i >= 0; i--) {
                queue.addFirst(rows.get(i));
                queuedChars += rows.get(i).chars;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Writes {@code batch} in one transaction; on failure row by row. Returns whether every row is settled. */
    private boolean write(List<Waiting> batch) {
        if (batch.isEmpty()) {
            return true;
        }
        try {
            db.refreshEstimate(); // on the writer thread, so callers seldom read the clock themselves
            List<PlainSql.Binder> binders = new ArrayList<>(batch.size());
            for (Waiting w : batch) {
                binders.add(p -> CallRows.bind(p, w.row));
            }
            db.withConnection(c -> {
                c.setAutoCommit(false);
                try {
                    insert.batch(c, binders);
                    c.commit();
                } catch (RuntimeException | SQLException e) {
                    rollback(c);
                    throw e;
                } finally {
                    c.setAutoCommit(true);
                }
                return null;
            });
            recovered(); // the state first, the counts after: once nothing is unwritten, nothing is failing
            settled(batch, 0);
            return true;
        } catch (StoreUnavailableException e) {
            return unavailable(batch, e);
        } catch (RuntimeException e) {
            return oneByOne(batch);
        }
    }

    private static void rollback(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the pool discards it and the batch goes back to the queue
        }
    }

    /** After a batch the database refused: each row on its own, so that one bad row holds up no other. */
    private boolean oneByOne(List<Waiting> batch) {
        List<Waiting> wrote = new ArrayList<>();
        List<Waiting> again = new ArrayList<>();
        int drop = 0;
        for (int i = 0; i < batch.size(); i++) {
            Waiting w = batch.get(i);
            try {
                db.withConnection(c -> insert.update(c, p -> CallRows.bind(p, w.row)));
                wrote.add(w);
            } catch (StoreUnavailableException e) {
                again.addAll(batch.subList(i, batch.size()));
                boolean settled = unavailable(again, e);
                settled(wrote, drop);
                return settled;
            } catch (RuntimeException e) {
                if (++w.attempts >= ATTEMPTS) {
                    drop++;
                    byId.remove(w.row.id());
                    LOG.error("The audit row of call {} ({}) was refused {} times and is dropped ({})", w.row.id(),
                            w.row.toolName(), ATTEMPTS, refusal(e));
                } else {
                    again.add(w);
                }
            }
        }
        // the state first, the counts after: once nothing is unwritten, the writer is no longer failing
        if (again.isEmpty()) {
            recovered();
        } else {
            giveBack(again);
            failing = true;
        }
        settled(wrote, drop);
        return again.isEmpty();
    }

    /**
     * What the database said, without its message: a database's message can quote the row's values
     * (H2 quotes a key or a value that is too long), and a log line carries none of a row's data.
     */
    static String refusal(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                return "SQLState " + sql.getSQLState() + ", error code " + sql.getErrorCode();
            }
        }
        return e.getClass().getSimpleName();
    }

    private boolean unavailable(List<Waiting> rows, StoreUnavailableException e) {
        giveBack(rows);
        if (!failing) {
            failing = true;
            LOG.warn("{} audit rows written behind wait for the database ({}); until it takes them, calls write their"
                    + " own rows and fail closed while it is away", unwritten.get(), e.getMessage());
        }
        return false;
    }

    private void recovered() {
        if (failing) {
            failing = false;
            LOG.info("Audit rows are written behind again");
        }
    }

    /** Counts {@code wrote} as written (their rows are committed, so a lookup now finds them in the database). */
    private void settled(List<Waiting> wrote, int drop) {
        for (Waiting w : wrote) {
            byId.remove(w.row.id());
        }
        written.addAndGet(wrote.size());
        dropped.addAndGet(drop);
        unwritten.addAndGet(-(wrote.size() + drop));
    }

    private static long chars(CallRecord row) {
        return 256L + length(row.resultJson()) + length(row.payloadJson()) + length(row.diffJson()) + length(row.error())
                + length(row.summary());
    }

    private static int length(String s) {
        return s == null ? 0 : s.length();
    }

    /** A row waiting to be written, and the write rounds the database has refused it. */
    private static final class Waiting {
        final CallRecord row;
        final long chars;
        /** When it was offered ({@link System#nanoTime}): it is written at most {@code within} later. */
        final long at;
        int attempts;

        Waiting(CallRecord row, long chars, long at) {
            this.row = row;
            this.chars = chars;
            this.at = at;
        }
    }
}
