package dev.toolgate.jdbc;

import java.sql.SQLException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * The structured fields of a PostgreSQL error. A class of its own so that only a store on PostgreSQL
 * loads the driver's exception class (a host on H2 may leave the PostgreSQL driver out); callers
 * check the exception's class name first.
 */
final class PostgresErrors {

    private PostgresErrors() {
    }

    /** The constraint (or unique index) the server reported as violated, or null. */
    static String constraint(SQLException e) {
        if (e instanceof PSQLException psql) {
            ServerErrorMessage message = psql.getServerErrorMessage();
            return message == null ? null : message.getConstraint();
        }
        return null;
    }
}
