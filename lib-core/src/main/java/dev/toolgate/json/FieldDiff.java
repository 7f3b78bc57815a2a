package dev.toolgate.json;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The before/after field differences between two JSON documents, for the confirm card a person reviews
 * before a mutation is applied.
 *
 * <p>Objects are compared member by member, recursively, in sorted key order so the list is
 * deterministic. Everything else is compared as a whole value: a changed array is one change at the
 * array's path, and an object replaced by {@code null} (or the reverse) is one change at the object's path.
 * Numbers are compared by numeric value, so {@code 1} and {@code 1.0} are equal, also inside arrays.
 *
 * <p>All methods are thread-safe and never modify their arguments; the values in the returned changes
 * are copies.
 */
public final class FieldDiff {

    /** Orders leaves: numbers by value, everything else equal only when {@link JsonNode#equals} says so. */
    private static final Comparator<JsonNode> NUMERIC_EQUALITY = FieldDiff::compareLeaves;

    private FieldDiff() {
    }

    /**
     * The changes that turn {@code before} into {@code after}.
     *
     * @param before the document before; not modified
     * @param after  the document after; not modified
     * @return the changes in path order (sorted key order at each level); empty when the documents are
     *         equal. If either document is not an object, a single {@link FieldChange.Kind#CHANGED} change
     *         at path {@code ""} when they differ.
     */
    public static List<FieldChange> between(JsonNode before, JsonNode after) {
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(after, "after");
        List<FieldChange> changes = new ArrayList<>();
        compare("", before, after, changes);
        return Collections.unmodifiableList(changes);
    }

    /** Whether two values are equal, comparing numbers by value at any depth. */
    static boolean sameValue(JsonNode a, JsonNode b) {
        return a.equals(NUMERIC_EQUALITY, b);
    }

    private static void compare(String path, JsonNode before, JsonNode after, List<FieldChange> changes) {
        if (!before.isObject() || !after.isObject()) {
            if (!sameValue(before, after)) {
                changes.add(new FieldChange(path, before.deepCopy(), after.deepCopy()));
            }
            return;
        }
        SortedSet<String> keys = new TreeSet<>(before.propertyNames());
        keys.addAll(after.propertyNames());
        for (String key : keys) {
            String childPath = path + "/" + escape(key);
            JsonNode was = before.get(key);
            JsonNode is = after.get(key);
            if (was == null) {
                changes.add(new FieldChange(childPath, null, is.deepCopy()));
            } else if (is == null) {
                changes.add(new FieldChange(childPath, was.deepCopy(), null));
            } else {
                compare(childPath, was, is, changes);
            }
        }
    }

    /** A key as a JSON Pointer reference token (RFC 6901 section 3): {@code ~} first, then {@code /}. */
    static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    private static int compareLeaves(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return sameNumber(a, b) ? 0 : 1;
        }
        return a.equals(b) ? 0 : 1;
    }

    private static boolean sameNumber(JsonNode a, JsonNode b) {
        if (!isFinite(a) || !isFinite(b)) {
            return Double.compare(a.doubleValue(), b.doubleValue()) == 0;
        }
        return decimal(a).compareTo(decimal(b)) == 0;
    }

    private static boolean isFinite(JsonNode number) {
        return !(number.isDouble() || number.isFloat()) || Double.isFinite(number.doubleValue());
    }

    /** A finite number's value; a {@code double} by its shortest decimal form, so 0.1 equals 0.1 exactly. */
    private static BigDecimal decimal(JsonNode number) {
        return number.isDouble() || number.isFloat()
                ? BigDecimal.valueOf(number.doubleValue())
                : number.decimalValue();
    }

    /**
     * The wire form of a diff: a JSON array of {@code {"path", "kind", "before"?, "after"?}} objects,
     * {@code kind} being {@code added}, {@code removed} or {@code changed} and an absent side omitted.
     */
    public static ArrayNode toJson(List<FieldChange> changes) {
        ArrayNode array = JsonNodeFactory.instance.arrayNode();
        for (FieldChange change : changes) {
            ObjectNode entry = array.addObject();
            entry.put("path", change.path());
            entry.put("kind", change.kind().name().toLowerCase(Locale.ROOT));
            if (change.before() != null) {
                entry.set("before", change.before().deepCopy());
            }
            if (change.after() != null) {
                entry.set("after", change.after().deepCopy());
            }
        }
        return array;
    }

    /**
     * Reads the wire form written by {@link #toJson(List)}.
     *
     * @throws IllegalArgumentException if {@code json} is not such an array
     */
    public static List<FieldChange> fromJson(JsonNode json) {
        if (json == null || !json.isArray()) {
            throw new IllegalArgumentException("a diff is a JSON array of changes");
        }
        List<FieldChange> changes = new ArrayList<>(json.size());
        for (JsonNode entry : json) {
            if (!entry.isObject() || !entry.path("path").isString()) {
                throw new IllegalArgumentException("each change in a diff is an object with a string 'path'");
            }
            changes.add(new FieldChange(entry.get("path").asString(), entry.get("before"), entry.get("after")));
        }
        return Collections.unmodifiableList(changes);
    }
}
