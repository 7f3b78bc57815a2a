package dev.toolgate.tool;

/**
 * The dry-run of a mutating tool: validates the model's draft against live state and describes what
 * applying it would do, without changing anything.
 *
 * <p>A draft that is well-formed but semantically wrong (an unknown id, a reference that does not
 * resolve) is reported by throwing {@link ToolValidationException} with structured issues: that is
 * feedback the model uses to correct its draft, not an error for the operator.
 *
 * @param <I> the input type
 */
@FunctionalInterface
public interface DryRun<I> {

    /** Validates {@code input} and previews its effect. Must not mutate anything. */
    Preview<I> preview(I input, ToolContext context) throws Exception;
}
