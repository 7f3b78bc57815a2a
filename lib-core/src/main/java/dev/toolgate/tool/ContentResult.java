package dev.toolgate.tool;

import dev.toolgate.json.CanonicalJson;
import dev.toolgate.json.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool result made of {@link Content} items (text, images, audio, resources) and optionally
 * structured content: what an MCP tool returns. A tool's execute function may return one instead of a
 * plain value; over MCP the items become the call's {@code content} and {@code structured} its
 * {@code structuredContent}. Everywhere else (the audit trail, {@code Executed.result()}, code mode,
 * other transports) the result reads as its {@link #toJson() JSON view}, in which binary data is
 * replaced by its MIME type, byte count and SHA-256, so it never bloats or leaks into the audit.
 *
 * <p>Checked when built, failing with an {@link InvalidContentException} that names the item: at
 * least one item, at most {@link #MAX_ITEMS}, at most {@link #MAX_TOTAL_CHARS} characters of text and
 * base64 in all, and structured content, if any, a JSON object.
 *
 * <pre>{@code
 * .execute((in, ctx) -> ContentResult.of(Content.text("Here is the chart"), Content.image(png, "image/png"))
 *         .withStructured(Map.of("points", 42)))
 * }</pre>
 *
 * @param content    the items, in order; copied
 * @param structured the structured content (a JSON object), or null; copied
 */
public record ContentResult(List<Content> content, ObjectNode structured) {

    /** The most items a result may hold: 256. */
    public static final int MAX_ITEMS = 256;

    /** The most characters of text and base64 a result may hold in all: 16 MiB. */
    public static final long MAX_TOTAL_CHARS = Content.MAX_CHARS;

    /** Checks the components; see the class description. */
    public ContentResult {
        if (content == null) {
            throw new InvalidContentException("/content", "must not be null");
        }
        if (content.isEmpty()) {
            throw new InvalidContentException("/content", "must hold at least one item");
        }
        if (content.size() > MAX_ITEMS) {
            throw new InvalidContentException("/content", content.size() + " items is more than " + MAX_ITEMS);
        }
        long total = 0;
        for (int i = 0; i < content.size(); i++) {
            Content item = content.get(i);
            if (item == null) {
                throw new InvalidContentException("/content/" + i, "must not be null");
            }
            total += chars(item);
            if (total > MAX_TOTAL_CHARS) {
                throw new InvalidContentException("/content/" + i, "the items up to here hold " + total
                        + " characters of text and base64; a result may hold " + MAX_TOTAL_CHARS);
            }
        }
        content = List.copyOf(content);
        structured = structured == null ? null : structured.deepCopy();
    }

    /** A result of these items. */
    public static ContentResult of(Content... content) {
        return new ContentResult(content == null ? null : Arrays.asList(content), null);
    }

    /** A result of these items. */
    public static ContentResult of(List<? extends Content> content) {
        return new ContentResult(content == null ? null : new ArrayList<>(content), null);
    }

    /**
     * A result whose structured content is {@code value} (any value that serializes to a JSON object:
     * a record, a map, an {@link ObjectNode}), with one text item holding the same JSON, as MCP
     * recommends for clients that read only text.
     */
    public static ContentResult structured(Object value) {
        ObjectNode json = toObject(value);
        return new ContentResult(List.of(Content.text(Json.write(json))), json);
    }

    /** This result with {@code value} (serializing to a JSON object) as its structured content; null for none. */
    public ContentResult withStructured(Object value) {
        return new ContentResult(content, value == null ? null : toObject(value));
    }

    /** The structured content, if any (a copy). */
    @Override
    public ObjectNode structured() {
        return structured == null ? null : structured.deepCopy();
    }

    /**
     * The result as JSON for the audit trail and for readers without content support:
     * {@code {"content": [...], "structuredContent": {...}}}. Text items keep their text
     * ({@code {"type":"text","chars":n,"text":...}}); images, audio and blobs are described, not
     * copied: {@code {"type":"image","mimeType":"image/png","bytes":68,"sha256":"..."}}. The gate then
     * redacts and caps this view like any result.
     */
    public ObjectNode toJson() {
        ObjectNode json = Json.object();
        ArrayNode items = json.putArray("content");
        for (Content item : content) {
            ObjectNode view = items.addObject().put("type", item.type());
            if (item instanceof Content.Text t) {
                view.put("chars", t.text().length()).put("text", t.text());
            } else if (item instanceof Content.Image i) {
                binary(view.put("mimeType", i.mimeType()), i.data());
            } else if (item instanceof Content.Audio a) {
                binary(view.put("mimeType", a.mimeType()), a.data());
            } else if (item instanceof Content.EmbeddedResource r) {
                view.put("uri", r.uri()).put("mimeType", r.mimeType());
                if (r.text() != null) {
                    view.put("chars", r.text().length()).put("text", r.text());
                } else {
                    binary(view, r.blob());
                }
            } else if (item instanceof Content.ResourceLink l) {
                view.put("uri", l.uri()).put("name", l.name());
                putIfSet(view, "title", l.title());
                putIfSet(view, "mimeType", l.mimeType());
                if (l.size() != null) {
                    view.put("size", l.size());
                }
            }
        }
        if (structured != null) {
            json.set("structuredContent", structured.deepCopy());
        }
        return json;
    }

    private static void binary(ObjectNode view, String base64) {
        byte[] bytes = Base64.getDecoder().decode(base64);
        view.put("bytes", bytes.length).put("sha256", CanonicalJson.sha256Hex(bytes));
    }

    private static void putIfSet(ObjectNode view, String key, String value) {
        if (value != null) {
            view.put(key, value);
        }
    }

    private static long chars(Content item) {
        if (item instanceof Content.Text t) {
            return t.text().length();
        }
        if (item instanceof Content.Image i) {
            return i.data().length();
        }
        if (item instanceof Content.Audio a) {
            return a.data().length();
        }
        if (item instanceof Content.EmbeddedResource r) {
            return r.text() != null ? r.text().length() : r.blob().length();
        }
        Content.ResourceLink l = (Content.ResourceLink) item;
        return l.description() == null ? 0 : l.description().length();
    }

    private static ObjectNode toObject(Object value) {
        Objects.requireNonNull(value, "value");
        JsonNode json;
        try {
            json = value instanceof JsonNode node ? node : Json.toTree(value);
        } catch (RuntimeException e) {
            throw new InvalidContentException("/structuredContent", "cannot be written as JSON: " + e.getMessage());
        }
        if (!(json instanceof ObjectNode object)) {
            throw new InvalidContentException("/structuredContent", "must be a JSON object, got " + json.getNodeType());
        }
        return object.deepCopy();
    }
}
