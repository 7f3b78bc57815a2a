package dev.toolgate.tool;

/**
 * Undoes one applied execution of a mutating tool, for rollback.
 *
 * @param <I> the input type
 * @param <O> the result type
 */
@FunctionalInterface
public interface Revert<I, O> {

    /** Reverts the execution that took {@code input} and returned {@code result}. */
    void revert(I input, O result, ToolContext context) throws Exception;
}
