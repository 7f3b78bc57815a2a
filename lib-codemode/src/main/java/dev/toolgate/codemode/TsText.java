package dev.toolgate.codemode;

import java.util.regex.Pattern;

/** TypeScript text: identifiers, string literals and doc comments that no input can break out of. */
final class TsText {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");

    private TsText() {
    }

    /** True if {@code name} can stand unquoted as a property name. */
    static boolean isIdentifier(String name) {
        return IDENTIFIER.matcher(name).matches();
    }

    /** A property or member name: as is when it is an identifier, else a string literal. */
    static String propertyName(String name) {
        return isIdentifier(name) ? name : literal(name);
    }

    /** A double-quoted string literal, valid as JSON and as JavaScript (the line and paragraph separators escaped too). */
    static String literal(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029 || c == 0x7f || Character.isSurrogate(c)
                            && !validSurrogate(text, i)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    private static boolean validSurrogate(String text, int i) {
        char c = text.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(text.charAt(i - 1));
    }

    /**
     * The lines of a doc comment's body, each safe inside {@code /** ... *}{@code /}: a closing
     * {@code *}{@code /} is broken up, control characters dropped, line separators split lines.
     */
    static String[] docLines(String text) {
        StringBuilder clean = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\r' || c == 0x2028 || c == 0x2029 || c == 0x85) {
                clean.append('\n');
            } else if (c == '\n' || c >= 0x20 && c != 0x7f) {
                clean.append(c);
            }
        }
        String safe = clean.toString().replace("*/", "*\\/");
        return safe.strip().split("\n", -1);
    }

    /** An identifier made of {@code name}: other characters become {@code _}, a leading digit gets one. */
    static String typeName(String name) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            out.append(c < 128 && (Character.isLetterOrDigit(c) || c == '_' || c == '$') ? c : '_');
        }
        if (out.length() == 0 || Character.isDigit(out.charAt(0))) {
            out.insert(0, '_');
        }
        return out.toString();
    }
}
