package dev.toolgate.spi;

/**
 * What kind of store failure a {@link StoreUnavailableException} reports, so that a caller can tell
 * "try again shortly" from "an operator must act" and from "the outcome is unknown". Each kind says
 * whether retrying the same request later may succeed ({@link #transientFault()}).
 */
public enum StoreFault {

    /** The database cannot be reached, or a connection to it was lost. Transient. */
    UNREACHABLE(true),
    /** The database is shutting down, restarting or in recovery (PostgreSQL 57P01-57P03). Transient. */
    SHUTTING_DOWN(true),
    /** No connection was free in time (the pool is exhausted or the database is slow to accept). Transient. */
    BUSY(true),
    /** The database did not answer in time (a statement, socket or lock timeout). Transient. */
    TIMEOUT(true),
    /** A serialization failure or a deadlock: the database rolled the transaction back. Transient. */
    CONFLICT(true),
    /** The database accepts only reads (a standby, or a read-only transaction mode). */
    READ_ONLY(false),
    /** The database has no space left to write (a full disk, or a quota). */
    DISK_FULL(false),
    /** The database file is locked by another process (H2). */
    LOCKED(false),
    /** The database file is corrupt or cannot be read (H2). */
    CORRUPT(false),
    /**
     * The connection failed while a write was in flight whose effect cannot be known: it may or may not
     * have committed. Never retried by the store: a claimed call whose outcome was not recorded is in
     * doubt and ends {@code interrupted} for an operator to resolve; it is never applied twice.
     */
    IN_DOUBT(false);

    private final boolean transientFault;

    StoreFault(boolean transientFault) {
        this.transientFault = transientFault;
    }

    /** True if the same request may succeed when retried after a short delay, without an operator. */
    public boolean transientFault() {
        return transientFault;
    }
}
