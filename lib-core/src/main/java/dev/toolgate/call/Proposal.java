package dev.toolgate.call;

import dev.toolgate.json.FieldChange;
import dev.toolgate.json.FieldDiff;
import dev.toolgate.policy.ModeResolution;
import dev.toolgate.tool.Effect;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A mutation that was dry-run and now waits for consent: apply its {@link #token()} or approve it in
 * the inbox. Its status here is {@code awaiting_operator}, which tells the model to stop re-proposing
 * and wait; an adapter that hands the consent to the user (the MCP server and the chat adapters with
 * {@link Consent#USER}) says {@code awaiting_user} instead. The summary, payload and diff are what a
 * confirm card shows.
 *
 * @param callId    the proposal's audit record id
 * @param toolName  the tool
 * @param effect    MUTATE or DESTRUCTIVE (or READ under REQUIRE_APPROVAL)
 * @param token     the single-use token, {@code propose:<callId>.<nonce>}; shown once, never stored
 * @param summary   the dry-run's summary
 * @param payload   exactly what apply will execute
 * @param diff      before/after changes, possibly empty
 * @param expiresAt when the token stops working
 * @param mode      the policy mode and its source
 */
public record Proposal(String callId, String toolName, Effect effect, String token, String summary, JsonNode payload,
                       List<FieldChange> diff, Instant expiresAt, ModeResolution mode) implements CallResult {

    /** Checks the components; see the class description for what each must hold. */
    public Proposal {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(payload, "payload");
        diff = List.copyOf(diff);
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(mode, "mode");
    }

    @Override
    public String status() {
        return "awaiting_operator";
    }

    /**
     * The confirm-card JSON: status, callId, tool, effect, token, summary, payload, diff, expiresAt,
     * mode and modeSource.
     */
    @Override
    public ObjectNode toJson() {
        ObjectNode json = CallResult.envelope(this);
        json.put("effect", effect.wireName());
        json.put("token", token);
        json.put("summary", summary);
        json.set("payload", payload.deepCopy());
        json.set("diff", FieldDiff.toJson(diff));
        json.put("expiresAt", expiresAt.toString());
        json.put("mode", mode.mode().wireName());
        json.put("modeSource", mode.source().wireName());
        if (mode.drifted()) {
            json.put("drifted", true);
        }
        return json;
    }

    @Override
    public String toString() {
        return "Proposal[" + callId + ", " + toolName + ", " + summary + "]";
    }
}
