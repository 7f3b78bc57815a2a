package dev.toolgate.springai;

import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.conversation.Decision;
import dev.toolgate.conversation.Repeat;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Consent;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ProposeApplyException;
import dev.toolgate.call.StaleProposalException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.json.FieldDiff;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Feedback;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON a model reads as a tool's result, one shape per outcome. Every outcome, fault or not, is a
 * result with a {@code status}; nothing here throws, so nothing reaches Spring AI's exception handling.
 */
final class ModelReplies {

    private ModelReplies() {
    }

    /** A gate result; a proposal's status says who consents, its token is included only when {@code showToken}. */
    static String of(CallResult result, String chatName, boolean showToken, Consent consent) {
        if (result instanceof Proposal proposal) {
            return proposal(proposal, chatName, showToken, consent);
        }
        ObjectNode json = result.toJson();
        json.put("tool", chatName);
        return Json.write(json);
    }

    /**
     * The call of a tool that started a durable run (codemode.run): the run's own outcome (paused,
     * completed, error) with the call's id, and for a paused run who must act.
     */
    static String run(Applied applied, String chatName, Consent consent) {
        if (!(applied.result() instanceof ObjectNode outcome) || !outcome.has("executionId")) {
            return of(applied, chatName, false, consent);
        }
        ObjectNode json = outcome.deepCopy();
        json.put("callId", applied.callId());
        json.put("tool", chatName);
        consent.tellRun(json);
        return Json.write(json);
    }

    private static String proposal(Proposal p, String chatName, boolean showToken, Consent consent) {
        ObjectNode json = Json.object();
        json.put("status", consent.awaitingStatus());
        json.put("proposalId", p.callId());
        json.put("tool", chatName);
        json.put("effect", p.effect().wireName());
        json.put("summary", p.summary());
        json.set("payload", p.payload().deepCopy());
        json.set("diff", FieldDiff.toJson(p.diff()));
        json.put("expiresAt", p.expiresAt().toString());
        if (showToken) {
            json.put("token", p.token());
        }
        json.put("next", consent == Consent.USER
                ? "Nothing has changed yet: the change waits for the user's approval. Tell the user what will change "
                + "(summary and diff) and that it runs only once they approve it. Do not propose the same change again."
                : "Nothing has changed yet: an operator decides this change outside this conversation. Tell the user what "
                + "will change (summary and diff) and that it awaits an operator's approval. Do not propose the same change again.");
        return Json.write(json);
    }

    static String feedback(Feedback feedback) {
        ObjectNode json = Json.object();
        json.put("status", "invalid");
        json.setAll(feedback.toJson());
        json.put("next", "Correct the arguments named in issues and call the tool again.");
        return Json.write(json);
    }

    static String overBudget(BudgetExceededException e) {
        ObjectNode json = Json.object();
        json.put("status", "over_budget");
        json.put("retryAfterSeconds", e.retryAfterSeconds());
        json.put("retryAfterMillis", Math.max(1, e.retryAfter().toMillis()));
        if (e.limit() != null) {
            json.put("limit", e.limit().calls());
            json.put("windowSeconds", e.limit().window().toSeconds());
        }
        json.put("message", "Too many tool calls; nothing ran. Retry after " + e.retryAfterSeconds() + " s or answer without the tool.");
        return Json.write(json);
    }

    /** The gate's store is unavailable: nothing was done; when to try again, or that an operator must act. */
    static String storeUnavailable(dev.toolgate.spi.StoreUnavailableException e) {
        ObjectNode json = e.toJson();
        return Json.write(json);
    }

    static String forbidden(ForbiddenException e, String chatName) {
        ObjectNode json = Json.object();
        json.put("status", "forbidden");
        json.put("code", e.code());
        json.put("tool", chatName);
        var missing = json.putArray("missingRules");
        e.missingRules().stream().sorted().forEach(missing::add);
        json.put("message", "You may not use " + chatName + " here; nothing ran. Do not retry.");
        return Json.write(json);
    }

    /**
     * A name that is not offered: made up, mapped wrongly, or a tool the principal may not see, one and
     * the same answer for all of them. A name longer than any chat name is shown cut.
     */
    static String unknownTool(String chatName) {
        String shown = chatName == null ? "" : chatName.length() > 100 ? chatName.substring(0, 100) + "..." : chatName;
        ObjectNode json = Json.object();
        json.put("status", "unknown_tool");
        json.put("tool", shown);
        json.put("message", "No tool named " + shown + " is available; nothing ran.");
        return Json.write(json);
    }

    /** A change policy applied at once found its object changed under it (another change was applying). */
    static String stale(StaleProposalException e, String chatName) {
        ObjectNode json = Json.object();
        json.put("status", "stale");
        json.put("tool", chatName);
        json.set("changes", FieldDiff.toJson(e.changes()));
        json.put("message", e.getMessage() + ". Tell the user nothing was changed; read the current state before proposing "
                + "again.");
        return Json.write(json);
    }

    static String gateError(ProposeApplyException e) {
        ObjectNode json = Json.object();
        json.put("status", "error");
        json.put("code", e.code());
        json.put("message", e.getMessage());
        return Json.write(json);
    }

    static String failed(ToolExecutionException e, String chatName) {
        ObjectNode json = Json.object();
        json.put("status", "failed");
        json.put("callId", e.callId());
        json.put("tool", chatName);
        json.put("timedOut", e.timedOut());
        json.put("message", e.getMessage());
        return Json.write(json);
    }

    static String internal(String chatName) {
        ObjectNode json = Json.object();
        json.put("status", "error");
        json.put("code", "internal");
        json.put("tool", chatName);
        json.put("message", "The tool could not be run because of an internal error; nothing was changed.");
        return Json.write(json);
    }

    /** The same call already succeeded (or is running) in this model response: use that answer. */
    static String duplicate(String chatName) {
        ObjectNode json = Json.object();
        json.put("status", "duplicate");
        json.put("tool", chatName);
        json.put("message", "You sent this exact call twice in one response; it ran once. Use the answer to the first "
                + "call; nothing more was done.");
        return Json.write(json);
    }

    /** The same change was proposed earlier in this conversation and still awaits a decision. */
    static String pendingRepeat(Repeat.Pending pending, String chatName) {
        ObjectNode json = Json.object();
        json.put("status", "duplicate");
        json.put("tool", chatName);
        json.put("proposalId", pending.proposalId());
        if (pending.summary() != null) {
            json.put("summary", pending.summary());
        }
        json.put("expiresAt", pending.expiresAt().toString());
        json.put("message", "This same change was already proposed earlier in this conversation and still awaits "
                + "approval (proposalId); nothing new was proposed. Do not propose it again; you will be told the decision.");
        return Json.write(json);
    }

    /** The same change was declined earlier in this conversation, and the decline still stands. */
    static String declinedRepeat(Decision decision, String chatName) {
        ObjectNode json = Json.object();
        json.put("status", "declined");
        json.put("tool", chatName);
        json.put("proposalId", decision.proposalId());
        json.put("decidedBy", decision.decidedBy().wireName());
        if (decision.reason() != null) {
            json.put("reason", decision.reason());
        }
        json.put("message", "This same change was declined earlier in this conversation; nothing ran. Tell the user "
                + "the reason; do not propose it again unless the user asks for something different.");
        return Json.write(json);
    }
}
