package dev.toolgate.jdbc;

import dev.toolgate.spi.StoreUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link JdbcStore} checks and sets on the database when it opens: which database it is, that a
 * host's connections behave like the store's own pool's, and that an H2 file writes each commit at once.
 */
final class JdbcOpenChecks {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcStore.class);

    private JdbcOpenChecks() {
    }

    /**
     * H2 writes committed changes to its file in the background, up to {@code WRITE_DELAY} ms later
     * (500 by default): a process killed in between loses them, a claim too, and a lost claim lets
     * its token be applied again, running a mutation twice (H2CrashTest saw exactly this). With
     * {@code WRITE_DELAY 0} every commit is written to the file before it returns, so it survives
     * the process (not a power loss: H2 does not sync on commit). The setting belongs to the
     * database; it is set at every start of a file database (in-memory ones have no file), and
     * needs admin rights: without them the store starts with a warning.
     */
    static void writeCommitsAtOnce(Handle h) {
        if (h.createQuery("SELECT DATABASE_PATH()").mapTo(String.class).findOne().isEmpty()) {
            return;
        }
        try {
            h.execute("SET WRITE_DELAY 0");
        } catch (StatementException e) {
            LOG.warn("Cannot set this H2 database's WRITE_DELAY to 0 ({}): a crash of this process can lose its"
                    + " last commits, claims of applied proposals included, so a proposal could be applied twice;"
                    + " run SET WRITE_DELAY 0 as an admin of the database", e.getShortMessage());
        }
    }

    static Dialect detect(Connection connection) {
        try {
            return Dialect.of(connection.getMetaData().getDatabaseProductName());
        } catch (SQLException e) {
            throw new StoreUnavailableException("Toolgate store unavailable: cannot read the database metadata", e);
        }
    }

    /** A host's connections must behave like the store's own pool's: autocommit, READ COMMITTED. */
    static void requireDefaults(Connection connection) {
        try {
            if (!connection.getAutoCommit()) {
                throw new IllegalStateException("The data source passed to JdbcStore hands out connections with"
                        + " autocommit off; Toolgate needs autocommit on (it opens its own short transactions)");
            }
            if (connection.getTransactionIsolation() != Connection.TRANSACTION_READ_COMMITTED) {
                throw new IllegalStateException("The data source passed to JdbcStore hands out connections with"
                        + " isolation level " + connection.getTransactionIsolation() + "; Toolgate needs READ COMMITTED ("
                        + Connection.TRANSACTION_READ_COMMITTED + "), the default of H2 and PostgreSQL");
            }
        } catch (SQLException e) {
            throw new StoreUnavailableException("Toolgate store unavailable: cannot inspect a connection", e);
        }
    }
}
