package dev.toolgate.tool;

/**
 * The call's client cannot be asked: it is not an MCP client, it did not declare the capability
 * ({@code sampling}, {@code elicitation}), the tool is in a dry-run, or the call has already returned.
 * Nothing was sent.
 */
public class ClientInteractionUnsupportedException extends ClientInteractionException {

    private static final long serialVersionUID = 1L;

    private final String reason;

    /**
     * @param interaction {@code sampling} or {@code elicitation}
     * @param reason      why the client cannot be asked
     */
    public ClientInteractionUnsupportedException(String interaction, String reason) {
        super(interaction, interaction + " is not available: " + reason);
        this.reason = reason;
    }

    /** Why the client cannot be asked. */
    public String reason() {
        return reason;
    }
}
