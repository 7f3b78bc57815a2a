package dev.toolgate.jdbc;

import dev.toolgate.spi.StoreFault;
import dev.toolgate.spi.StoreUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.argument.Argument;
import org.jdbi.v3.core.statement.StatementExceptions;
import org.jdbi.v3.core.statement.SqlStatements;
import org.jdbi.v3.core.statement.TemplateEngine;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The database as the stores see it: JDBI handles with connection failures translated to
 * {@link StoreUnavailableException}, the dialect, and the one time source.
 *
 * <p><b>Time:</b> every statement that needs the current time uses {@link #nowSql()}: the bound
 * parameter {@code :now} when a {@link Clock} was injected, else the database's clock
 * ({@link Dialect#currentTimestamp()}). So by default every timestamp, expiry check and budget window
 * uses the database's clock, which all instances share, and an injected clock replaces it everywhere
 * at once. One statement always sees one "now".
 */
final class Db {

    private static final Argument NULL_TIMESTAMP = (position, statement, context) ->
            statement.setNull(position, Types.TIMESTAMP_WITH_TIMEZONE);

    private final Jdbi jdbi;
    private final DataSource dataSource;
    private final Dialect dialect;
    private final String nowSql;
    private final Clock clock;
    private final DatabaseClock estimate;
    private final Duration connectionTimeout;
    private final StoreOutage outage;
    private volatile boolean closed;

    Db(Jdbi jdbi, DataSource dataSource, Dialect dialect, Clock clock, Duration connectionTimeout) {
        this.jdbi = jdbi;
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.nowSql = "COALESCE(CAST(:now AS TIMESTAMP WITH TIME ZONE), " + dialect.currentTimestamp() + ")";
        this.clock = clock;
        this.estimate = new DatabaseClock(clock, this::currentTime);
        this.connectionTimeout = connectionTimeout;
        this.outage = new StoreOutage("The Toolgate store",
                (connectionTimeout == null ? Duration.ofSeconds(5) : connectionTimeout).plusSeconds(1));
    }

    /** A JDBI instance configured the way every store statement expects. */
    static Jdbi jdbi(javax.sql.DataSource dataSource) {
        Jdbi jdbi = Jdbi.create(dataSource);
        jdbi.getConfig(SqlStatements.class).setTemplateEngine(TemplateEngine.NOP).setUnusedBindingAllowed(true);
        // never render bound values (payloads, results) into exception messages or logs
        jdbi.getConfig(StatementExceptions.class).setMessageRendering(StatementExceptions.MessageRendering.SHORT_STATEMENT);
        return jdbi;
    }

    Dialect dialect() {
        return dialect;
    }

    /** SQL for the current time; statements using it bind {@link #now()} as {@code :now}. */
    String nowSql() {
        return nowSql;
    }

    /** Runs {@code callback} on a handle in autocommit mode (each statement commits by itself). */
    <R> R withHandle(HandleCallback<R, RuntimeException> callback) {
        ensureOpen();
        long began = outage.began();
        try {
            return ok(began, jdbi.withHandle(callback));
        } catch (JdbiException e) {
            throw translate(e);
        }
    }

    /**
     * Runs {@code callback} on a pooled connection in autocommit mode, without a JDBI handle: for the
     * {@link PlainSql} statements every governed call makes, where a handle's set-up is measurable.
     */
    <R> R withConnection(ConnectionCallback<R> callback) {
        ensureOpen();
        long began = outage.began();
        R result;
        try (Connection connection = dataSource.getConnection()) {
            result = callback.withConnection(connection);
        } catch (SQLException e) {
            throw translate(new UnableToExecuteStatementException("cannot use a connection: " + e.getMessage(), e, null));
        } catch (JdbiException e) {
            throw translate(e);
        }
        return ok(began, result);
    }

    /** Work on one connection. */
    @FunctionalInterface
    interface ConnectionCallback<R> {
        R withConnection(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code callback} in one transaction (READ COMMITTED), rolled back if it throws. A transaction
     * the database rolled back in a conflict (a deadlock, a serialization failure: nothing of it
     * committed) runs again, up to {@value #CONFLICT_RETRIES} more times; no other failure is retried,
     * since a connection lost mid-transaction may have lost it before or after its commit.
     */
    <R> R inTransaction(HandleCallback<R, RuntimeException> callback) {
        ensureOpen();
        long began = outage.began();
        for (int attempt = 0; ; attempt++) {
            try {
                return ok(began, jdbi.inTransaction(callback));
            } catch (JdbiException e) {
                RuntimeException translated = StoreFaults.classify(e, connectionTimeout);
                if (attempt < CONFLICT_RETRIES && translated instanceof StoreUnavailableException u
                        && u.fault() == StoreFault.CONFLICT) {
                    continue;
                }
                throw refused(translated);
            }
        }
    }

    /** Times a transaction rolled back in a conflict is run again. */
    static final int CONFLICT_RETRIES = 2;

    private <R> R ok(long began, R result) {
        if (outage.isDown()) {
            outage.succeeded(began);
        }
        return result;
    }

    private RuntimeException refused(RuntimeException translated) {
        if (translated instanceof StoreUnavailableException u) {
            outage.refused(u);
            if (LostConnections.lost(u.fault())) {
                evictPooledConnections();
            }
        }
        return translated;
    }

    /**
     * At each refusal that cost the pool its connections (the database went away, restarted, or stopped
     * answering), retires every pooled connection: idle ones at once, busy ones when they come back.
     * Without it each stale connection would fail one more call after the database is back, and every
     * such failure would start a new outage in the log; with it the pool opens fresh connections. HikariCP
     * is told not to drop such connections itself ({@link LostConnections}), which it would do with a WARN
     * and a stack trace for each.
     * Never on a full disk: an embedded H2 file whose write failed still holds its last commits in memory,
     * and closing its connections then would close the database without them (H2FaultTest saw an
     * acknowledged call lost that way); the open database writes them once there is room.
     */
    private void evictPooledConnections() {
        if (dataSource instanceof com.zaxxer.hikari.HikariDataSource pool && !pool.isClosed()) {
            try {
                var bean = pool.getHikariPoolMXBean();
                if (bean != null) {
                    bean.softEvictConnections();
                }
            } catch (RuntimeException e) {
                // the pool is closing; nothing to retire
            }
        }
    }

    /** The outage log of this store (for tests). */
    StoreOutage outage() {
        return outage;
    }

    /** The value to bind as {@code :now}: the injected clock's instant, or null for the database clock. */
    Argument now() {
        return clock == null ? NULL_TIMESTAMP : timestamp(clock.instant());
    }

    /** The injected clock, or null when the database's clock is the store's. */
    Clock clock() {
        return clock;
    }

    /** {@link #now()} for {@link PlainSql}: the injected clock's instant, or null for the database clock. */
    Instant clockInstant() {
        return clock == null ? null : clock.instant();
    }

    /**
     * The store's time as this instance estimates it, to the microsecond, for rows whose times only
     * record when something happened: see {@link DatabaseClock}. The injected clock's time if there is one.
     */
    Instant estimatedTime() {
        return estimate.now();
    }

    /** Reads the database clock again if the estimate's last reading is a second old: off a caller's path. */
    void refreshEstimate() {
        estimate.refreshIfStale();
    }

    /** The store's current time: the injected clock's, or the database's. */
    Instant currentTime() {
        if (clock != null) {
            return clock.instant();
        }
        return withHandle(h -> h.createQuery("SELECT " + dialect.currentTimestamp()).map((rs, ctx) -> instant(rs, 1)).one());
    }

    void markClosed() {
        closed = true;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("The Toolgate JDBC store is closed");
        }
    }

    /**
     * SQL for the timestamp {@code :param} microseconds after the epoch: binding a time as a number
     * is cheaper than as a timestamp, which the driver formats as text and the database parses (on
     * PostgreSQL about 6 µs of a call per timestamp, measured with plain JDBC).
     */
    static String fromEpochMicros(String param) {
        return "(" + plusMicros("TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00'", '+', param) + ")";
    }

    /** {@code instant} in whole microseconds since the epoch (earlier digits truncated, as the databases store it). */
    static long epochMicros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
    }

    /** {@code duration} in whole microseconds, the databases' timestamp precision. */
    static long micros(Duration duration) {
        return duration.getSeconds() * 1_000_000L + duration.getNano() / 1_000;
    }

    /** SQL for {@code timestamp} plus (or minus) the microseconds bound as {@code :param}, portable to H2 and PostgreSQL. */
    static String plusMicros(String timestamp, char sign, String param) {
        return timestamp + " " + sign + " CAST(:" + param + " AS BIGINT) * INTERVAL '0.000001' SECOND";
    }

    /** A timestamp argument (null binds SQL NULL). */
    static Argument timestamp(Instant instant) {
        if (instant == null) {
            return NULL_TIMESTAMP;
        }
        OffsetDateTime value = OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
        return (position, statement, context) -> statement.setObject(position, value);
    }

    /** A {@code TIMESTAMP WITH TIME ZONE} column as an instant, or null. */
    static Instant instant(java.sql.ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    static Instant instant(java.sql.ResultSet rs, int column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** True if {@code e} is a unique-key violation (SQLState 23505 on both databases). */
    static boolean isUniqueViolation(UnableToExecuteStatementException e) {
        return sqlState(e).filter("23505"::equals).isPresent();
    }

    /**
     * True if {@code e} is a unique-key violation of the index {@code index} (a {@code CREATE UNIQUE
     * INDEX} of the schema), told apart from violations of other keys by the index's name: on
     * PostgreSQL the constraint the server reports ({@code ServerErrorMessage.getConstraint()}), on H2
     * the index named in the message, where H2 describes the index as
     * {@code "PUBLIC.<INDEX> ON PUBLIC.<TABLE>(...)"} (H2 has no structured field for it).
     */
    static boolean violates(RuntimeException e, String index) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && "23505".equals(sql.getSQLState())) {
                if (sql.getClass().getName().equals("org.postgresql.util.PSQLException")) {
                    return index.equalsIgnoreCase(PostgresErrors.constraint(sql));
                }
                String message = sql.getMessage();
                return message != null && Pattern.compile("(?i)\\b" + Pattern.quote(index) + "\\s+ON\\b").matcher(message).find();
            }
        }
        return false;
    }

    private static Optional<String> sqlState(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                return Optional.of(sql.getSQLState());
            }
        }
        return Optional.empty();
    }

    /**
     * A database fault as {@link StoreUnavailableException} ({@link StoreFaults}), noted in the outage
     * log; anything else unchanged.
     */
    RuntimeException translate(RuntimeException e) {
        return refused(StoreFaults.classify(e, connectionTimeout));
    }

    /** {@link StoreFaults#classify}, for failures outside a store's operations (its start). */
    static RuntimeException translate(RuntimeException e, Duration connectionTimeout) {
        return StoreFaults.classify(e, connectionTimeout);
    }
}
