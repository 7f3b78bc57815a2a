package dev.toolgate.jdbc;

import dev.toolgate.spi.StoreUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.lang.reflect.Field;
import org.h2.engine.Database;
import org.h2.engine.Session;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The locks that make a session's pending cap exact on an H2 database that lives in this JVM: an
 * embedded file (which H2 lets one process open) or an in-memory database. Every connection to such a
 * database, from any pool or store of the process, is a session of the same H2 {@code Database} object,
 * and every proposer that can reach it runs in this JVM; so a lock of this JVM, keyed by that object
 * and the session, serializes the proposers of one session exactly as the session row's
 * {@code SELECT ... FOR UPDATE} did, without what that lock costs on H2: MVStore writes a row lock
 * into the row, so each proposal dirtied a page of {@code toolgate_session} and took a transaction of
 * three statements; now the proposal is one autocommit insert, made while the lock is held, whose
 * pending count (read in the statement, after the lock) sees every proposal committed by the lock's
 * previous holder.
 *
 * <p>Not used (null from {@link #of}) for H2 reached over TCP ({@code jdbc:h2:tcp:}, {@code ssl:}) or
 * opened with {@code AUTO_SERVER=TRUE}, where proposers in other processes share the database: there the
 * session row's lock stays. A host that serves its embedded database to other processes through an H2
 * TCP server of its own must give those processes no Toolgate store on it (H2 in file mode belongs to
 * one process; use PostgreSQL to share a store).
 *
 * <p>Striped like PostgreSQL's advisory locks of sessions: {@value #STRIPES} locks per database, two
 * sessions whose names share a stripe only wait for each other.
 */
final class LocalSessionLocks {

    private static final Logger LOG = LoggerFactory.getLogger(LocalSessionLocks.class);

    /** Locks per database. */
    static final int STRIPES = 1024;
    /** How long a proposer waits for another proposer of its session before it gives up. */
    static final Duration WAIT = Duration.ofSeconds(30);

    /** Per H2 {@code Database} object (identity; weak, so a closed database's locks go with it). */
    private static final Map<Database, LocalSessionLocks> BY_DATABASE = new WeakHashMap<>();

    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

    private LocalSessionLocks() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    /**
     * The locks of the H2 database behind {@code connection} when it lives in this JVM and no other
     * process can open it; null for any other database.
     */
    static LocalSessionLocks of(Connection connection) {
        Database database;
        try {
            Session session = connection.unwrap(JdbcConnection.class).getSession();
            if (!(session instanceof SessionLocal local)) {
                return null; // reached over TCP: other processes may propose too
            }
            database = local.getDatabase();
        } catch (SQLException | RuntimeException e) {
            return null; // not an H2 connection
        }
        if (!servesNoOtherProcess(database)) {
            return null;
        }
        synchronized (BY_DATABASE) {
            return BY_DATABASE.computeIfAbsent(database, d -> new LocalSessionLocks());
        }
    }

    /**
     * False when the database was opened with {@code AUTO_SERVER=TRUE} (other processes then reach it
     * through a server H2 starts in this one), and when that cannot be told: H2 keeps the mode in a
     * private field of its {@code Database}, read here by reflection; where that fails (another H2
     * version, or a module layer that does not open it) the session row's lock stays, which is exact too.
     */
    static boolean servesNoOtherProcess(Database database) {
        try {
            Field autoServer = Database.class.getDeclaredField("autoServerMode");
            autoServer.setAccessible(true);
            return !autoServer.getBoolean(database);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.debug("Cannot tell whether H2 database {} serves other processes; its sessions keep their row locks",
                    database.getShortName(), e);
            return false;
        }
    }

    /**
     * Runs {@code action} holding the lock of {@code session}, waiting at most {@link #WAIT} for it; the
     * action commits what it writes before it returns.
     *
     * @throws StoreUnavailableException when the lock was not free within {@link #WAIT}, or the thread
     *                                   was interrupted while it waited (its interrupt is kept)
     */
    <T> T withLock(String session, java.util.function.Supplier<T> action) {
        ReentrantLock lock = stripes[stripe(session)];
        try {
            if (!lock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new StoreUnavailableException("A proposal in session " + session + " waited more than "
                        + WAIT.toSeconds() + " s for another proposal of the session to be stored", null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("Interrupted while waiting for another proposal of session " + session
                    + " to be stored", e);
        }
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    /** Whether this thread holds the lock of {@code session} (for assertions and tests). */
    boolean isHeldByCurrentThread(String session) {
        return stripes[stripe(session)].isHeldByCurrentThread();
    }

    private static int stripe(String session) {
        int h = session.hashCode();
        return (h ^ (h >>> 16)) & (STRIPES - 1);
    }
}
