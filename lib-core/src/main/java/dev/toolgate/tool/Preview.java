package dev.toolgate.tool;

import dev.toolgate.json.FieldChange;
import dev.toolgate.json.FieldDiff;
import dev.toolgate.json.Json;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a dry-run found: a one-line summary for the confirm card, optionally a normalized payload to
 * store instead of the model's input, optionally a before/after diff, and what must still hold when the
 * change runs. Immutable.
 *
 * <pre>{@code
 * Incident current = incidents.get(input.id());
 * return Preview.<UpdateIncident>of("Rename incident 42 to \"DB down\"")
 *         .withDiff(current, current.with(input));    // the card's diff; `current` is also the precondition
 * }</pre>
 *
 * <p><b>What is approved is what runs.</b> A preview made from the object's current state is only true
 * while that state holds. {@link #withDiff(Object, Object)} records {@code before} as the proposal's
 * precondition without more code; {@link #withPrecondition(Object)} records one explicitly (a version, an
 * ETag, the state a diff was computed from). Every path that runs the proposal (a token, the inbox or the
 * console, AUTO mode, a standing approval, a durable run's step) runs the dry-run again on the stored
 * payload just before the execution, and refuses the proposal as {@code stale} when the precondition it
 * shows now differs: nothing runs, and the operator and the model are told what changed. Of two proposals
 * made from the same state, only one runs at a time across every instance; the other then finds the state
 * moved. So a dry-run must read the current state each time it runs, and change nothing.
 *
 * @param <I> the tool's input type
 */
public final class Preview<I> {

    private final String summary;
    private final I payload;
    private final List<FieldChange> diff;
    /** {@code before}, from {@link #withDiff(Object, Object)}, or null. */
    private final JsonNode before;
    /** From {@link #withPrecondition(Object)}, or null. */
    private final JsonNode expected;

    private Preview(String summary, I payload, List<FieldChange> diff, JsonNode before, JsonNode expected) {
        if (summary == null || summary.isBlank()) {
            throw new IllegalArgumentException("a preview needs a non-blank summary");
        }
        this.summary = summary;
        this.payload = payload;
        this.diff = List.copyOf(diff);
        this.before = before;
        this.expected = expected;
    }

    /** A preview with just a summary: the validated input is what apply will run. */
    public static <I> Preview<I> of(String summary) {
        return new Preview<>(summary, null, List.of(), null, null);
    }

    /**
     * The same preview storing {@code normalized} instead of the model's input (for example with ids
     * resolved). It must still satisfy the tool's input schema; apply runs exactly this.
     */
    public Preview<I> withPayload(I normalized) {
        return new Preview<>(summary, Objects.requireNonNull(normalized, "normalized"), diff, before, expected);
    }

    /** The same preview with an explicit diff (no precondition is recorded from it). */
    public Preview<I> withDiff(List<FieldChange> changes) {
        return new Preview<>(summary, payload, changes, before, expected);
    }

    /**
     * The same preview with the field diff between two states of the object being changed, both
     * converted to JSON with Toolgate's mapper; {@code before} becomes the proposal's precondition (see
     * the class description), so {@code before} should be the object as it is now, its id included.
     */
    public Preview<I> withDiff(Object before, Object after) {
        JsonNode was = Json.toTree(before);
        return new Preview<>(summary, payload, FieldDiff.between(was, Json.toTree(after)), was, expected);
    }

    /**
     * The same preview with an explicit precondition: a value that must be the same when the change runs
     * as now, such as the object's version or ETag, converted to JSON with Toolgate's mapper. With
     * {@link #withDiff(Object, Object)} both must hold.
     */
    public Preview<I> withPrecondition(Object expected) {
        return new Preview<>(summary, payload, diff, before, Json.toTree(Objects.requireNonNull(expected, "expected")));
    }

    /**
     * What must still hold when the change runs, as JSON: {@code {"before": ..., "expected": ...}} with
     * the parts this preview has, or empty when it has none.
     */
    public Optional<JsonNode> precondition() {
        if (before == null && expected == null) {
            return Optional.empty();
        }
        ObjectNode json = Json.object();
        if (before != null) {
            json.set("before", before);
        }
        if (expected != null) {
            json.set("expected", expected);
        }
        return Optional.of(json);
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
