package dev.toolgate.gate;

import dev.toolgate.json.FieldChange;
import dev.toolgate.json.JsonTruncator;
import dev.toolgate.json.Redactor;
import dev.toolgate.json.TextCap;
import dev.toolgate.tool.Content;
import dev.toolgate.tool.ContentResult;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/** What leaves the gate or enters the audit trail: redacted, and results capped structurally. */
final class Hygiene {

    private final Redactor redactor;
    private final int resultLimitBytes;

    Hygiene(Redactor redactor, int resultLimitBytes) {
        this.redactor = redactor;
        this.resultLimitBytes = resultLimitBytes;
    }

    /**
     * A result redacted, then pruned to the cap. The redacted tree is a copy that shares no container
     * with the tool's result, so one that fits is kept as it is rather than copied again.
     */
    JsonTruncator.Truncation result(JsonNode result) {
        JsonNode redacted = redactor.redact(result);
        return JsonTruncator.fits(redacted, resultLimitBytes) ? new JsonTruncator.Truncation(redacted, false)
                : JsonTruncator.truncate(redacted, resultLimitBytes);
    }

    /**
     * A tool's content result as a transport may pass it on: text (of text items and text resources)
     * and descriptions redacted like a result's text, structured content redacted and capped like a
     * result; images, audio and blobs as they are (they are not text, and never stored). Null for null.
     */
    ContentResult content(ContentResult content) {
        if (content == null) {
            return null;
        }
        List<Content> items = new ArrayList<>(content.content().size());
        for (Content item : content.content()) {
            if (item instanceof Content.Text text) {
                items.add(Content.text(redactor.redactText(text.text())));
            } else if (item instanceof Content.EmbeddedResource resource && resource.text() != null) {
                items.add(Content.resource(resource.uri(), resource.mimeType(), redactor.redactText(resource.text())));
            } else if (item instanceof Content.ResourceLink link && link.description() != null) {
                items.add(new Content.ResourceLink(link.uri(), link.name(), link.title(),
                        redactor.redactText(link.description()), link.mimeType(), link.size()));
            } else {
                items.add(item);
            }
        }
        ObjectNode structured = content.structured();
        JsonNode safe = structured == null ? null : result(structured).value();
        return new ContentResult(items, safe instanceof ObjectNode object ? object : null);
    }

    /**
     * A diff with secrets redacted: a change under a sensitive key at any level of its path (for
     * example {@code /credentials/pass}) has both values hidden, a path segment that is itself shaped
     * like a secret is hidden, and every other value is redacted like a result.
     */
    List<FieldChange> diff(List<FieldChange> diff) {
        List<FieldChange> safe = new ArrayList<>(diff.size());
        for (FieldChange change : diff) {
            boolean sensitive = false;
            StringBuilder path = new StringBuilder();
            for (String segment : change.path().substring(change.path().startsWith("/") ? 1 : 0).split("/", -1)) {
                String key = segment.replace("~1", "/").replace("~0", "~");
                sensitive |= redactor.isSensitive(key);
                String shown = redactor.redactText(key);
                path.append('/').append(shown.equals(key) ? segment : Redactor.REDACTED);
            }
            String safePath = change.path().isEmpty() ? "" : path.toString();
            if (sensitive) {
                StringNode hidden = StringNode.valueOf(Redactor.REDACTED);
                safe.add(new FieldChange(safePath, change.before() == null ? null : hidden,
                        change.after() == null ? null : hidden));
            } else {
                safe.add(new FieldChange(safePath, redact(change.before()), redact(change.after())));
            }
        }
        return safe;
    }

    /**
     * An exception's message for the audit trail and the caller: type and message, secrets redacted,
     * then cut to {@link TextCap#MESSAGE_CHARS} characters.
     */
    String error(Throwable error) {
        String message = error.getMessage();
        String text = error.getClass().getSimpleName() + (message == null ? "" : ": " + message);
        return TextCap.forMessage(redactor.redactText(text));
    }

    private JsonNode redact(JsonNode node) {
        return node == null ? null : redactor.redact(node);
    }
}
