package dev.toolgate.source;

/**
 * A source's tool ran and failed, as the source reports it (a remote tool's error result, a
 * statement the database refused). The gate records the call as {@code failed} with this message,
 * after the source's credentials have been cut out of it.
 */
public class SourceToolException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param message what failed, for the model and the audit; no secret in it */
    public SourceToolException(String message) {
        super(message);
    }
}
