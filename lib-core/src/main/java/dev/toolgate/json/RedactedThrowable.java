package dev.toolgate.json;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A stand-in for a throwable that is about to be logged: the original's class name and message with
 * secrets redacted and cut to {@link TextCap#LOG_CHARS} characters, its stack trace, and its causes and suppressed throwables treated alike. It prints
 * as the original would ({@code java.io.IOException: ... [REDACTED]} and its frames), so a log keeps
 * where a failure happened but none of the secrets its messages carried. Made by
 * {@link Redactor#redactThrowable}.
 */
final class RedactedThrowable extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Causes and suppressed throwables followed, in all; beyond it the rest is left out. */
    static final int MAX_THROWABLES = 64;

    private final String header;

    private RedactedThrowable(String header) {
        super(header); // the cause stays unset until initCause
        this.header = header;
    }

    static RedactedThrowable of(Throwable original, Redactor redactor) {
        return copy(original, redactor, new IdentityHashMap<>(), new int[] {0});
    }

    private static RedactedThrowable copy(Throwable original, Redactor redactor, Map<Throwable, RedactedThrowable> seen,
                                          int[] count) {
        RedactedThrowable known = seen.get(original);
        if (known != null) {
            return known; // a cycle of causes: printStackTrace marks it as such
        }
        count[0]++;
        String message;
        try {
            message = original.getMessage(); // host code: may throw
        } catch (RuntimeException e) {
            message = "(its message could not be read)";
        }
        String header = original.getClass().getName() + (message == null ? "" : ": " + message);
        // redacted whole, then cut: a secret the cut would split is redacted before it
        RedactedThrowable copy = new RedactedThrowable(TextCap.forLog(redactor.redactText(header)));
        seen.put(original, copy);
        copy.setStackTrace(original.getStackTrace());
        Throwable cause = original.getCause();
        if (cause != null && cause != original && count[0] < MAX_THROWABLES) {
            copy.initCause(copy(cause, redactor, seen, count));
        }
        for (Throwable suppressed : original.getSuppressed()) {
            if (count[0] >= MAX_THROWABLES) {
                break;
            }
            if (suppressed != null && suppressed != original) {
                copy.addSuppressed(copy(suppressed, redactor, seen, count));
            }
        }
        return copy;
    }

    /** The original's class name and its redacted message, as {@link Throwable#toString()} would print them. */
    @Override
    public String toString() {
        return header;
    }

    @Override
    public String getLocalizedMessage() {
        return header;
    }
}
