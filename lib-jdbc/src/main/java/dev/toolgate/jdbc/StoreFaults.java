package dev.toolgate.jdbc;

import dev.toolgate.spi.StoreFault;
import dev.toolgate.spi.StoreUnavailableException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Locale;
import org.jdbi.v3.core.ConnectionException;

/**
 * The one place where a database failure becomes a typed store error: every statement the stores make
 * goes through {@link Db}, which hands each failure here once. A failure of the database (it cannot be
 * reached, is shutting down, did not answer in time, rolled a transaction back in a conflict, accepts
 * only reads, has no space, or its H2 file is locked or corrupt) becomes a {@link StoreUnavailableException}
 * of its {@link StoreFault}; anything else (a constraint violation, a bug in a statement) is returned
 * unchanged for the store to handle as what it is.
 *
 * <p>The message names the kind and what the database said, never a statement's bound values; PostgreSQL
 * SQLStates and H2 error codes are matched, not message texts, except for "no space left" inside an I/O
 * error, which has no code of its own.
 */
final class StoreFaults {

    /** Suggested delays by kind: a conflict clears at once, a restarting database takes a few seconds. */
    static final Duration RETRY_CONFLICT = Duration.ofSeconds(1);
    static final Duration RETRY_BUSY = Duration.ofSeconds(1);
    static final Duration RETRY_DOWN = Duration.ofSeconds(2);

    private static final int MAX_DETAIL = 200;

    private StoreFaults() {
    }

    /**
     * {@code e} as a {@link StoreUnavailableException} if it is a database fault, else {@code e} itself.
     * {@code connectionTimeout} is the pool's wait for a connection (null: the host's data source).
     */
    static RuntimeException classify(RuntimeException e, Duration connectionTimeout) {
        if (e instanceof StoreUnavailableException) {
            return e;
        }
        for (Throwable cause = e; cause != null; cause = next(cause)) {
            if (cause instanceof SocketTimeoutException) { // under the driver's "I/O error" (08006): a silent server
                return unavailable(e, StoreFault.TIMEOUT, "the database did not answer in time (" + detail(cause) + ")");
            }
        }
        for (Throwable cause = e; cause != null; cause = next(cause)) {
            if (cause instanceof SQLTransientConnectionException && isPoolTimeout(cause)) {
                return poolTimeout(e, cause, connectionTimeout);
            }
            if (cause instanceof SQLException sql) {
                StoreFault fault = ofSql(sql);
                if (fault != null) {
                    return unavailable(e, fault, describe(fault, sql));
                }
            }
            if (cause instanceof ConnectException || cause instanceof UnknownHostException) {
                return unavailable(e, StoreFault.UNREACHABLE, "cannot reach the database (" + detail(cause) + ")");
            }
            if (cause instanceof IOException && noSpace(cause)) {
                return unavailable(e, StoreFault.DISK_FULL, "the database has no space left (" + detail(cause) + ")");
            }
        }
        if (e instanceof ConnectionException) {
            return unavailable(e, StoreFault.UNREACHABLE, "cannot open a database connection ("
                    + detail(e.getCause() == null ? e : e.getCause()) + ")");
        }
        return e;
    }

    /**
     * A store that cannot open its database, with {@code message}: of the kind its cause names (an H2
     * file locked by another process, a corrupt file, a full disk), else {@link StoreFault#UNREACHABLE}.
     */
    static StoreUnavailableException cannotOpen(String message, RuntimeException e) {
        RuntimeException classified = classify(e, null);
        if (classified instanceof StoreUnavailableException u) {
            return new StoreUnavailableException(message, e, u.fault(), u.retryAfter().orElse(null));
        }
        return new StoreUnavailableException(message, e, StoreFault.UNREACHABLE, RETRY_DOWN);
    }

