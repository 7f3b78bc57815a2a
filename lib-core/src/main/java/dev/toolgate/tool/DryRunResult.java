package dev.toolgate.tool;

import dev.toolgate.json.FieldChange;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * A dry-run's outcome in JSON form, as the gate stores it in a proposal.
 *
 * @param summary      the human-readable summary
 * @param payload      the validated payload apply will execute (the model's input, or the dry-run's
 *                     normalized payload)
 * @param diff         the before/after changes, possibly empty
 * @param precondition what must still hold when the change runs ({@link Preview#precondition()}), or null
 */
public record DryRunResult(String summary, JsonNode payload, List<FieldChange> diff, JsonNode precondition) {

    /** Checks the components; see the class description for what each must hold. */
    public DryRunResult {
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(payload, "payload");
        diff = List.copyOf(diff);
    }

    /** A result without a precondition. */
    public DryRunResult(String summary, JsonNode payload, List<FieldChange> diff) {
        this(summary, payload, diff, null);
    }
}
