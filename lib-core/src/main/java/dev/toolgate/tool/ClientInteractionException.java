package dev.toolgate.tool;

/**
 * A request from a tool to its client ({@link ClientChannel#sample sampling} or
 * {@link ClientChannel#elicit elicitation}) failed: the client answered with an error, refused, or did
 * not answer in time. Nothing was asked of the user twice; the tool decides what to do.
 */
public class ClientInteractionException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String interaction;

    /**
     * @param interaction {@code sampling} or {@code elicitation}
     * @param message     what went wrong
     */
    public ClientInteractionException(String interaction, String message) {
        super(message);
        this.interaction = interaction;
    }

    /**
     * @param interaction {@code sampling} or {@code elicitation}
     * @param message     what went wrong
     * @param cause       the underlying failure
     */
    public ClientInteractionException(String interaction, String message, Throwable cause) {
        super(message, cause);
        this.interaction = interaction;
    }

    /** {@code sampling} or {@code elicitation}. */
    public String interaction() {
        return interaction;
    }
}
