package dev.toolgate.json;

import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Shrinks a JSON tree to a byte budget by dropping whole values, never by cutting text, so the result
 * is always valid JSON that says what it is.
 *
 * <p>The budget applies to the compact UTF-8 serialization that {@link Json#write(JsonNode)} produces.
 * A tree that fits is returned as it is (as a copy) and reported as not truncated. A tree that does not
 * fit is pruned and marked with a root-level {@value #MARKER}{@code : true} member:
 * <ul>
 *   <li>a root <b>object</b> gets the marker as its first member, followed by the members that fit;</li>
 *   <li>a root <b>array</b> or <b>scalar</b> is wrapped as
 *       <code>{"_truncated":true,"value":<i>pruned array</i>}</code>; a scalar never fits once the whole
 *       tree did not, so for a scalar, and for an array when not even {@code []} fits, the
 *       {@code value} member is left out.</li>
 * </ul>
 *
 * <h2>Pruning</h2>
 * Pruning is greedy and deterministic and keeps as much of the beginning of the document as fits.
 * Strings and numbers are kept whole or dropped whole.
 * <ul>
 *   <li><b>Arrays</b> keep a prefix: elements are kept in order until one does not fit whole; that
 *       element is kept in pruned form if it is a container that still holds something when pruned, and
 *       the array ends there. Kept elements therefore keep their indexes.</li>
 *   <li><b>Objects</b> keep their members in order, each one whole, pruned (a container that still holds
 *       something when pruned), or not at all; a member that is dropped does not stop later, smaller
 *       members from being kept.</li>
 * </ul>
 * Containers nested deeper than {@value #MAX_DEPTH} levels (the root counting as one) are dropped like
 * values that do not fit, so a result always reads back with {@link Json#parse(String)}, and no input,
 * however deep, can exhaust the stack: every walk stops at that depth.
 * Sizes are counted incrementally, without serializing, and every count stops once it exceeds the
 * remaining budget, so a value that is dropped costs no more than the budget to measure however large it
 * is: cutting a 10 MB document to 10 KB takes milliseconds.
 *
 * <h2>The reserved {@value #MARKER} key</h2>
 * The root member {@value #MARKER} is reserved for the marker. When an input object that fits already
 * has one (for example because a tool truncated its own output), it is returned unchanged. When an input
 * object must be pruned, its own {@value #MARKER} member is discarded and the marker takes its place; the
 * member's presence never causes pruning by itself. Hence for input without that key, the marker is
 * present exactly when something was pruned, which {@link Truncation#truncated()} also reports.
 *
 * <p>All methods are thread-safe. The input is never modified, and the result never shares nodes with it.
 */
public final class JsonTruncator {

    /** The byte budget used by {@link #truncate(JsonNode)}: 10 KiB. */
    public static final int DEFAULT_MAX_BYTES = 10 * 1024;

    /** The smallest budget accepted: enough for the marker object with room to spare. */
    public static final int MIN_MAX_BYTES = 64;

    /** The deepest nesting of arrays and objects a result keeps: what {@link Json#parse(String)} accepts. */
    public static final int MAX_DEPTH = Json.MAX_NESTING_DEPTH;

    /** The root-level member that marks a pruned result. */
    public static final String MARKER = "_truncated";

    /** The member of the wrapper object that holds a pruned root array. */
    public static final String VALUE = "value";

    /** Serialized size of {@code {"_truncated":true}}. */
    private static final long MARKER_OBJECT_SIZE = 2 + SerializedSize.string(MARKER) + 1 + 4;

    /** Serialized size of the smallest non-empty container, {@code [0]}; less budget cannot hold one. */
    private static final long SMALLEST_NON_EMPTY_CONTAINER = 3;

    /** Serialized size of the smallest object member, {@code "":0}. */
    private static final long SMALLEST_MEMBER = 4;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JsonTruncator() {
    }

    /**
     * The result of a truncation.
     *
     * @param value     the tree, pruned if necessary; always serializes within the budget
     * @param truncated true when something was pruned, in which case {@code value} carries the
     *                  {@value JsonTruncator#MARKER} marker
     */
    public record Truncation(JsonNode value, boolean truncated) {

        /**
         * Checks that the value is present.
         *
         * @param value     the tree, pruned if necessary
         * @param truncated true when something was pruned
         */
        public Truncation {
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * Truncates a tree to {@value #DEFAULT_MAX_BYTES} bytes.
     *
     * @param value the tree; not modified
     * @return the tree or its pruned, marked form
     * @see #truncate(JsonNode, int)
     */
    public static Truncation truncate(JsonNode value) {
        return truncate(value, DEFAULT_MAX_BYTES);
    }

    /**
     * Truncates a tree so that its compact UTF-8 serialization takes at most {@code maxBytes} bytes, as
     * described in the {@linkplain JsonTruncator class documentation}.
     *
     * @param value    the tree; not modified
     * @param maxBytes the budget in bytes, at least {@value #MIN_MAX_BYTES}
     * @return a copy of the tree if it fits, otherwise its pruned and marked form
     * @throws IllegalArgumentException when {@code maxBytes} is below {@value #MIN_MAX_BYTES}
     */
    public static Truncation truncate(JsonNode value, int maxBytes) {
        Objects.requireNonNull(value, "value");
        if (maxBytes < MIN_MAX_BYTES) {
            throw new IllegalArgumentException(
                    "maxBytes must be at least " + MIN_MAX_BYTES + " to leave room for the truncation marker, was "
                            + maxBytes);
        }
        if (fits(value, maxBytes)) {
            return new Truncation(value.deepCopy(), false);
        }
        ObjectNode marked = NODES.objectNode();
        marked.put(MARKER, true);
        if (value.isObject()) {
            addMembers(value, marked, MARKER_OBJECT_SIZE, maxBytes, true, MAX_DEPTH - 1);
        } else if (value.isArray()) {
            long wrapperSize = MARKER_OBJECT_SIZE + 1 + SerializedSize.string(VALUE) + 1;
            Pruned array = pruneArray(value, maxBytes - wrapperSize, MAX_DEPTH - 2);
            if (array != null) {
                marked.set(VALUE, array.node());
            }
        }
        return new Truncation(marked, true);
    }

    /**
     * Whether a tree fits a budget as it is: its compact UTF-8 serialization takes at most
     * {@code maxBytes} bytes and it nests no deeper than {@value #MAX_DEPTH} levels, exactly when
     * {@link #truncate(JsonNode, int)} would return it unpruned. Counted without serializing, and the
     * count stops once it exceeds the budget, so a large tree costs no more than the budget to measure.
     * For a caller that owns the tree already (a copy it made) and needs no second one.
     *
     * @param value    the tree; not modified
     * @param maxBytes the budget in bytes
     * @return true when the tree fits
     */
    public static boolean fits(JsonNode value, int maxBytes) {
        Objects.requireNonNull(value, "value");
        return SerializedSize.of(value, maxBytes, MAX_DEPTH) <= maxBytes;
    }

    /** A pruned copy of a container and its serialized size. */
    private record Pruned(JsonNode node, long size) {
    }

    /**
     * The pruned copy of a container that does not fit {@code budget} whole, or null when the copy would
     * be empty: an empty container is not worth its key or its place in an array. {@code depth} is how
     * many levels of containers the copy's members may still nest.
     */
    private static Pruned pruneNonEmpty(JsonNode container, long budget, int depth) {
        if (budget < SMALLEST_NON_EMPTY_CONTAINER || depth < 0) {
            return null;
        }
        Pruned pruned;
        if (container.isObject()) {
            ObjectNode copy = NODES.objectNode();
            pruned = new Pruned(copy, addMembers(container, copy, 2, budget, false, depth));
        } else {
            pruned = pruneArray(container, budget, depth);
        }
        return pruned == null || pruned.node().isEmpty() ? null : pruned;
    }

    /**
     * The longest prefix of an array that fits {@code budget}, its elements nesting at most
     * {@code depth} levels, or null when not even {@code []} fits.
     */
    private static Pruned pruneArray(JsonNode array, long budget, int depth) {
        if (budget < 2) {
            return null;
        }
        ArrayNode copy = NODES.arrayNode();
        long size = 2;
        for (JsonNode element : array) {
            long separator = copy.isEmpty() ? 0 : 1;
            long available = budget - size - separator;
            long elementSize = SerializedSize.of(element, available, depth);
            if (elementSize <= available) {
                copy.add(element.deepCopy());
                size += separator + elementSize;
                continue;
            }
            Pruned partial = element.isContainer() ? pruneNonEmpty(element, available, depth - 1) : null;
            if (partial != null) {
                copy.add(partial.node());
                size += separator + partial.size();
            }
            break;
        }
        return new Pruned(copy, size);
    }

    /**
     * Copies the members of {@code source} that fit into {@code target}, whole or pruned, in order.
     *
     * @param size       the serialized size of {@code target} so far
     * @param budget     the most {@code target} may take
     * @param skipMarker whether to leave out a {@value #MARKER} member of {@code source}
     * @param depth      how many levels of containers the members' values may nest
     * @return the serialized size of {@code target} afterwards
     */
    private static long addMembers(JsonNode source, ObjectNode target, long size, long budget, boolean skipMarker,
                                   int depth) {
        for (Map.Entry<String, JsonNode> member : source.properties()) {
            String key = member.getKey();
            if (skipMarker && key.equals(MARKER)) {
                continue;
            }
            long separator = target.isEmpty() ? 0 : 1;
            if (budget - size - separator < SMALLEST_MEMBER) {
                break; // not even "":0 fits any more
            }
            long keySize = SerializedSize.string(key, budget - size) + 1;
            long available = budget - size - separator - keySize;
            if (available < 1) {
                continue; // no value fits after this key; a later, shorter key may still fit
            }
            JsonNode value = member.getValue();
            long valueSize = SerializedSize.of(value, available, depth);
            if (valueSize <= available) {
                target.set(key, value.deepCopy());
                size += separator + keySize + valueSize;
            } else if (value.isContainer()) {
                Pruned partial = pruneNonEmpty(value, available, depth - 1);
                if (partial != null) {
                    target.set(key, partial.node());
                    size += separator + keySize + partial.size();
                }
            }
        }
        return size;
    }
}
