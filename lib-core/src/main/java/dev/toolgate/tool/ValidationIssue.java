package dev.toolgate.tool;

import java.util.Objects;

/**
 * One thing wrong with a tool's input, as feedback a model can act on.
 *
 * @param path    where, as a JSON Pointer (RFC 6901) into the arguments: {@code ""} is the whole
 *                object, {@code /items/0/name} a nested field
 * @param message what is wrong there, in plain words
 */
public record ValidationIssue(String path, String message) {

    /** Checks the components; see the class description for what each must hold. */
    public ValidationIssue {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(message, "message");
    }

    /** An issue at a JSON Pointer path. */
    public static ValidationIssue at(String path, String message) {
        return new ValidationIssue(path, message);
    }

    @Override
    public String toString() {
        return (path.isEmpty() ? "(root)" : path) + ": " + message;
    }
}