    /** The kind of {@code sql}'s failure, or null if it is no fault of the database's availability. */
    static StoreFault ofSql(SQLException sql) {
        String state = sql.getSQLState() == null ? "" : sql.getSQLState();
        int code = sql.getErrorCode();
        // H2 reports its own codes, also as the SQLState
        switch (code) {
            case 90020: // DATABASE_ALREADY_OPEN_1: the file is locked by another process
                return StoreFault.LOCKED;
            case 90030: // FILE_CORRUPTED_1
                return StoreFault.CORRUPT;
            case 90097: // DATABASE_IS_READ_ONLY
                return StoreFault.READ_ONLY;
            case 90100: // NO_DISK_SPACE_AVAILABLE
                return StoreFault.DISK_FULL;
            case 90028: // IO_EXCEPTION_1
            case 90031: // IO_EXCEPTION_2
            case 90098: // DATABASE_IS_CLOSED (after a failed write, H2 closes the file)
                return noSpace(sql) ? StoreFault.DISK_FULL : code == 90098 ? StoreFault.UNREACHABLE : StoreFault.CORRUPT;
            case 90067: // CONNECTION_BROKEN_1
                return StoreFault.UNREACHABLE;
            case 90121: // DATABASE_CALLED_AT_SHUTDOWN
                return StoreFault.SHUTTING_DOWN;
            case 50200: // LOCK_TIMEOUT_1
                return StoreFault.TIMEOUT;
            default:
                break;
        }
        if (sql instanceof SQLTimeoutException) {
            return StoreFault.TIMEOUT;
        }
        if (state.startsWith("08") || sql instanceof SQLNonTransientConnectionException || sql instanceof SQLRecoverableException
                || sql instanceof SQLTransientConnectionException) {
            return StoreFault.UNREACHABLE;
        }
        switch (state) {
            case "57P01": // admin_shutdown
            case "57P02": // crash_shutdown
            case "57P03": // cannot_connect_now (starting up, in recovery)
                return StoreFault.SHUTTING_DOWN;
            case "57014": // query_canceled (statement_timeout)
            case "55P03": // lock_not_available (lock_timeout)
                return StoreFault.TIMEOUT;
            case "40001": // serialization_failure (H2: deadlock)
            case "40P01": // deadlock_detected
                return StoreFault.CONFLICT;
            case "25006": // read_only_sql_transaction (a standby, default_transaction_read_only)
                return StoreFault.READ_ONLY;
            case "53100": // disk_full
                return StoreFault.DISK_FULL;
            case "53200": // out_of_memory
            case "53300": // too_many_connections
            case "53400": // configuration_limit_exceeded
                return StoreFault.BUSY;
            case "58030": // io_error
                return noSpace(sql) ? StoreFault.DISK_FULL : StoreFault.CORRUPT;
            default:
                return null;
        }
    }

    private static StoreUnavailableException unavailable(RuntimeException e, StoreFault fault, String what) {
        Duration retry = switch (fault) {
            case CONFLICT -> RETRY_CONFLICT;
            case BUSY -> RETRY_BUSY;
            default -> RETRY_DOWN;
        };
        return new StoreUnavailableException("Toolgate store unavailable: " + what, e, fault, retry);
    }

    private static String describe(StoreFault fault, SQLException sql) {
        String said = detail(sql);
        return switch (fault) {
            case UNREACHABLE -> "the database connection failed (" + said + ")";
            case SHUTTING_DOWN -> "the database is shutting down or starting (" + said + ")";
            case TIMEOUT -> "the database did not answer in time (" + said + ")";
            case CONFLICT -> "the database rolled the transaction back in a conflict (" + said + ")";
            case READ_ONLY -> "the database accepts only reads (" + said + ")";
            case DISK_FULL -> "the database has no space left (" + said + ")";
            case LOCKED -> "the database file is locked by another process (" + said + ")";
            case CORRUPT -> "the database file cannot be read (" + said + ")";
            case BUSY -> "the database has no room for this connection or statement (" + said + ")";
            case IN_DOUBT -> "the outcome of a write is unknown (" + said + ")";
        };
    }

    /**
     * HikariCP's "request timed out" when no connection became free in time; its cause, if any, is the
     * last failure to open a connection (the database down, rather than a pool busy).
     */
    private static boolean isPoolTimeout(Throwable cause) {
        return cause.getMessage() != null && cause.getMessage().contains("request timed out");
    }

    private static StoreUnavailableException poolTimeout(RuntimeException e, Throwable timeout, Duration connectionTimeout) {
        String within = "no connection within " + describe(connectionTimeout) + " (pool exhausted or database down)";
        for (Throwable cause = timeout.getCause(); cause != null; cause = next(cause)) {
            StoreFault fault = cause instanceof SQLException sql ? ofSql(sql) : null;
            if (fault != null || cause instanceof ConnectException || cause instanceof SocketTimeoutException) {
                StoreFault kind = fault != null ? fault : cause instanceof ConnectException ? StoreFault.UNREACHABLE
                        : StoreFault.TIMEOUT;
                return unavailable(e, kind, within + "; last connection failure: " + detail(cause));
            }
        }
        return unavailable(e, StoreFault.BUSY, within);
    }

    private static boolean noSpace(Throwable e) {
        for (Throwable t = e; t != null; t = next(t)) {
            String message = t.getMessage();
            if (message != null && message.toLowerCase(Locale.ROOT).contains("no space left")) {
                return true;
            }
        }
        return false;
    }

    private static Throwable next(Throwable t) {
        Throwable cause = t.getCause();
        if (cause == null && t instanceof SQLException sql) {
            cause = sql.getNextException();
        }
        return cause == t ? null : cause;
    }

    /** A failure's own message, first line only and capped: what the database said, never bound values. */
    static String detail(Throwable t) {
        String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        int newline = message.indexOf('\n');
        if (newline >= 0) {
            message = message.substring(0, newline);
        }
        return message.length() > MAX_DETAIL ? message.substring(0, MAX_DETAIL) + "..." : message;
    }

    static String describe(Duration timeout) {
        if (timeout == null) {
            return "the data source's timeout";
        }
        long millis = timeout.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }
}
