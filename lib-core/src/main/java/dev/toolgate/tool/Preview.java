package dev.toolgate.tool;

import dev.toolgate.json.FieldChange;
import dev.toolgate.json.FieldDiff;
import dev.toolgate.json.Json;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a dry-run found: a one-line summary for the confirm card, optionally a normalized payload to
 * store instead of the model's input, and optionally a before/after diff. Immutable.
 *
 * <pre>{@code
 * return Preview.<UpdateIncident>of("Rename incident 42 to \"DB down\"")
 *         .withDiff(current, current.with(input));
 * }</pre>
 *
 * @param <I> the tool's input type
 */
public final class Preview<I> {

    private final String summary;
    private final I payload;
    private final List<FieldChange> diff;

    private Preview(String summary, I payload, List<FieldChange> diff) {
        if (summary == null || summary.isBlank()) {
            throw new IllegalArgumentException("a preview needs a non-blank summary");
        }
        this.summary = summary;
        this.payload = payload;
        this.diff = List.copyOf(diff);
    }

    /** A preview with just a summary: the validated input is what apply will run. */
    public static <I> Preview<I> of(String summary) {
        return new Preview<>(summary, null, List.of());
    }

    /**
     * The same preview storing {@code normalized} instead of the model's input (for example with ids
     * resolved). It must still satisfy the tool's input schema; apply runs exactly this.
     */
    public Preview<I> withPayload(I normalized) {
        return new Preview<>(summary, Objects.requireNonNull(normalized, "normalized"), diff);
    }

    /** The same preview with an explicit diff. */
    public Preview<I> withDiff(List<FieldChange> changes) {
        return new Preview<>(summary, payload, changes);
    }

    /**
     * The same preview with the field diff between two states of the object being changed, both
     * converted to JSON with Toolgate's mapper.
     */
    public Preview<I> withDiff(Object before, Object after) {
        return withDiff(FieldDiff.between(Json.toTree(before), Json.toTree(after)));
    }

    /** The summary line. */
    public String summary() {
        return summary;
    }

    /** The normalized payload, if the dry-run supplied one. */
    public Optional<I> payload() {
        return Optional.ofNullable(payload);
    }

    /** The before/after changes; empty for a create or when not computed. */
    public List<FieldChange> diff() {
        return diff;
    }
}
