package dev.toolgate.langchain4j;

/**
 * A gate tool name cannot be offered to a chat API: it maps to a function name outside
 * {@code ^[a-zA-Z0-9_-]{1,64}$}, or two gate names map to the same function name. The message names
 * the tool(s) and why.
 */
public class ToolNameException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** @param message what is wrong and with which names */
    public ToolNameException(String message) {
        super(message);
    }
}
