package dev.toolgate.tool;

/**
 * The body of a tool: turns a validated, typed input into a result.
 *
 * @param <I> the input type
 * @param <O> the result type; serialized to JSON with the gate's mapper
 */
@FunctionalInterface
public interface ToolFunction<I, O> {

    /**
     * Runs the tool. Throw {@link ToolValidationException} when the input is semantically invalid;
     * any other exception is recorded as a failure (with secrets redacted from its message).
     */
    O apply(I input, ToolContext context) throws Exception;
}
