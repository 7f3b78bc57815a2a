package dev.toolgate.call;

import dev.toolgate.json.FieldChange;
import dev.toolgate.tool.ValidationIssue;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What was approved is no longer what would run, so nothing ran; propose again from the current state.
 * Either the state the proposal's preview was made from no longer holds ({@link #changes()}: the object
 * changed since, fields before-at-proposal and now, redacted; or another change made from the same state
 * was being applied), and the proposal is closed as {@code stale} ({@link #code()} {@code stale}); or
 * the payload stored at propose time no longer satisfies the tool's current input schema (the tool
 * evolved), or a source's tool would now do something else with it than its proposal showed (an API
 * operation moved to another path), and the proposal stays as it was ({@code stale_payload}).
 */
public class StaleProposalException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    private final transient List<ValidationIssue> issues;
    private final transient List<FieldChange> changes;
    private final boolean precondition;

    public StaleProposalException(String toolName, List<ValidationIssue> issues) {
        super("The stored payload of this " + toolName + " proposal no longer matches the tool's schema: "
                + issues.stream().map(ValidationIssue::toString).collect(Collectors.joining("; ")));
        this.issues = List.copyOf(issues);
        this.changes = List.of();
        this.precondition = false;
    }

    private StaleProposalException(String message, List<FieldChange> changes, boolean precondition) {
        super(Objects.requireNonNull(message, "message"));
        this.issues = List.of(ValidationIssue.at("", "the state this proposal was made from has changed"));
        this.changes = List.copyOf(changes);
        this.precondition = precondition;
    }

    /**
     * A proposal whose precondition no longer holds: it was closed as stale and nothing ran.
     *
     * @param message what changed, in full (redacted)
     * @param changes the fields that changed since the proposal, before-at-proposal and now (redacted);
     *                empty when another change made from the same state was being applied
     */
    public static StaleProposalException preconditionChanged(String message, List<FieldChange> changes) {
        return new StaleProposalException(message, changes, true);
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
        this.changes = List.of();
        this.precondition = false;
    }

    /** What the current schema rejects, or for a precondition, that the state changed. */
    public List<ValidationIssue> issues() {
        return issues;
    }

    /** For a changed precondition: the fields that changed since the proposal (redacted); else empty. */
    public List<FieldChange> changes() {
        return changes;
    }

    /** True when the proposal's precondition no longer held and it was closed as {@code stale}. */
    public boolean preconditionChanged() {
        return precondition;
    }

    @Override
    public String code() {
        return precondition ? "stale" : "stale_payload";
    }
}
