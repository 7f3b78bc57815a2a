package dev.toolgate.spi;

/**
 * The store cannot be reached or has no free connection in time. The gate fails closed: a call whose
 * admission or outcome cannot be recorded does not run, and the caller gets this error.
 */
public class StoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
