package dev.toolgate.springai;

/**
 * A gate tool's qualified name cannot be offered to a chat model: it maps to a name outside
 * {@code ^[a-zA-Z0-9_-]{1,64}$}, or two tools map to the same chat name. The message names the tool(s)
 * and the chat name. Nothing is offered in place of a refused name.
 */
public class ChatToolNameException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** @param message which tool, which chat name, and why */
    public ChatToolNameException(String message) {
        super(message);
    }
}
