package dev.toolgate.tool;

import java.util.Base64;
import java.util.Objects;

/**
 * One item of a tool's {@link ContentResult}: what an MCP client shows or hands to its model. The
 * kinds follow MCP's content types: {@link Text}, {@link Image} and {@link Audio} (base64 data with a
 * MIME type), {@link EmbeddedResource} (a resource's text or base64 blob inline, with its URI) and
 * {@link ResourceLink} (a pointer to a resource the client may read).
 *
 * <p>Every item is checked when it is built and fails with an {@link InvalidContentException} naming
 * the field: no null fields, MIME types of the form {@code type/subtype}, absolute URIs, strict base64
 * ({@link Base64#getDecoder()}: no line breaks or whitespace), and at most {@link #MAX_CHARS} characters of
 * text or base64 per item.
 *
 * <pre>{@code
 * ContentResult.of(Content.text("Chart of last week's incidents:"),
 *                  Content.image(pngBytes, "image/png"));
 * }</pre>
 */
public sealed interface Content
        permits Content.Text, Content.Image, Content.Audio, Content.EmbeddedResource, Content.ResourceLink {

    /** The most characters of text or base64 data one item may hold: 16 MiB. */
    int MAX_CHARS = 16 * 1024 * 1024;

    /** The longest MIME type or URI accepted: 2,048 characters. */
    int MAX_NAME_CHARS = 2048;

    /** The MCP content type: {@code text}, {@code image}, {@code audio}, {@code resource} or {@code resource_link}. */
    String type();

    /** A text item. */
    static Text text(String text) {
        return new Text(text);
    }

    /** An image from its bytes, base64-encoded here. */
    static Image image(byte[] bytes, String mimeType) {
        return new Image(encode(bytes), mimeType);
    }

    /** An image from base64 data (checked). */
    static Image image(String base64, String mimeType) {
        return new Image(base64, mimeType);
    }

    /** An audio clip from its bytes, base64-encoded here. */
    static Audio audio(byte[] bytes, String mimeType) {
        return new Audio(encode(bytes), mimeType);
    }

    /** An audio clip from base64 data (checked). */
    static Audio audio(String base64, String mimeType) {
        return new Audio(base64, mimeType);
    }

    /** A text resource embedded in the result. */
    static EmbeddedResource resource(String uri, String mimeType, String text) {
        return new EmbeddedResource(uri, mimeType, text, null);
    }

    /** A binary resource embedded in the result, from its bytes. */
    static EmbeddedResource blobResource(String uri, String mimeType, byte[] bytes) {
        return new EmbeddedResource(uri, mimeType, null, encode(bytes));
    }

    /** A link to a resource the client may read; title, description, MIME type and size unknown. */
    static ResourceLink link(String uri, String name) {
        return new ResourceLink(uri, name, null, null, null, null);
    }

    /**
     * Text.
     *
     * @param text the text, possibly empty
     */
    record Text(String text) implements Content {
        /** Checks the text. */
        public Text {
            text = ContentChecks.text("/text", text);
        }

        @Override
        public String type() {
            return "text";
        }
    }

    /**
     * An image.
     *
     * @param data     base64 (RFC 4648) of the image's bytes
     * @param mimeType for example {@code image/png}
     */
    record Image(String data, String mimeType) implements Content {
        /** Checks data and MIME type. */
        public Image {
            data = ContentChecks.base64("/data", data);
            mimeType = ContentChecks.mimeType("/mimeType", mimeType);
        }

        @Override
        public String type() {
            return "image";
        }
    }

    /**
     * An audio clip.
     *
     * @param data     base64 (RFC 4648) of the clip's bytes
     * @param mimeType for example {@code audio/wav}
     */
    record Audio(String data, String mimeType) implements Content {
        /** Checks data and MIME type. */
        public Audio {
            data = ContentChecks.base64("/data", data);
            mimeType = ContentChecks.mimeType("/mimeType", mimeType);
        }

        @Override
        public String type() {
            return "audio";
        }
    }

    /**
     * A resource's contents inline: exactly one of {@code text} and {@code blob}.
     *
     * @param uri      the resource's absolute URI, for example {@code test://embedded-resource}
     * @param mimeType the resource's MIME type
     * @param text     its text, or null for a binary resource
     * @param blob     base64 of its bytes, or null for a text resource
     */
    record EmbeddedResource(String uri, String mimeType, String text, String blob) implements Content {
        /** Checks every field; exactly one of text and blob must be set. */
        public EmbeddedResource {
            uri = ContentChecks.uri("/resource/uri", uri);
            mimeType = ContentChecks.mimeType("/resource/mimeType", mimeType);
            if ((text == null) == (blob == null)) {
                throw new InvalidContentException("/resource", "exactly one of text and blob must be set");
            }
            text = text == null ? null : ContentChecks.text("/resource/text", text);
            blob = blob == null ? null : ContentChecks.base64("/resource/blob", blob);
        }

        @Override
        public String type() {
            return "resource";
        }
    }

    /**
     * A link to a resource.
     *
     * @param uri         the resource's absolute URI
     * @param name        its name (1 to {@value #MAX_NAME_CHARS} characters)
     * @param title       a human-readable title, or null
     * @param description what it is, or null
     * @param mimeType    its MIME type, or null
     * @param size        its size in bytes (not negative), or null
     */
    record ResourceLink(String uri, String name, String title, String description, String mimeType, Long size)
            implements Content {
        /** Checks every field. */
        public ResourceLink {
            uri = ContentChecks.uri("/uri", uri);
            name = ContentChecks.name("/name", name);
            title = title == null ? null : ContentChecks.name("/title", title);
            description = description == null ? null : ContentChecks.text("/description", description);
            mimeType = mimeType == null ? null : ContentChecks.mimeType("/mimeType", mimeType);
            if (size != null && size < 0) {
                throw new InvalidContentException("/size", "must not be negative, got " + size);
            }
        }

        @Override
        public String type() {
            return "resource_link";
        }
    }

    private static String encode(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length > MAX_CHARS / 4 * 3) {
            throw new InvalidContentException("/data", bytes.length + " bytes is more than one item may hold ("
                    + (MAX_CHARS / 4 * 3) + ")");
        }
        return Base64.getEncoder().encodeToString(bytes);
    }
}
