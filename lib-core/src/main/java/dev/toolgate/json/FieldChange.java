package dev.toolgate.json;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * One difference between two JSON documents, as listed by {@link FieldDiff#between(JsonNode, JsonNode)}
 * for a confirm card.
 *
 * <p>A JSON {@code null} is a value like any other; a Java {@code null} in {@link #before()} or
 * {@link #after()} means the member is absent on that side.
 *
 * @param path   where the change is, as a JSON Pointer (RFC 6901): {@code ""} for the whole document,
 *               {@code /customer/name} for a nested member, with {@code ~} and {@code /} in keys written
 *               as {@code ~0} and {@code ~1}
 * @param before the value before, or null when the member was added
 * @param after  the value after, or null when the member was removed
 */
public record FieldChange(String path, JsonNode before, JsonNode after) {

    /** What happened at the path. */
    public enum Kind {
        /** The member is new: {@link #before()} is null. */
        ADDED,
        /** The member is gone: {@link #after()} is null. */
        REMOVED,
        /** The value differs: both sides are present. */
        CHANGED
    }

    /**
     * Checks that the path is present and that at least one side is.
     *
     * @param path   where the change is, as a JSON Pointer
     * @param before the value before, or null when the member was added
     * @param after  the value after, or null when the member was removed
     * @throws IllegalArgumentException when both {@code before} and {@code after} are null
     */
    public FieldChange {
        Objects.requireNonNull(path, "path");
        if (before == null && after == null) {
            throw new IllegalArgumentException("a change at '" + path + "' needs a value before or after");
        }
    }

    /**
     * What happened at the path, from which sides are present.
     *
     * @return {@link Kind#ADDED}, {@link Kind#REMOVED} or {@link Kind#CHANGED}
     */
    public Kind kind() {
        if (before == null) {
            return Kind.ADDED;
        }
        return after == null ? Kind.REMOVED : Kind.CHANGED;
    }
}
