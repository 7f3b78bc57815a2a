package dev.toolgate.langchain4j;

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
import dev.toolgate.json.Json;
import dev.toolgate.tool.ToolValidationException;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a gate call tells the model, as JSON: every outcome and every fault the model can act on is a
 * result, never an exception thrown through LangChain4j's tool loop.
 */
final class ToolOutcomes {

    private ToolOutcomes() {
    }

    /** The JSON of a result plus whether it is an error for the model. */
    record Outcome(ObjectNode json, boolean error) {
        String text() {
            return Json.write(json);
        }
    }

    static Outcome of(CallResult result, boolean exposeToken, Consent consent) {
        ObjectNode json = result.toJson();
        if (result instanceof Proposal) {
            json.put("status", consent.awaitingStatus());
            if (!exposeToken) {
                json.remove("token");
            }
            json.put("message", consent == Consent.USER
                    ? "Nothing was changed yet: the proposal awaits the user's approval. Show them the summary; it runs "
                    + "only once they approve it. Do not propose it again."
                    : "Nothing was changed yet: the proposal awaits an operator's approval. Show the summary to the user; "
                    + "do not propose it again.");
        }
        return new Outcome(json, result.status().equals("denied"));
    }

    /**
     * The call of a tool that started a durable run (codemode.run): the run's own outcome (paused,
     * completed, error) with the call's id, and for a paused run who must act.
     */
    static Outcome run(Applied applied, Consent consent) {
        if (!(applied.result() instanceof ObjectNode outcome) || !outcome.has("executionId")) {
            return of(applied, false, consent);
        }
        ObjectNode json = outcome.deepCopy();
        json.put("callId", applied.callId());
        consent.tellRun(json);
        String status = json.path("status").asString("");
        return new Outcome(json, status.equals("error") || status.equals("failed"));
    }

    static Outcome budget(BudgetExceededException e) {
        ObjectNode json = Json.object();
        json.put("status", "over_budget");
        json.put("kind", "budget");
        json.put("retryAfterSeconds", e.retryAfterSeconds());
        json.put("message", "Too many tool calls: wait " + e.retryAfterSeconds() + " s before calling a tool again.");
        return new Outcome(json, true);
    }

    /** The gate's store is unavailable: nothing was done; when to try again, or that an operator must act. */
    static Outcome storeUnavailable(dev.toolgate.spi.StoreUnavailableException e) {
        ObjectNode json = e.toJson();
        return new Outcome(json, true);
    }

    static Outcome validation(ToolValidationException e, String toolName) {
        ObjectNode json = (e.toolName() == null ? e.forTool(toolName) : e).feedback().toJson();
        json.put("status", "invalid");
        return new Outcome(json, true);
    }

    /** The same call already succeeded (or is running) in this model response: use that answer. */
    static Outcome duplicate(String toolName) {
        ObjectNode json = Json.object();
        json.put("status", "duplicate");
        json.put("kind", "duplicate");
        json.put("toolName", toolName);
        json.put("message", "You sent this exact call twice in one response; it ran once. Use the answer to the first "
                + "call; nothing more was done.");
        return new Outcome(json, true);
    }

    /** The same change was proposed earlier in this conversation and still awaits a decision. */
    static Outcome pendingRepeat(Repeat.Pending pending, String toolName) {
        ObjectNode json = Json.object();
        json.put("status", "duplicate");
        json.put("kind", "duplicate");
        json.put("toolName", toolName);
        json.put("callId", pending.proposalId());
        if (pending.summary() != null) {
            json.put("summary", pending.summary());
        }
        json.put("expiresAt", pending.expiresAt().toString());
        json.put("message", "This same change was already proposed earlier in this conversation and still awaits "
                + "approval (callId); nothing new was proposed. Do not propose it again; you will be told the decision.");
        return new Outcome(json, true);
    }

    /** The same change was declined earlier in this conversation, and the decline still stands. */
    static Outcome declinedRepeat(Decision decision, String toolName) {
        ObjectNode json = Json.object();
        json.put("status", "declined");
        json.put("kind", "declined");
        json.put("toolName", toolName);
        json.put("callId", decision.proposalId());
        json.put("decidedBy", decision.decidedBy().wireName());
        if (decision.reason() != null) {
            json.put("reason", decision.reason());
        }
        json.put("message", "This same change was declined earlier in this conversation; nothing ran. Tell the user "
                + "the reason; do not propose it again unless the user asks for something different.");
        return new Outcome(json, true);
    }

    /**
     * A function that is not offered: made up, or a tool the caller may not see, one and the same answer
     * for all (not marked as an error, as LangChain4j marks none for a hallucinated name). A name longer
     * than any function name is shown cut.
     */
    static Outcome unknownTool(String functionName) {
        String shown = functionName == null ? "" : functionName.length() > 100 ? functionName.substring(0, 100) + "..." : functionName;
        ObjectNode json = Json.object();
        json.put("status", "unknown_tool");
        json.put("toolName", shown);
        json.put("message", "No tool named '" + shown + "' is available to you; use only the tools offered. Nothing ran.");
        return new Outcome(json, false);
    }

    static Outcome forbidden(ForbiddenException e) {
        ObjectNode json = Json.object();
        json.put("status", "forbidden");
        json.put("kind", "forbidden");
        json.put("code", e.code());
        json.put("toolName", e.toolName());
        ArrayNode missing = json.putArray("missingRules");
        e.missingRules().stream().sorted().forEach(missing::add);
        json.put("message", e.getMessage());
        return new Outcome(json, true);
    }

    /** A change policy applied at once found its object changed under it (another change was applying). */
    static Outcome stale(StaleProposalException e, String toolName) {
        ObjectNode json = Json.object();
        json.put("status", "stale");
        json.put("kind", "stale");
        json.put("toolName", toolName);
        json.set("changes", dev.toolgate.json.FieldDiff.toJson(e.changes()));
        json.put("message", e.getMessage() + ". Tell the user nothing was changed; read the current state before proposing "
                + "again.");
        return new Outcome(json, true);
    }

    static Outcome gate(ProposeApplyException e) {
        ObjectNode json = Json.object();
        json.put("status", "error");
        json.put("kind", "gate");
        json.put("code", e.code());
        json.put("message", e.getMessage());
        return new Outcome(json, true);
    }

    static Outcome failed(ToolExecutionException e) {
        ObjectNode json = Json.object();
        json.put("status", "failed");
        json.put("kind", "execution");
        json.put("callId", e.callId());
        json.put("toolName", e.toolName());
        json.put("timedOut", e.timedOut());
        json.put("message", e.getMessage());
        return new Outcome(json, true);
    }

    static Outcome internal(String toolName) {
        ObjectNode json = Json.object();
        json.put("status", "error");
        json.put("kind", "internal");
        json.put("toolName", toolName);
        json.put("message", "The tool could not be run because of an internal error; it was logged for the operator.");
        return new Outcome(json, true);
    }
}
