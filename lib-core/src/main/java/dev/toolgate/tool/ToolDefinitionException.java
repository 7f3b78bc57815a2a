package dev.toolgate.tool;

/**
 * A tool or a provider is defined wrongly: a missing effect or description, a bad or duplicate name,
 * an input type that is not a JSON object. Thrown when a tool is built or registered, so a broken
 * plugin fails at boot rather than when a model first calls it.
 */
public class ToolDefinitionException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ToolDefinitionException(String message) {
        super(message);
    }

    public ToolDefinitionException(String message, Throwable cause) {
        super(message, cause);
    }
}
