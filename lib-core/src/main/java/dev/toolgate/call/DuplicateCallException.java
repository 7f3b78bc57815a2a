package dev.toolgate.call;

import dev.toolgate.tool.Feedback;
import java.util.List;

/**
 * The same tool with the same arguments already succeeded in this {@link Turn}; the call was not
 * admitted. Feedback for the model, like a validation failure.
 */
public class DuplicateCallException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String toolName;

    public DuplicateCallException(String toolName) {
        super("Duplicate call: " + toolName + " already succeeded with these arguments in this turn");
        this.toolName = toolName;
    }

    /** The tool. */
    public String toolName() {
        return toolName;
    }

    /** The structured feedback for the model. */
    public Feedback feedback() {
        return new Feedback(Feedback.Kind.DUPLICATE, toolName, List.of(),
                "This exact call already succeeded in this turn; use its result instead of calling again.");
    }
}
