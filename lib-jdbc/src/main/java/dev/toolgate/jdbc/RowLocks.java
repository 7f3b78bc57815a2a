package dev.toolgate.jdbc;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * Per-key locks as rows of a one-key table ({@code toolgate_budget} per principal,
 * {@code toolgate_session} per session): {@code SELECT ... FOR UPDATE} on the key's row, as a statement
 * of its own, so that under READ COMMITTED every later statement of the transaction sees everything
 * committed by the previous holder. A missing row is created first; two instances creating it at once
 * is fine. Rows are deleted only by {@link Purges}, which holds the row's lock while it does.
 */
final class RowLocks {

    /** Creations before giving up; each retry means a purge deleted the row again in between. */
    private static final int MAX_ATTEMPTS = 50;

    private final String table;
    private final String select;
    private final String create;

    RowLocks(Dialect dialect, String table, String keyColumn) {
        this.table = table;
        this.select = "SELECT " + keyColumn + " FROM " + table + " WHERE " + keyColumn + " = :key FOR UPDATE";
        this.create = dialect.insertIfAbsent(table, keyColumn, keyColumn, ":key");
    }

    /**
     * Locks the row of {@code key} until the transaction open on {@code handle} ends. A row that a
     * purge deletes while this waits for its lock reads as missing and is created again; so is one that
     * another connection created and a purge deleted between our insert attempt and our lock.
     */
    void lock(Handle handle, String key) {
        for (int attempt = 1; handle.createQuery(select).bind("key", key).mapTo(String.class).findOne().isEmpty(); attempt++) {
            if (attempt > MAX_ATTEMPTS) {
                throw new IllegalStateException("the " + table + " row of " + key + " vanished " + MAX_ATTEMPTS
                        + " times while being locked");
            }
            create(handle, key);
        }
    }

    /** Inserts the row of {@code key} if it is missing. */
    void create(Handle handle, String key) {
        try {
            handle.createUpdate(create).bind("key", key).execute();
        } catch (UnableToExecuteStatementException e) {
            if (!Db.isUniqueViolation(e)) { // H2 reports a concurrent insert of the same key; the row exists now
                throw e;
            }
        }
    }
}
