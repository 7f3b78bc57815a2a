package dev.toolgate.tool;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The model's input for a tool is wrong: malformed JSON, a schema violation, or a semantic problem
 * the tool's dry-run found. It carries every issue found, not just the first, and is feedback for the
 * model (see {@link #feedback()}), not an operator error. No state changes when input is rejected by
 * the schema; a dry-run rejection is recorded in the audit trail as {@code invalid}.
 *
 * <p>Tools throw it from a dry-run or an execution with {@link #ToolValidationException(List)}; the gate
 * fills in the tool name.
 */
public class ToolValidationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String toolName;
    private final transient List<ValidationIssue> issues;
    private final String callId;

    /** Issues found by a tool, before the gate knows its name. */
    public ToolValidationException(List<ValidationIssue> issues) {
        this(null, issues);
    }

    /** Convenience for a single issue. */
    public ToolValidationException(String path, String message) {
        this(null, List.of(ValidationIssue.at(path, message)));
    }

    /** Issues for a named tool. */
    public ToolValidationException(String toolName, List<ValidationIssue> issues) {
        this(toolName, issues, null);
    }

    private ToolValidationException(String toolName, List<ValidationIssue> issues, String callId) {
        super(describe(toolName, issues));
        if (issues.isEmpty()) {
            throw new IllegalArgumentException("a validation failure needs at least one issue");
        }
        this.toolName = toolName;
        this.issues = List.copyOf(issues);
        this.callId = callId;
    }

    /**
     * The audit record of this rejection when the gate recorded one (a dry-run's or an execution's
     * rejection, recorded as {@code invalid}); null when the arguments were refused before anything
     * was recorded (malformed, or against the schema).
     */
    public String callId() {
        return callId;
    }

    /** The same exception, naming the audit record that recorded it. */
    public ToolValidationException recordedAs(String callId) {
        return new ToolValidationException(toolName, issues, callId);
    }

    /** The tool, or null if the thrower did not know it. */
    public String toolName() {
        return toolName;
    }

    /** Every issue found. */
    public List<ValidationIssue> issues() {
        return issues;
    }

    /** The same issues attributed to {@code name}. */
    public ToolValidationException forTool(String name) {
        return name.equals(toolName) ? this : new ToolValidationException(name, issues);
    }

    /** The structured feedback for the model. */
    public Feedback feedback() {
        return new Feedback(Feedback.Kind.VALIDATION, toolName == null ? "" : toolName, issues,
                "The call was NOT executed: fix the listed issues and call the tool again.");
    }

    private static String describe(String toolName, List<ValidationIssue> issues) {
        return "Invalid input" + (toolName == null ? "" : " for " + toolName) + ": "
                + issues.stream().map(ValidationIssue::toString).collect(Collectors.joining("; "));
    }
}
