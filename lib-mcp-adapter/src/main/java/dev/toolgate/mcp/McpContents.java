package dev.toolgate.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.Base64;
import java.util.Objects;

/**
 * The contents of a resource as a reader returns them (and as a prompt embeds them): text, or bytes
 * sent base64-encoded as a blob, each with its URI and MIME type.
 *
 * <pre>{@code
 * McpContents.text("test://static-text", "text/plain", "This is the content of the static text resource.");
 * McpContents.blob("test://static-binary", "image/png", pngBytes);
 * }</pre>
 */
public final class McpContents {

    private final String uri;
    private final String mimeType;
    private final String text;
    private final byte[] blob;

    private McpContents(String uri, String mimeType, String text, byte[] blob) {
        this.uri = McpResource.checkUri(uri, "uri");
        this.mimeType = mimeType;
        this.text = text;
        this.blob = blob;
    }

    /** Text contents; {@code mimeType} may be null. */
    public static McpContents text(String uri, String mimeType, String text) {
        return new McpContents(uri, mimeType, Objects.requireNonNull(text, "text"), null);
    }

    /** Binary contents (sent base64-encoded); {@code mimeType} may be null. */
    public static McpContents blob(String uri, String mimeType, byte[] data) {
        return new McpContents(uri, mimeType, null, Objects.requireNonNull(data, "data").clone());
    }

    /** The URI these contents are of. */
    public String uri() {
        return uri;
    }

    /** The MIME type, or null. */
    public String mimeType() {
        return mimeType;
    }

    /** True for text contents, false for a blob. */
    public boolean isText() {
        return text != null;
    }

    /** The text, or null for a blob. */
    public String text() {
        return text;
    }

    /** A copy of the bytes, or null for text. */
    public byte[] blob() {
        return blob == null ? null : blob.clone();
    }

    McpSchema.ResourceContents toMcp() {
        return text != null ? new McpSchema.TextResourceContents(uri, mimeType, text)
                : new McpSchema.BlobResourceContents(uri, mimeType, Base64.getEncoder().encodeToString(blob));
    }
}
