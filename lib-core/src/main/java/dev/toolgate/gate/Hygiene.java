package dev.toolgate.gate;

import dev.toolgate.json.FieldChange;
import dev.toolgate.json.JsonTruncator;
import dev.toolgate.json.Redactor;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.StringNode;

/** What leaves the gate or enters the audit trail: redacted, and results capped structurally. */
final class Hygiene {

    private final Redactor redactor;
    private final int resultLimitBytes;

    Hygiene(Redactor redactor, int resultLimitBytes) {
        this.redactor = redactor;
        this.resultLimitBytes = resultLimitBytes;
    }

    /** A result redacted, then pruned to the cap. */
    JsonTruncator.Truncation result(JsonNode result) {
        return JsonTruncator.truncate(redactor.redact(result), resultLimitBytes);
    }

    /** A diff with sensitive fields (by the last path segment or nested keys) redacted. */
    List<FieldChange> diff(List<FieldChange> diff) {
        List<FieldChange> safe = new ArrayList<>(diff.size());
        for (FieldChange change : diff) {
            String path = change.path();
            String field = path.substring(path.lastIndexOf('/') + 1).replace("~1", "/").replace("~0", "~");
            if (redactor.isSensitive(field)) {
                StringNode hidden = StringNode.valueOf(Redactor.REDACTED);
                safe.add(new FieldChange(path, change.before() == null ? null : hidden, change.after() == null ? null : hidden));
            } else {
                safe.add(new FieldChange(path, redact(change.before()), redact(change.after())));
            }
        }
        return safe;
    }

    /** An exception's message for the audit trail and the caller: type and message, secrets redacted. */
    String error(Throwable error) {
        String message = error.getMessage();
        String text = error.getClass().getSimpleName() + (message == null ? "" : ": " + message);
        return redactor.redactText(text);
    }

    private JsonNode redact(JsonNode node) {
        return node == null ? null : redactor.redact(node);
    }
}
