package dev.toolgate.execution;

import dev.toolgate.json.FieldChange;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A step of a paused run that waits for consent, with what its dry-run showed.
 *
 * @param executionId the run
 * @param seq         the step, from 1
 * @param callId      the step's proposal in the audit trail (and the operator inbox)
 * @param tool        the tool
 * @param arguments   the stored payload the step will run, redacted
 * @param summary     the dry-run's summary
 * @param diff        the dry-run's before/after changes
 * @param expiresAt   when the step, and with it the run, expires
 */
public record PendingAction(String executionId, int seq, String callId, String tool, JsonNode arguments, String summary,
                            List<FieldChange> diff, Instant expiresAt) {

    /** Checks the components; see the class description for what each must hold. */
    public PendingAction {
        Objects.requireNonNull(executionId, "executionId");
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(tool, "tool");
        diff = List.copyOf(diff);
    }

    /** As JSON for a client: {@code {executionId, seq, callId, tool, arguments, summary, diff, expiresAt}}. */
    public ObjectNode toJson() {
        ObjectNode json = tools.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        json.put("executionId", executionId);
        json.put("seq", seq);
        json.put("callId", callId);
        json.put("tool", tool);
        json.set("arguments", arguments);
        json.put("summary", summary);
        json.set("diff", dev.toolgate.json.FieldDiff.toJson(diff));
        json.put("expiresAt", expiresAt == null ? null : expiresAt.toString());
        return json;
    }
}
