package dev.toolgate.tool;

import static dev.toolgate.tool.Content.MAX_CHARS;
import static dev.toolgate.tool.Content.MAX_NAME_CHARS;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Base64;
import java.util.regex.Pattern;

/** The checks of {@link Content} fields. */
final class ContentChecks {

    private static final Pattern MIME = Pattern.compile(
            "[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\\s*;[\\x20-\\x7E]*)?");

    private ContentChecks() {
    }

    static String text(String path, String text) {
        if (text == null) {
            throw new InvalidContentException(path, "must not be null");
        }
        if (text.length() > MAX_CHARS) {
            throw new InvalidContentException(path, text.length() + " characters is more than one item may hold ("
                    + MAX_CHARS + ")");
        }
        return text;
    }

    static String base64(String path, String data) {
        if (data == null) {
            throw new InvalidContentException(path, "must not be null");
        }
        if (data.isEmpty()) {
            throw new InvalidContentException(path, "must not be empty");
        }
        if (data.length() > MAX_CHARS) {
            throw new InvalidContentException(path, data.length() + " characters of base64 is more than one item may hold ("
                    + MAX_CHARS + ")");
        }
        try {
            Base64.getDecoder().decode(data);
        } catch (IllegalArgumentException e) {
            throw new InvalidContentException(path, "is not base64 (RFC 4648, no line breaks): " + e.getMessage());
        }
        return data;
    }

    static String mimeType(String path, String mimeType) {
        if (mimeType == null || mimeType.isBlank()) {
            throw new InvalidContentException(path, "must be a MIME type such as image/png, got "
                    + (mimeType == null ? "null" : "'" + mimeType + "'"));
        }
        if (mimeType.length() > 255 || !MIME.matcher(mimeType).matches()) {
            throw new InvalidContentException(path, "must be a MIME type such as image/png, got '"
                    + shorten(mimeType) + "'");
        }
        return mimeType;
    }

    static String uri(String path, String uri) {
        if (uri == null || uri.isBlank()) {
            throw new InvalidContentException(path, "must be an absolute URI such as file:///report.txt, got "
                    + (uri == null ? "null" : "'" + uri + "'"));
        }
        if (uri.length() > MAX_NAME_CHARS) {
            throw new InvalidContentException(path, uri.length() + " characters is longer than " + MAX_NAME_CHARS);
        }
        try {
            if (!new URI(uri).isAbsolute()) {
                throw new InvalidContentException(path, "must be an absolute URI (with a scheme), got '" + shorten(uri) + "'");
            }
        } catch (URISyntaxException e) {
            throw new InvalidContentException(path, "is not a URI: " + e.getReason());
        }
        return uri;
    }

    static String name(String path, String name) {
        if (name == null || name.isBlank()) {
            throw new InvalidContentException(path, "must not be empty");
        }
        if (name.length() > MAX_NAME_CHARS || name.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidContentException(path, "must be 1-" + MAX_NAME_CHARS + " characters without control characters");
        }
        return name;
    }

    private static String shorten(String s) {
        String printable = s.codePoints().map(c -> Character.isISOControl(c) ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        return printable.length() <= 80 ? printable : printable.substring(0, 80) + "...";
    }
}
