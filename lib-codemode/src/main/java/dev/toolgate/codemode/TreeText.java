package dev.toolgate.codemode;

import dev.toolgate.json.Json;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * A JSON tree as compact JSON text for the script's side of a tool call, in the tree's own member order.
 * Jackson's writer costs a generator and its context per call, more than the small trees tool calls
 * return take to write; this walks the tree into one builder. What it does not write itself (a number
 * other than an int, a long or a finite double; a binary or other node; a tree nested deeper than
 * {@value #MAX_DEPTH}) is written by {@link Json#write}, so the text is the same JSON value either way.
 */
final class TreeText {

    static final int MAX_DEPTH = 200;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private TreeText() {
    }

    /** {@code node} as JSON text. */
    static String write(JsonNode node) {
        StringBuilder out = new StringBuilder(64);
        return append(node, out, 0) ? out.toString() : Json.write(node);
    }

    /** {@code text} parsed, with the plain {@code {}} a call without input sends made without a parser. */
    static JsonNode parse(String text) {
        return "{}".equals(text) ? Json.object() : Json.parse(text);
    }

    private static boolean append(JsonNode node, StringBuilder out, int depth) {
        if (depth > MAX_DEPTH) {
            return false;
        }
        switch (node.getNodeType()) {
            case OBJECT -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<String, JsonNode> member : node.properties()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    string(member.getKey(), out);
                    out.append(':');
                    if (!append(member.getValue(), out, depth + 1)) {
                        return false;
                    }
                }
                out.append('}');
                return true;
            }
            case ARRAY -> {
                out.append('[');
                for (int i = 0; i < node.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    if (!append(node.get(i), out, depth + 1)) {
                        return false;
                    }
                }
                out.append(']');
                return true;
            }
            case STRING -> {
                string(node.stringValue(), out);
                return true;
            }
            case BOOLEAN -> {
                out.append(node.booleanValue());
                return true;
            }
            case NULL -> {
                out.append("null");
                return true;
            }
            case NUMBER -> {
                return number(node, out);
            }
            default -> {
                return false;
            }
        }
    }

    private static boolean number(JsonNode node, StringBuilder out) {
        if (node.isInt() || node.isLong()) {
            out.append(node.longValue());
            return true;
        }
        if (node.isDouble() && Double.isFinite(node.doubleValue())) {
            out.append(node.doubleValue());
            return true;
        }
        return false;
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
