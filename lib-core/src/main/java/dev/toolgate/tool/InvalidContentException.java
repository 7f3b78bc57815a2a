package dev.toolgate.tool;

import java.util.Objects;

/**
 * A {@link Content} item or a {@link ContentResult} was built from bad values: a null or empty field, a
 * malformed MIME type or URI, data that is not base64, or a size past the limits. Thrown where the
 * value is built (inside the tool), so the call fails as the tool's error, never deep in a transport.
 */
public class InvalidContentException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String path;

    /**
     * @param path    where the bad value is, as a JSON Pointer into the result's content view, for example
     *                {@code /content/2/mimeType}; {@code ""} for the whole result
     * @param problem what is wrong with it
     */
    public InvalidContentException(String path, String problem) {
        super((Objects.requireNonNull(path, "path").isEmpty() ? "content result" : path) + ": " + problem);
        this.path = path;
    }

    /** Where the bad value is (a JSON Pointer; {@code ""} for the whole result). */
    public String path() {
        return path;
    }

    /** The same problem, located under {@code prefix} (an item's checks know only their own fields). */
    InvalidContentException under(String prefix) {
        String message = getMessage();
        String problem = message.substring(message.indexOf(": ") + 2);
        InvalidContentException moved = new InvalidContentException(prefix + path, problem);
        moved.setStackTrace(getStackTrace());
        return moved;
    }
}
