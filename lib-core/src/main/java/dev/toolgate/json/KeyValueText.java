package dev.toolgate.json;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import java.util.function.Predicate;

/**
 * The part of {@link Redactor#redactText} that finds values after sensitive keys in free text
 * ({@code password=abc}, {@code "token": "abc"}, {@code Authorization: Bearer abc}, {@code invalid api
 * key: abc}) and replaces them with {@value Redactor#REDACTED}.
 */
final class KeyValueText {

    /** Keys whose whole value, to the end of the line in text, is a credential: HTTP headers. */
    private static final List<String> HEADER_TERMS = List.of("authorization", "cookie", "cookies");

    /** A character of a key in text: a letter, digit, mark, invisible format character, {@code _ . -}. */
    private static final String KEY_CHAR = "[\\p{L}\\p{N}\\p{M}\\p{Cf}_.-]";

    /**
     * A key followed by {@code =} or {@code :}, optionally quoted or JSON-escaped-quoted:
     * {@code password=}, {@code X-Api-Key: }, {@code "token" : }, {@code \"token\":}. The key starts at a
     * word boundary and is matched possessively so that scanning stays linear.
     */
    private static final Pattern KEY_AND_SEPARATOR =
            Pattern.compile("(?<!" + KEY_CHAR + ")(" + KEY_CHAR + "++)(?:\\\\*+[\"'])?[ \\t]*+[:=][ \\t]*+");

    /** An HTTP authorization scheme in front of a credential, kept when the credential is redacted. */
    private static final Pattern AUTH_SCHEME = Pattern.compile("(?i:bearer|basic)[ \\t]++");

    /** How many words before a key in text are read with it, as in {@code invalid api key: abc}. */
    private static final int PHRASE_WORDS = 3;

    /** How many characters before a key in text are read for a phrase. */
    private static final int PHRASE_CHARS = 64;

    /** Characters that end an unquoted value in free text. */
    private static final String VALUE_TERMINATORS = ",;&\"'<>()[]{}";

    private KeyValueText() {
    }

    /**
     * Replaces the value after each key followed by {@code =} or {@code :} that {@code sensitiveKey}
     * holds sensitive, or that ends a sensitive phrase of {@code matchTerms}.
     */
    static String redact(String text, Predicate<String> sensitiveKey, List<String> matchTerms) {
        if (text.indexOf(':') < 0 && text.indexOf('=') < 0) {
            return text;
        }
        Matcher key = KEY_AND_SEPARATOR.matcher(text);
        Matcher scheme = AUTH_SCHEME.matcher(text);
        StringBuilder out = null;
        int copied = 0;
        int from = 0;
        while (from < text.length() && key.find(from)) {
            from = key.end();
            String name = key.group(1);
            if (!sensitiveKey.test(name) && !isSensitivePhrase(text, key.start(1), key.end(1), matchTerms)) {
                continue; // scan on from the separator: the value may itself hold a key, as in a URL
            }
            int valueStart = key.end();
            int valueEnd;
            String closing = "";
            int quoteEnd = openingQuoteEnd(text, valueStart);
            if (quoteEnd > 0) {
                String quote = text.substring(valueStart, quoteEnd);
                int closed = endOfQuoted(text, quoteEnd, quote.charAt(quote.length() - 1), quote.length() - 1);
                valueStart = quoteEnd;
                if (closed < 0) {
                    valueEnd = text.length();
                } else {
                    valueEnd = closed;
                    closing = quote;
                }
            } else if (valueStart < text.length() && (text.charAt(valueStart) == '{' || text.charAt(valueStart) == '[')) {
                valueEnd = endOfBracketed(text, valueStart);
            } else {
                if (scheme.region(valueStart, text.length()).lookingAt()) {
                    valueStart = scheme.end();
                }
                valueEnd = isHeader(name) ? endOfLine(text, valueStart) : endOfUnquoted(text, valueStart);
            }
            if (valueEnd - closing.length() <= valueStart) {
                continue;
            }
            out = out == null ? new StringBuilder(text.length()) : out;
            out.append(text, copied, valueStart).append(Redactor.REDACTED).append(closing);
            copied = valueEnd;
            from = valueEnd;
        }
        return out == null ? text : out.append(text, copied, text.length()).toString();
    }

