package dev.toolgate.conversation;

import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What became of a proposal a model made in a conversation, as the model is told on its next turn:
 * applied (with its result), applied and since reverted, failed, declined (with the operator's reason),
 * expired, replaced by an operator's edit, or stale (the object changed before it ran). Who decided is a role ({@link Decider}), never a name; nothing here carries a token.
 * The summary, reason, result and error are as the audit trail holds them: redacted, the result
 * size-capped.
 *
 * @param proposalId the proposal's call id (what the model saw as {@code proposalId})
 * @param toolName   the tool's qualified name
 * @param effect     MUTATE or DESTRUCTIVE (or READ under an approval policy)
 * @param outcome    what was decided
 * @param decidedBy  who decided, as a role
 * @param summary    the proposal's summary, or null
 * @param reason     the operator's reason, or null
 * @param result     for {@link Outcome#APPLIED} and {@link Outcome#REVERTED}: the tool's result, else null
 * @param error      for {@link Outcome#FAILED}: why, else null
 * @param replacedBy for {@link Outcome#EDITED}: the proposal that replaced it, else null
 * @param decidedAt  when it was decided (store time)
 */
public record Decision(String proposalId, String toolName, Effect effect, Outcome outcome, Decider decidedBy,
                       String summary, String reason, JsonNode result, String error, String replacedBy,
                       Instant decidedAt) {

    /** What was decided. */
    public enum Outcome {
        /** Approved and run: the change was made; {@link #result()} holds what the tool returned. */
        APPLIED,
        /**
         * Approved and run, then undone by a rollback before the conversation was told: the change is no
         * longer in place. {@link #result()} holds what the tool returned when it ran. (A conversation told
         * of an applied change before the rollback is not told again.)
         */
        REVERTED,
        /** Approved, but running it failed (or it was in doubt and an operator found it not made). */
        FAILED,
        /** An operator declined it, usually with a {@link #reason()}; nothing ran. */
        DECLINED,
        /** Nobody decided before it expired; nothing ran. */
        EXPIRED,
        /** An operator edited it: {@link #replacedBy()} is the edited proposal, which awaits its own decision. */
        EDITED,
        /**
         * It was approved, but the state its preview was made from had changed by then, so nothing ran;
         * {@link #reason()} says what changed.
         */
        STALE;

        /** The lower-case name the model reads, for example {@code declined}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Who decided, as a role: never a principal's id. */
    public enum Decider {
        /** The conversation's own principal (it applied its token, or approved its own proposal). */
        USER,
        /** Another principal: an operator in the inbox or the console. */
        OPERATOR,
        /** Nobody: the proposal's time ran out. */
        NOBODY;

        /** The lower-case name the model reads. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Checks the components; see the class description for what each must hold. */
    public Decision {
        Objects.requireNonNull(proposalId, "proposalId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(decidedBy, "decidedBy");
        Objects.requireNonNull(decidedAt, "decidedAt");
    }

    /**
     * The decision as the model reads it: {@code type} ({@code decision}), {@code proposalId},
     * {@code tool} (as the model knows it, through {@code toolNames}), {@code summary}, {@code decision},
     * {@code decidedBy}, {@code decidedAt}, then {@code reason}, {@code result}, {@code error} and
     * {@code replacedBy} where they apply, and {@code next}: what to do with it.
     *
     * @param toolNames maps the qualified tool name to the name the model was offered (identity if null)
     */
    public ObjectNode toJson(UnaryOperator<String> toolNames) {
        ObjectNode json = Json.object();
        json.put("type", "decision");
        json.put("proposalId", proposalId);
        json.put("tool", toolNames == null ? toolName : toolNames.apply(toolName));
        if (summary != null) {
            json.put("summary", summary);
        }
        json.put("decision", outcome.wireName());
        json.put("decidedBy", decidedBy.wireName());
        json.put("decidedAt", decidedAt.toString());
        if (reason != null) {
            json.put("reason", reason);
        }
        if (result != null) {
            json.set("result", result.deepCopy());
        }
        if (error != null) {
            json.put("error", error);
        }
        if (replacedBy != null) {
            json.put("replacedBy", replacedBy);
        }
        json.put("next", next());
        return json;
    }

    /** What the model should make of this decision. */
    private String next() {
        return switch (outcome) {
            case APPLIED -> "The change was made. Tell the user it is done; do not propose it again.";
            case REVERTED -> "The change was made, then undone by a rollback, so it is no longer in place. Tell the "
                    + "user; propose it again only if they ask.";
            case FAILED -> "The change was approved but it failed, so it was not made. Tell the user; propose it "
                    + "again only if they ask.";
            case DECLINED -> "The change was declined and not made. Tell the user why; do not propose the same change "
                    + "again unless the user asks for it with something different.";
            case EXPIRED -> "Nobody approved the change in time, so it was not made. Propose it again only if the "
                    + "user still wants it.";
            case EDITED -> "An operator edited the change; the edited proposal (replacedBy) awaits approval. Nothing "
                    + "was made yet; do not propose it again.";
            case STALE -> "The change was not made: what it would change had changed since it was proposed (see reason). "
                    + "Tell the user; if they still want it, propose it again from the current state.";
        };
    }
}
