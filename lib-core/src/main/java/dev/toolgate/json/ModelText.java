package dev.toolgate.json;

import java.util.regex.Pattern;

/**
 * Text a model reads, without the host's internals: a failure's message reaches the model without the
 * Java class names that an exception's {@code toString()} or a wrapped cause puts in it
 * ({@code "java.lang.IllegalArgumentException: no catalog system 'x'"} reads {@code "no catalog system 'x'"}).
 * The audit trail and the logs keep the type for operators.
 */
public final class ModelText {

    /** A qualified class name of a throwable, with the colon and space that follow it. */
    private static final Pattern QUALIFIED = Pattern.compile(
            "\\b(?:[a-z_$][a-z0-9_$]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error|Throwable)\\b(?::\\s*)?");
    /** A simple class name of a throwable used as a prefix ({@code "IllegalStateException: "}). */
    private static final Pattern SIMPLE = Pattern.compile("\\b[A-Z][A-Za-z0-9_$]*(?:Exception|Error|Throwable): ");

    /** A simple class name of a throwable and nothing else (an exception without a message). */
    private static final Pattern ALONE = Pattern.compile("[A-Z][A-Za-z0-9_$]*(?:Exception|Error|Throwable)");

    private ModelText() {
    }

    /**
     * {@code message} without Java throwable class names; a message that was nothing but a class name
     * becomes {@code "failed without a message"}. Null stays null.
     */
    public static String withoutClassNames(String message) {
        if (message == null) {
            return null;
        }
        String plain = SIMPLE.matcher(QUALIFIED.matcher(message).replaceAll("")).replaceAll("").strip();
        if (ALONE.matcher(plain).matches()) {
            plain = "";
        }
        return plain.isEmpty() && !message.isBlank() ? "failed without a message" : plain;
    }
}
