package dev.toolgate.gate;

import dev.toolgate.tool.ValidationIssue;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The payload stored at propose time no longer satisfies the tool's current input schema (the tool
 * evolved), or a source's tool would now do something else with it than its proposal showed (an API
 * operation moved to another path). The proposal is not applied; propose again.
 */
public class StaleProposalException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    private final transient List<ValidationIssue> issues;

    public StaleProposalException(String toolName, List<ValidationIssue> issues) {
        super("The stored payload of this " + toolName + " proposal no longer matches the tool's schema: "
                + issues.stream().map(ValidationIssue::toString).collect(Collectors.joining("; ")));
        this.issues = List.copyOf(issues);
    }

    /**
     * A proposal whose call changed since it was proposed.
     *
     * @param toolName the tool
     * @param message  what changed, in full
     * @param issues   the same as issues, at least one
     */
    public StaleProposalException(String toolName, String message, List<ValidationIssue> issues) {
        super(Objects.requireNonNull(message, "message"));
        this.issues = List.copyOf(issues);
    }

    /** What the current schema rejects. */
    public List<ValidationIssue> issues() {
        return issues;
    }

    @Override
    public String code() {
        return "stale_payload";
    }
}
