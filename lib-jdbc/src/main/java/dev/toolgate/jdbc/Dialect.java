package dev.toolgate.jdbc;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The few places where H2 and PostgreSQL need different SQL. Everything else is one portable
 * statement used on both. Detected from the connection's metadata.
 */
enum Dialect {

    H2("H2", "h2.sql"),
    POSTGRESQL("PostgreSQL", "postgresql.sql");

    private final String productName;
    private final String script;

    Dialect(String productName, String script) {
        this.productName = productName;
        this.script = script;
    }

    /** The dialect for a JDBC {@code DatabaseMetaData.getDatabaseProductName()}. */
    static Dialect of(String databaseProductName) {
        for (Dialect dialect : values()) {
            if (dialect.productName.equalsIgnoreCase(databaseProductName)) {
                return dialect;
            }
        }
        throw new IllegalStateException("toolgate-jdbc supports H2 and PostgreSQL, not " + databaseProductName);
    }

    /**
     * The database's clock as SQL. PostgreSQL: {@code statement_timestamp()}, when the current
     * statement started (unlike {@code CURRENT_TIMESTAMP}, which is when the transaction started). H2:
     * {@code CURRENT_TIMESTAMP}, fixed for a transaction when it is first read, at the start of the
     * statement that reads it; statements that must read the time after taking a lock are ordered
     * accordingly.
     */
    String currentTimestamp() {
        return this == POSTGRESQL ? "statement_timestamp()" : "CURRENT_TIMESTAMP";
    }

    /** The classpath resource holding this database's schema script. */
    String scriptResource() {
        return "dev/toolgate/jdbc/schema/" + script;
    }

    /** The product name, as the database reports it. */
    String productName() {
        return productName;
    }

    /**
     * Whether a budget admission is one statement (a call of the schema's function
     * {@code toolgate_admit}, which locks the principal and decides inside the database). Otherwise the
     * admission locks the budget row with {@code SELECT ... FOR UPDATE} and decides in Java, in one
     * short transaction.
     */
    boolean admitsInOneStatement() {
        return this == POSTGRESQL;
    }

    /**
     * An {@code INSERT} or {@code UPDATE} made into a query returning {@code columns} of each written
     * row as it is now: PostgreSQL's {@code RETURNING}, H2's data change delta table
     * ({@code FINAL TABLE}), which also returns every row of a multi-row update.
     */
    String returning(String dml, String columns) {
        return this == POSTGRESQL
                ? dml + " RETURNING " + columns
                : "SELECT " + columns + " FROM FINAL TABLE (" + dml + ")";
    }

    /**
     * Inserts a row unless one with the same key exists. PostgreSQL never fails; on H2 a concurrent
     * insert of the same key fails with a unique violation that the caller ignores (H2 then keeps the
     * transaction usable).
     */
    String insertIfAbsent(String table, String keyColumns, String columns, String values) {
        String insert = "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ")";
        return this == POSTGRESQL ? insert + " ON CONFLICT (" + keyColumns + ") DO NOTHING" : insert;
    }

    /** Inserts a row or replaces the non-key columns of the row with the same key, atomically. */
    String upsert(String table, String keyColumns, String columns, String values) {
        if (this == H2) {
            return "MERGE INTO " + table + " (" + columns + ") KEY (" + keyColumns + ") VALUES (" + values + ")";
        }
        List<String> keys = split(keyColumns);
        String updates = split(columns).stream().filter(c -> !keys.contains(c))
                .map(c -> c + " = EXCLUDED." + c).collect(Collectors.joining(", "));
        return "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ") ON CONFLICT (" + keyColumns
                + ") DO UPDATE SET " + updates;
    }

    /**
     * A {@code FROM} item that makes an autocommit {@code UPDATE} commit without waiting for the
     * write-ahead log flush (PostgreSQL's {@code synchronous_commit = off} for that transaction only),
     * or an empty string. Used for budget admissions and the outcomes of applied proposals: a
     * committed write is visible to every other session at once either way, and a database crash can
     * forget only the last fraction of a second of them. Audit rows, proposals and claims are always
     * durable.
     */
    String asynchronousCommitFrom() {
        return this == POSTGRESQL ? " FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit" : "";
    }

    /** SQL run around applying the schema so instances starting together do not race, or null. */
    String schemaLock() {
        return this == POSTGRESQL ? "SELECT pg_advisory_lock(7332216101413920001)" : null;
    }

    /** Releases {@link #schemaLock()}, or null. */
    String schemaUnlock() {
        return this == POSTGRESQL ? "SELECT pg_advisory_unlock(7332216101413920001)" : null;
    }

    private static List<String> split(String columns) {
        return Arrays.stream(columns.split(",")).map(s -> s.trim().toLowerCase(Locale.ROOT)).toList();
    }
}
