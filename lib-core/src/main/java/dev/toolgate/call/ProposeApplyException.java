package dev.toolgate.call;

/**
 * A transport, authorization or lifecycle fault of the gate: unknown tool, forbidden, a malformed,
 * unknown, forged, expired or used token, a closed or stale proposal, a full pending queue. These are
 * genuine errors, unlike {@link dev.toolgate.tool.ToolValidationException}, which is feedback for the
 * model. None of them changes state. {@link #code()} is a stable machine-readable name.
 */
public abstract class ProposeApplyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    protected ProposeApplyException(String message) {
        super(message);
    }

    /** A stable snake_case code, such as {@code already_used}. */
    public abstract String code();
}
