package dev.toolgate.call;

/**
 * The tool's code failed or timed out. The call is recorded as {@code failed} with the (redacted)
 * message; this exception's message is what a model may read, so it carries no Java class name
 * ({@link dev.toolgate.json.ModelText}; the audit record keeps the type). The original exception is
 * logged by the gate, never returned, because it may carry secrets.
 */
public class ToolExecutionException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String callId;
    private final String toolName;
    private final boolean timedOut;

    /** A failure of {@code toolName}'s call {@code callId} (null if none was recorded), said by {@code message}. */
    public ToolExecutionException(String callId, String toolName, String message, boolean timedOut) {
        super(dev.toolgate.json.ModelText.withoutClassNames(message));
        this.callId = callId;
        this.toolName = toolName;
        this.timedOut = timedOut;
    }

    /** The failed call's audit record id. */
    public String callId() {
        return callId;
    }

    /** The tool. */
    public String toolName() {
        return toolName;
    }

    /** True if the tool exceeded its timeout. */
    public boolean timedOut() {
        return timedOut;
    }
}
