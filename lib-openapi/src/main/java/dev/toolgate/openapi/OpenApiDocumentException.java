package dev.toolgate.openapi;

import java.util.Objects;

/**
 * An OpenAPI document cannot be used: it is not JSON or YAML, not OpenAPI 3, too large or too deep, or
 * a part of it is broken. The message says what is wrong; {@link #where()} says where, as a JSON
 * pointer into the document ({@code /paths/~1pets/get}) or the document's location when the whole
 * document is at fault.
 *
 * <p>Thrown while the source lists its tools, the gate then reports the source unavailable with this
 * message. A broken operation does not fail the document: it is left out, and the reason shows in
 * {@code Toolgate.listSources()}.
 */
public class OpenApiDocumentException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String where;

    /**
     * @param where   a JSON pointer into the document, or the document's location
     * @param message what is wrong, without the document's text
     */
    public OpenApiDocumentException(String where, String message) {
        super(Objects.requireNonNull(message, "message") + (where == null || where.isEmpty() ? "" : " (at " + where + ")"));
        this.where = where == null ? "" : where;
    }

    /** Where in the document (a JSON pointer) or which document. */
    public String where() {
        return where;
    }
}