    /**
     * Whether the words before a key in text make a sensitive phrase with it, as {@code invalid api key:}
     * does: up to {@value #PHRASE_WORDS} words separated by spaces, within {@value #PHRASE_CHARS}
     * characters, so that scanning stays linear.
     */
    private static boolean isSensitivePhrase(String text, int keyStart, int keyEnd, List<String> matchTerms) {
        int phraseStart = keyStart;
        for (int words = 0; words < PHRASE_WORDS; words++) {
            int spaces = phraseStart;
            while (spaces > 0 && keyStart - spaces < PHRASE_CHARS
                    && (text.charAt(spaces - 1) == ' ' || text.charAt(spaces - 1) == '\t')) {
                spaces--;
            }
            int word = spaces;
            while (word > 0 && keyStart - word < PHRASE_CHARS && isKeyChar(text.charAt(word - 1))) {
                word--;
            }
            if (spaces == phraseStart || word == spaces) {
                break;
            }
            phraseStart = word;
        }
        return phraseStart < keyStart
                && KeyWords.endsWithTerm(KeyWords.split(text.substring(phraseStart, keyEnd)), matchTerms);
    }

    private static boolean isKeyChar(char c) {
        int type = Character.getType(c);
        return Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '-'
                || type == Character.NON_SPACING_MARK || type == Character.FORMAT || Character.isSurrogate(c);
    }

    private static boolean isHeader(String key) {
        return KeyWords.containsTerm(KeyWords.split(key), HEADER_TERMS);
    }

    /**
     * The end of the quote that opens a value at {@code start} ({@code "} or {@code '} after any number of
     * backslashes, for JSON escaped once or more), or -1 when the value is not quoted.
     */
    private static int openingQuoteEnd(String text, int start) {
        int i = start;
        while (i < text.length() && text.charAt(i) == '\\') {
            i++;
        }
        return i < text.length() && (text.charAt(i) == '"' || text.charAt(i) == '\'') ? i + 1 : -1;
    }

    /**
     * The end of a quoted value, after its closing quote, or -1 when it is not closed.
     * A quote opened after {@code k} backslashes is escaped {@code log2(k + 1)} times, so it is closed by the
     * first quote after a run of backslashes {@code r} with {@code r mod 2(k + 1) == k}: at once-escaped
     * {@code \"}, not at the twice-escaped {@code \\\"} of a quote inside the value.
     */
    private static int endOfQuoted(String text, int contentStart, char quote, int backslashes) {
        int run = 0;
        for (int i = contentStart; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                run++;
                continue;
            }
            if (c == quote && run % (2 * (backslashes + 1)) == backslashes) {
                return i + 1;
            }
            run = 0;
        }
        return -1;
    }

    /** The end of a value in brackets, after the matching bracket, or the end of the text. */
    private static int endOfBracketed(String text, int start) {
        int depth = 0;
        boolean inString = false;
        int run = 0;
        for (int i = start; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                run++;
                continue;
            }
            if (c == '"' && run % 2 == 0) {
                inString = !inString;
            } else if (!inString && (c == '{' || c == '[')) {
                depth++;
            } else if (!inString && (c == '}' || c == ']') && --depth == 0) {
                return i + 1;
            }
            run = 0;
        }
        return text.length();
    }

    private static int endOfUnquoted(String text, int start) {
        int i = start;
        while (i < text.length() && !Character.isWhitespace(text.charAt(i))
                && VALUE_TERMINATORS.indexOf(text.charAt(i)) < 0) {
            i++;
        }
        return i;
    }

    private static int endOfLine(String text, int start) {
        int i = start;
        while (i < text.length() && text.charAt(i) != '\n' && text.charAt(i) != '\r') {
            i++;
        }
        return i;
    }
}
