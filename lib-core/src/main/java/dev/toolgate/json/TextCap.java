package dev.toolgate.json;

import java.util.Locale;

/**
 * Caps free text that is logged or shown to a model (a tool's, a script's or a program's error
 * message): a text longer than the cap keeps its beginning and ends with a marker that says how much
 * was cut, {@code … (9,999,800 more characters)}, the whole at most the cap. A 10 MB message thus
 * neither becomes a 10 MB log line nor crowds out the rest of an answer.
 *
 * <p>Cap text <em>after</em> redacting it ({@link Redactor#redactText}), never before: a secret that
 * the cut would split could no longer be recognized, and its first part would be kept. Redaction runs
 * in linear time, so redacting a long message whole before cutting it is affordable.
 *
 * <p>A cut never splits a surrogate pair. Thread-safe; no state.
 */
public final class TextCap {

    /**
     * The most characters of a message in a log line, {@value}: a failing tool's, script's or
     * program's message, and each message of a {@linkplain Redactor#redactThrowable logged throwable}.
     */
    public static final int LOG_CHARS = 1_000;

    /**
     * The most characters of an error message a caller or a model sees (and the audit trail keeps),
     * {@value}: at up to three UTF-8 bytes a character it still fits, with the rest of an outcome, in
     * the gate's default result cap of 10 KiB, so a capped {@code error} is never pruned from it.
     */
    public static final int MESSAGE_CHARS = 2_000;

    /** The smallest cap: room for the marker and a prefix worth reading. */
    public static final int MIN_CHARS = 64;

    private TextCap() {
    }

    /**
     * {@code text} cut to {@value #LOG_CHARS} characters for a log line.
     *
     * @param text redacted text, or null
     * @return the text, capped; null for null
     */
    public static String forLog(String text) {
        return cap(text, LOG_CHARS);
    }

    /**
     * {@code text} cut to {@value #MESSAGE_CHARS} characters for a caller or a model.
     *
     * @param text redacted text, or null
     * @return the text, capped; null for null
     */
    public static String forMessage(String text) {
        return cap(text, MESSAGE_CHARS);
    }

    /**
     * {@code text} if it has at most {@code maxChars} characters; otherwise its beginning followed by
     * {@code … (N more characters)}, {@code N} the characters cut, at most {@code maxChars} in all.
     *
     * @param text     redacted text, or null
     * @param maxChars the most characters of the result, at least {@value #MIN_CHARS}
     * @return the text, capped; null for null
     * @throws IllegalArgumentException when {@code maxChars} is below {@value #MIN_CHARS}
     */
    public static String cap(String text, int maxChars) {
        if (maxChars < MIN_CHARS) {
            throw new IllegalArgumentException("maxChars must be at least " + MIN_CHARS + ", was " + maxChars);
        }
        if (text == null || text.length() <= maxChars) {
            return text;
        }
        int keep = maxChars - marker(text.length()).length(); // the count can only be shorter than the length
        if (Character.isHighSurrogate(text.charAt(keep - 1)) && Character.isLowSurrogate(text.charAt(keep))) {
            keep--;
        }
        return text.substring(0, keep) + marker(text.length() - keep);
    }

    private static String marker(int cut) {
        return String.format(Locale.ROOT, "… (%,d more characters)", cut);
    }
}
