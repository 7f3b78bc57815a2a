package dev.toolgate.call;

/**
 * A tool's source (a remote MCP server, a database) could not be reached, or its credentials could
 * not be resolved. A call that reached the gate is recorded as {@code failed} with this message and
 * {@link #callId()} names the record; a call of a source that never listed its tools is refused
 * before anything is recorded, with a null call id.
 */
public class SourceUnavailableException extends ToolExecutionException {

    private static final long serialVersionUID = 1L;

    private final String sourceId;

    /**
     * @param callId   the failed call's record, or null when nothing was recorded
     * @param toolName the tool called
     * @param sourceId the source, such as {@code mcp:github}
     * @param message  what failed, with no secret in it
     */
    public SourceUnavailableException(String callId, String toolName, String sourceId, String message) {
        super(callId, toolName, message, false);
        this.sourceId = sourceId;
    }

    /** The source that could not be reached, such as {@code mcp:github}. */
    public String sourceId() {
        return sourceId;
    }
}
