package dev.toolgate.mcp;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.call.Consent;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Who consents to a change over one MCP server, and what the client is told. With {@link Consent#USER}
 * (the default) the token is the consent gate: a proposal goes to the client with its token (status
 * {@code awaiting_user}), the client applies it through the apply tool after the user agreed, and a
 * DESTRUCTIVE change is confirmed again through elicitation (refused when the client cannot elicit,
 * unless the host allowed it). With {@link Consent#OPERATOR} the client never receives a token, is
 * offered no apply, approve, reject or rollback tool, and every proposal and paused step waits for an
 * operator (status {@code awaiting_operator}).
 */
final class ClientConsent {

    private static final Logger LOG = LoggerFactory.getLogger(ClientConsent.class);

    private final Consent consent;
    private final boolean destructiveWithoutElicitation;
    private final String applyToolName;

    ClientConsent(Consent consent, boolean destructiveWithoutElicitation, String applyToolName) {
        this.consent = Objects.requireNonNull(consent, "consent");
        this.destructiveWithoutElicitation = destructiveWithoutElicitation;
        this.applyToolName = applyToolName;
    }

    /** The seed's choice: the client's user consents with the token; destructive changes need elicitation. */
    static ClientConsent user(String applyToolName) {
        return new ClientConsent(Consent.USER, false, applyToolName);
    }

    Consent consent() {
        return consent;
    }

    /** True if the client may decide: the apply tool and the run decision tools are served. */
    boolean clientDecides() {
        return consent == Consent.USER;
    }

    /**
     * A proposal as the client reads it: who must act, and the token only if the client may use it. A
     * DESTRUCTIVE one offered to a client that cannot confirm it (no elicitation, not allowed by the
     * host) waits for an operator, and says so.
     */
    ObjectNode proposal(Proposal proposal, McpSyncServerExchange exchange) {
        ObjectNode json = proposal.toJson();
        boolean unconfirmable = clientDecides() && proposal.effect() == Effect.DESTRUCTIVE && !destructiveWithoutElicitation
                && !elicitationSupported(exchange);
        json.put("status", unconfirmable ? Consent.OPERATOR.awaitingStatus() : consent.awaitingStatus());
        if (unconfirmable) {
            json.remove("token");
            json.put("next", "Nothing has changed yet. This client cannot ask the user to confirm a destructive change, so "
                    + "an operator decides it outside this conversation. Tell the user what will change (summary and "
                    + "diff) and that it awaits an operator's approval. Do not propose the same change again.");
        } else if (clientDecides()) {
            json.put("applyTool", applyToolName);
            json.put("next", "Nothing has changed yet. Show the user the summary and diff; only after they agree, call "
                    + applyToolName + " with this token. Do not propose the same change again.");
        } else {
            json.remove("token");
            json.put("next", "Nothing has changed yet: an operator decides this change outside this conversation. Tell "
                    + "the user what will change (summary and diff) and that it awaits an operator's approval. Do not "
                    + "propose the same change again.");
        }
        return json;
    }

    /**
     * A run's outcome as the client reads it: a paused one says who must act and how; one paused at a
     * DESTRUCTIVE step this client cannot confirm waits for an operator, and says so.
     *
     * @param destructive whether a tool (by name) is DESTRUCTIVE
     */
    ObjectNode outcome(ExecutionOutcome outcome, McpSyncServerExchange exchange, Predicate<String> destructive) {
        return outcome(outcome.toJson(), exchange, destructive);
    }

    /** A run's outcome as JSON (from a tool that starts a run, such as codemode.run), adjusted the same way. */
    ObjectNode outcome(ObjectNode json, McpSyncServerExchange exchange, Predicate<String> destructive) {
        boolean unconfirmable = clientDecides() && !destructiveWithoutElicitation && !elicitationSupported(exchange)
                && json.path("pending").valueStream().anyMatch(step -> destructive.test(step.path("tool").asString("")));
        Consent who = unconfirmable ? Consent.OPERATOR : consent;
        who.tellRun(json);
        if (who == Consent.USER && json.has("awaiting")) {
            json.put("approveTool", RunDecisions.APPROVE);
            json.put("next", "The run is paused; nothing of the pending step has happened. Show the user its summary; "
                    + "only after they agree, call " + RunDecisions.APPROVE + " with the executionId and the step's seq "
                    + "(or " + RunDecisions.REJECT + " if they do not).");
        }
        return json;
    }

    /**
     * Asks the user to confirm a destructive change; null if they accepted (or the host allowed a
     * client that cannot elicit to apply on the tool call alone), else the result telling the model
     * nothing was applied.
     */
    ObjectNode confirmDestructive(McpSyncServerExchange exchange, String callId, String toolName, String summary) {
        String code;
        if (!elicitationSupported(exchange)) {
            if (destructiveWithoutElicitation) {
                return null;
            }
            code = "confirmation_unavailable";
        } else {
            code = ask(exchange, callId, toolName, summary);
            if (code == null) {
                return null;
            }
        }
        ObjectNode json = Json.object();
        json.put("status", "not_applied");
        json.put("kind", "consent");
        json.put("code", code);
        json.put("callId", callId);
        json.put("tool", toolName);
        json.put("message", switch (code) {
            case "declined" -> "The user declined this destructive change; it was not applied. Do not retry unless they ask.";
            case "cancelled" -> "The user dismissed the confirmation; the change was not applied.";
            case "confirmation_unavailable" -> "This client cannot ask the user to confirm a destructive change "
                    + "(no elicitation), so it was not applied. It stays pending: an operator can approve it in the "
                    + "console, or the user can apply it from a client that can confirm.";
            default -> "The user could not be asked to confirm; the change was not applied.";
        });
        return json;
    }

    /** Null if the user accepted, else {@code declined}, {@code cancelled} or {@code unavailable}. */
    private static String ask(McpSyncServerExchange exchange, String callId, String toolName, String summary) {
        String message = "Apply this destructive change? " + summary + " (tool " + toolName
                + ", proposal " + callId + "). It deletes or irreversibly changes data.";
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", Map.of());
        try {
            ElicitResult answer = exchange.createElicitation(new FormElicitation(message, schema));
            if (answer != null && answer.action() == ElicitResult.Action.ACCEPT) {
                return null;
            }
            return answer == null || answer.action() == ElicitResult.Action.CANCEL ? "cancelled" : "declined";
        } catch (RuntimeException e) {
            LOG.warn("Asking the user to confirm proposal {} failed: {}", callId, e.toString());
            return "unavailable";
        }
    }

    private static boolean elicitationSupported(McpSyncServerExchange exchange) {
        McpSchema.ClientCapabilities capabilities = exchange.getClientCapabilities();
        return capabilities != null && capabilities.elicitation() != null;
    }

    /**
     * A form-mode {@code elicitation/create} request. The SDK's own {@code ElicitFormRequest} cannot be
     * written by Jackson 3 (its {@code mode} property clashes with the type id of the same name), so
     * this writes the same JSON without type handling: {@code {mode, message, requestedSchema}}.
     */
    @JsonTypeInfo(use = JsonTypeInfo.Id.NONE)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"mode", "message", "requestedSchema"})
    record FormElicitation(@JsonProperty("message") String message,
                           @JsonProperty("requestedSchema") Map<String, Object> requestedSchema)
            implements McpSchema.ElicitRequest {

        @Override
        @JsonProperty("mode")
        public String mode() {
            return "form";
        }

        @Override
        @JsonIgnore
        public Map<String, Object> meta() {
            return null;
        }
    }
}
