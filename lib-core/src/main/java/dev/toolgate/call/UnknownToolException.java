package dev.toolgate.call;

/**
 * No tool with that name is registered. A tool the principal may not see is reported as
 * {@link ForbiddenException} by the gate; transports that must not reveal hidden tools (MCP) map
 * both to the same "unknown tool" error.
 */
public class UnknownToolException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    private final String toolName;

    public UnknownToolException(String toolName) {
        super("Unknown tool: " + toolName);
        this.toolName = toolName;
    }

    /** The name that was asked for. */
    public String toolName() {
        return toolName;
    }

    @Override
    public String code() {
        return "unknown_tool";
    }
}
