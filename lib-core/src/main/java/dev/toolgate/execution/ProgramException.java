package dev.toolgate.execution;

import java.util.Objects;

/**
 * A program's own failure, told in words meant for whoever reads the run: the run fails with exactly
 * this message (redacted), not prefixed by an exception class. A script runner throws it for the
 * script's errors, for example {@code "TypeError at 2:5: Cannot read properties of null"}.
 */
public class ProgramException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A failure with the message the run records. */
    public ProgramException(String message) {
        super(Objects.requireNonNull(message, "message"));
    }
}
