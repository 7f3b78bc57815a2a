package dev.toolgate.json;

import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Byte counts of the compact UTF-8 serialization of JSON trees, as {@link Json#write(JsonNode)} writes
 * them, computed without serializing.
 *
 * <p>Every count takes a {@code limit} and stops early once the count exceeds it, so measuring costs at
 * most about {@code limit} steps however large the tree is. Within the limit the count is exact.
 *
 * <p>Strings are counted by mirroring the mapper's escaping: {@code "}, {@code \} and the short escapes
 * {@code \b \t \n \f \r} take two bytes, other control characters six ({@code \}{@code u00XX}), and
 * everything else is written literally and counted as UTF-8 (an unpaired surrogate as the single
 * replacement byte the UTF-8 encoder writes). Numbers other than {@code int} and {@code long}, and exotic
 * nodes, are measured by letting the mapper write them.
 */
final class SerializedSize {

    private static final int NULL_OR_TRUE = 4;
    private static final int FALSE = 5;

    private SerializedSize() {
    }

    /** The exact serialized size of a tree. */
    static long of(JsonNode node) {
        return of(node, Long.MAX_VALUE);
    }

    /**
     * The serialized size of a tree if it is at most {@code limit}; otherwise some number greater than
     * {@code limit}.
     */
    static long of(JsonNode node, long limit) {
        return of(node, limit, Integer.MAX_VALUE);
    }

    /**
     * The serialized size of a tree if it is at most {@code limit} and nests at most {@code depth}
     * levels of arrays and objects (the node itself counting as one); otherwise some number greater
     * than {@code limit}. Recursion never goes deeper than {@code depth}.
     */
    static long of(JsonNode node, long limit, int depth) {
        return switch (node.getNodeType()) {
            case OBJECT -> depth < 1 ? over(limit) : object(node, limit, depth - 1);
            case ARRAY -> depth < 1 ? over(limit) : array(node, limit, depth - 1);
            case STRING -> string(node.stringValue(), limit);
            case BOOLEAN -> node.booleanValue() ? NULL_OR_TRUE : FALSE;
            case NULL -> NULL_OR_TRUE;
            case NUMBER -> node.isInt() || node.isLong() || node.isShort()
                    ? Long.toString(node.longValue()).length()
                    : written(node);
            default -> written(node);
        };
    }

    /** The exact serialized size of a string value or key, quotes included. */
    static long string(String s) {
        return string(s, Long.MAX_VALUE);
    }

    /**
     * The serialized size of a string value or key, quotes included, if it is at most {@code limit};
     * otherwise some number greater than {@code limit}.
     */
    static long string(String s, long limit) {
        long lowerBound = s.length() + 2L; // every character takes at least one byte
        return lowerBound > limit ? lowerBound : 2 + utf8Length(s, true);
    }

    /**
     * The UTF-8 length of text, as {@link String#getBytes(java.nio.charset.Charset)} encodes it: an
     * unpaired surrogate becomes the one-byte replacement {@code ?}. With {@code escaped}, characters the
     * mapper escapes inside strings are counted in their escaped form.
     */
    private static long utf8Length(String s, boolean escaped) {
        long size = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                size += escaped ? escapedAsciiLength(c) : 1;
            } else if (c < 0x800) {
                size += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                size += 4;
                i++;
            } else {
                size += Character.isSurrogate(c) ? 1 : 3;
            }
        }
        return size;
    }

    private static int escapedAsciiLength(char c) {
        return switch (c) {
            case '"', '\\', '\b', '\t', '\n', '\f', '\r' -> 2;
            default -> c < 0x20 ? 6 : 1;
        };
    }

    private static long over(long limit) {
        return limit == Long.MAX_VALUE ? Long.MAX_VALUE : limit + 1;
    }

    private static long object(JsonNode node, long limit, int depth) {
        long size = 2;
        boolean first = true;
        for (Map.Entry<String, JsonNode> member : node.properties()) {
            size += first ? 1 : 2; // the colon, and the comma before every member but the first
            first = false;
            size += string(member.getKey(), limit - size);
            if (size > limit) {
                return size;
            }
            size += of(member.getValue(), limit - size, depth);
            if (size > limit) {
                return size;
            }
        }
        return size;
    }

    private static long array(JsonNode node, long limit, int depth) {
        long size = 2;
        boolean first = true;
        for (JsonNode element : node) {
            if (!first) {
                size++;
            }
            first = false;
            size += of(element, limit - size, depth);
            if (size > limit) {
                return size;
            }
        }
        return size;
    }

    private static long written(JsonNode node) {
        return utf8Length(Json.write(node), false);
    }
}
