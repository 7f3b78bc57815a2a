package dev.toolgate.call;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.json.FieldChange;
import dev.toolgate.json.FieldDiff;
import dev.toolgate.tool.ContentResult;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A proposal was applied: its stored payload ran once. Also the result of a mutation auto-applied
 * in AUTO mode, which is never silent: the applied card shows the summary, the result and the diff.
 *
 * @param callId     the proposal's audit record id
 * @param toolName   the tool
 * @param summary    the proposal's summary
 * @param result     the result, redacted and size-capped
 * @param diff       the before/after changes shown at propose time
 * @param appliedBy  who applied or approved it
 * @param automatic  true if AUTO mode or an ALLOW policy applied it without a human step
 * @param supersedes the proposal an operator's edit replaced, or null
 * @param content    the tool's {@link ContentResult} if it returned one (as for {@link Executed#content()}),
 *                   or null; {@code result} is then its JSON view
 */
public record Applied(String callId, String toolName, String summary, JsonNode result, List<FieldChange> diff,
                      PrincipalRef appliedBy, boolean automatic, String supersedes, ContentResult content)
        implements CallResult {

    /** A result without content items: the tool returned a plain value. */
    public Applied(String callId, String toolName, String summary, JsonNode result, List<FieldChange> diff,
                   PrincipalRef appliedBy, boolean automatic, String supersedes) {
        this(callId, toolName, summary, result, diff, appliedBy, automatic, supersedes, null);
    }

    /** Checks the components; see the class description for what each must hold. */
    public Applied {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(result, "result");
        diff = List.copyOf(diff);
        Objects.requireNonNull(appliedBy, "appliedBy");
    }

    @Override
    public String status() {
        return "applied";
    }

    @Override
    public ObjectNode toJson() {
        ObjectNode json = CallResult.envelope(this);
        json.put("summary", summary);
        json.set("result", result.deepCopy());
        json.set("diff", FieldDiff.toJson(diff));
        json.put("appliedBy", appliedBy.key());
        json.put("automatic", automatic);
        if (supersedes != null) {
            json.put("supersedes", supersedes);
        }
        return json;
    }
}
