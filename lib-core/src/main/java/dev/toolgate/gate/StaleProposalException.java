package dev.toolgate.gate;

import dev.toolgate.tool.ValidationIssue;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The payload stored at propose time no longer satisfies the tool's current input schema (the tool
 * evolved). The proposal is not applied; propose again against the new schema.
 */
public class StaleProposalException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    private final transient List<ValidationIssue> issues;

    public StaleProposalException(String toolName, List<ValidationIssue> issues) {
        super("The stored payload of this " + toolName + " proposal no longer matches the tool's schema: "
                + issues.stream().map(ValidationIssue::toString).collect(Collectors.joining("; ")));
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
