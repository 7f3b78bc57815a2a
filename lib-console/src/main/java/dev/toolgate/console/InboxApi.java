package dev.toolgate.console;

import dev.toolgate.Toolgate;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.Freshness;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.call.ProposeApplyException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.call.UnknownProposalException;
import dev.toolgate.json.Json;
import dev.toolgate.json.TextCap;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The inbox: what waits for an operator (proposals and paused steps of runs, calls in doubt) and the
 * decisions on it. Every decision goes through the {@link Toolgate} facade with the operator's own
 * context, so the gate re-checks the approver rule, the tenant, separation of duties and the tool's
 * rules; a card someone else decided first answers 409 {@code already_decided} and changes nothing.
 */
final class InboxApi {

    private static final Logger LOG = LoggerFactory.getLogger(InboxApi.class);
    /** Ids the gate issues are short and plain; anything else is not a call of ours. */
    static final Pattern CALL_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    static final int MAX_REASON = 500;
    /** How long a late decision waits for a running approval to finish before answering. */
    static final java.time.Duration SETTLE_WAIT = java.time.Duration.ofSeconds(2);

    private final Toolgate toolgate;

    InboxApi(Toolgate toolgate) {
        this.toolgate = toolgate;
    }

    ConsoleResponse list(Exchange exchange) {
        CallContext operator = requireOperator(toolgate, exchange);
        List<PendingProposal> pending = toolgate.pending(operator, null);
        List<CallRecord> inDoubt = toolgate.interrupted(operator);
        ObjectNode body = Json.object();
        ArrayNode cards = Json.mapper().createArrayNode();
        StringBuilder fingerprint = new StringBuilder();
        for (PendingProposal p : pending) {
            Freshness freshness = freshness(operator, p.callId());
            cards.add(Views.card(p, freshness));
            fingerprint.append(p.callId()).append('|').append(p.expiresAt()).append('|').append(p.blockedReason())
                    .append('|').append(freshness.stale() ? freshness.message() : "fresh").append('\n');
        }
        ArrayNode doubts = Json.mapper().createArrayNode();
        for (CallRecord r : inDoubt) {
            doubts.add(Views.doubt(r));
            fingerprint.append("doubt:").append(r.id()).append('\n');
        }
        String version = sha256(fingerprint.toString()).substring(0, 24);
        String etag = "\"" + version + "\"";
        ConsoleResponse.Headers headers = Responses.secured().set("ETag", etag);
        if (exchange.request.headers("If-None-Match").stream().anyMatch(v -> v.trim().equals(etag))) {
            return Responses.empty(304, headers.set("Cache-Control", "no-store"));
        }
        body.put("version", version).put("now", java.time.Instant.now().toString());
        body.set("cards", cards);
        body.set("inDoubt", doubts);
        return Responses.json(200, body, headers);
    }

    /**
     * Whether a card's preview still holds: its tool's dry-run runs again (only for a proposal whose preview
     * was made from a state); a check that fails (the store is down) shows the card as it was.
     */
    private Freshness freshness(CallContext operator, String callId) {
        try {
            return toolgate.freshness(operator, callId);
        } catch (RuntimeException e) {
            LOG.debug("Could not check whether proposal {} is still fresh: {}", callId, e.toString());
            return Freshness.fresh(callId);
        }
    }

    ConsoleResponse approve(Exchange exchange, String callId) {
        CallContext operator = requireOperator(toolgate, exchange);
        ObjectNode input = exchange.jsonBody();
        boolean always = Exchange.flag(input, "always");
        String scopeName = Exchange.text(input, "scope", false, 20).orElse(null);
        String reason = Exchange.text(input, "reason", false, MAX_REASON).filter(s -> !s.isBlank()).orElse(null);
        Approval approval;
        if (always) {
            approval = Approval.always(scope(scopeName), reason);
        } else if (scopeName != null) {
            throw ConsoleException.badRequest("scope", "A one-time approval takes no scope.");
        } else {
            approval = Approval.once(reason);
        }
        CallRecord record = visible(operator, callId);
        InboxResult result;
        try {
            result = toolgate.approve(operator, callId, approval);
        } catch (ToolExecutionException e) {
            LOG.info("Operator {} approved {}; the tool failed: {}", operator.principal().id(), callId,
                    TextCap.forLog(e.getMessage()));
            String status = toolgate.findCall(callId).map(r -> r.status().wireName()).orElse("failed");
            return Responses.json(200, Json.object().put("outcome", "failed").put("callId", callId)
                    .put("status", status).put("message", e.getMessage()));
        } catch (RuntimeException e) {
            throw translate(e);
        }
        if (result instanceof InboxResult.Approved approved) {
            logApproved(operator, callId, record, approval);
            return Responses.json(200, Json.object().put("outcome", "approved").put("callId", callId)
                    .put("status", approved.applied().status()));
        }
        if (result instanceof InboxResult.Stale stale) {
            LOG.info("Operator {} approved {} of {} in the console; it was stale and did not run", operator.principal().id(),
                    callId, record.toolName());
            ObjectNode body = Json.object().put("outcome", "stale").put("callId", callId).put("status", "stale")
                    .put("message", stale.message());
            body.set("changes", dev.toolgate.json.FieldDiff.toJson(stale.changes()));
            return Responses.json(200, body);
        }
        if (result instanceof InboxResult.Resumed resumed) {
            if (resumed.outcome().equals("not_paused")) {
                throw alreadyDecided(callId, record);
            }
            logApproved(operator, callId, record, approval);
            return Responses.json(200, Json.object().put("outcome", "resumed").put("callId", callId)
                    .put("executionId", resumed.executionId()).put("runStatus", resumed.outcome()));
        }
        throw alreadyDecided(callId, record);
    }

    /** Logged only for the request that won: a loser of a race is answered 409 and logs nothing here. */
    private static void logApproved(CallContext operator, String callId, CallRecord record, Approval approval) {
        LOG.info("Operator {} approved {} of {} in the console ({})", operator.principal().id(), callId,
                record.toolName(), approval.always() ? "always, " + approval.scope() : "once");
    }

    ConsoleResponse deny(Exchange exchange, String callId) {
        CallContext operator = requireOperator(toolgate, exchange);
        String reason = Exchange.text(exchange.jsonBody(), "reason", true, MAX_REASON).orElseThrow().strip();
        CallRecord record = visible(operator, callId);
        InboxResult result;
        try {
            result = toolgate.reject(operator, callId, reason);
        } catch (RuntimeException e) {
            throw translate(e);
        }
        if (result instanceof InboxResult.Rejected) {
            LOG.info("Operator {} denied {} of {} in the console", operator.principal().id(), callId, record.toolName());
            return Responses.json(200, Json.object().put("outcome", "rejected").put("callId", callId));
        }
        throw alreadyDecided(callId, record);
    }

    ConsoleResponse edit(Exchange exchange, String callId) {
        CallContext operator = requireOperator(toolgate, exchange);
        JsonNode arguments = exchange.jsonBody().get("arguments");
        if (arguments == null || !arguments.isObject()) {
            throw ConsoleException.badRequest("arguments", "'arguments' must be a JSON object.");
        }
        CallRecord record = visible(operator, callId);
        InboxResult result;
        try {
            result = toolgate.edit(operator, callId, Json.write(arguments));
        } catch (RuntimeException e) {
            throw translate(e);
        }
        if (result instanceof InboxResult.Edited edited) {
            CallResult replacement = edited.replacement();
            String status = toolgate.findCall(replacement.callId()).map(r -> r.status().wireName()).orElse("proposed");
            LOG.info("Operator {} edited {} of {} in the console; replaced by {}", operator.principal().id(), callId,
                    record.toolName(), replacement.callId());
            ObjectNode body = Json.object().put("outcome", "edited").put("callId", callId);
            body.putObject("replacement").put("callId", replacement.callId()).put("status", status);
            return Responses.json(200, body);
        }
        throw alreadyDecided(callId, record);
    }

    ConsoleResponse resolve(Exchange exchange, String callId) {
        CallContext operator = requireOperator(toolgate, exchange);
        ObjectNode input = exchange.jsonBody();
        JsonNode applied = input.get("applied");
        if (applied == null || !applied.isBoolean()) {
            throw ConsoleException.badRequest("applied", "'applied' must be true (it happened) or false (it did not).");
        }
        String note = Exchange.text(input, "note", false, MAX_REASON).filter(s -> !s.isBlank()).orElse(null);
        CallRecord record = visible(operator, callId);
        InboxResult result;
        try {
            result = toolgate.resolve(operator, callId, applied.asBoolean(), note);
        } catch (RuntimeException e) {
            throw translate(e);
        }
        if (result instanceof InboxResult.Resolved resolved) {
            return Responses.json(200, Json.object().put("outcome", "resolved").put("callId", callId)
                    .put("status", resolved.outcome().wireName()));
        }
        throw alreadyDecided(callId, record);
    }

    static CallContext requireOperator(Toolgate toolgate, Exchange exchange) {
        CallContext context = exchange.context();
        if (!toolgate.isOperator(context.principal())) {
            throw new ConsoleException(403, "forbidden", "You cannot decide proposals: it needs the approver rule "
                    + toolgate.settings().approverRule() + ".");
        }
        return context;
    }

    /** The call if it exists in the operator's tenant; 404 otherwise (another tenant's call is "unknown"). */
    private CallRecord visible(CallContext operator, String callId) {
        if (callId == null || !CALL_ID.matcher(callId).matches()) {
            throw ConsoleException.notFound();
        }
        return toolgate.findCall(callId).filter(r -> Objects.equals(r.tenantId(), operator.tenantId()))
                .orElseThrow(() -> new ConsoleException(404, "not_found", "No proposal " + callId + "."));
    }

    /** 409 naming what became of the card and who did it. */
    private ConsoleException alreadyDecided(String callId, CallRecord before) {
        CallRecord now = settled(callId, before);
        CallStatus status = now.status();
        PrincipalRef by = switch (status) {
            case APPLIED, REVERTED, APPLYING, FAILED, INTERRUPTED -> now.appliedBy() != null ? now.appliedBy() : now.decidedBy();
            case REJECTED, SUPERSEDED -> now.decidedBy();
            default -> null;
        };
        String who = by == null ? "" : " by " + by.id();
        String message = "already decided: " + switch (status) {
            case APPLIED -> "applied" + who;
            case REVERTED -> "applied" + who + ", then reverted";
            case APPLYING -> "being applied" + who;
            case FAILED -> "approved" + who + "; the tool failed";
            case INTERRUPTED -> "approved" + who + "; its outcome is in doubt";
            case REJECTED -> "rejected" + who;
            case SUPERSEDED -> "edited" + who;
            case EXPIRED -> "expired";
            default -> status.wireName() + who;
        };
        ConsoleException e = new ConsoleException(409, "already_decided", message);
        return new AlreadyDecided(e, status, by);
    }

    /**
     * The call as it stands, waiting up to {@link #SETTLE_WAIT} while another operator's approval is
     * still running its tool, so the loser of a race reads "applied by X" rather than "being applied".
     */
    private CallRecord settled(String callId, CallRecord before) {
        long deadline = System.nanoTime() + SETTLE_WAIT.toNanos();
        CallRecord now = toolgate.findCall(callId).orElse(before);
        while (now.status() == CallStatus.APPLYING && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            now = toolgate.findCall(callId).orElse(now);
        }
        return now;
    }

    /** The gate's refusals as console errors (they changed nothing). */
    private static ConsoleException translate(RuntimeException e) {
        if (e instanceof ConsoleException c) {
            return c;
        }
        if (e instanceof ForbiddenException) {
            return new ConsoleException(403, "forbidden", e.getMessage());
        }
        if (e instanceof UnknownProposalException) {
            return new ConsoleException(404, "not_found", e.getMessage());
        }
        if (e instanceof ToolValidationException v) {
            ValidationIssue first = v.issues().isEmpty() ? null : v.issues().get(0);
            return new ConsoleException(400, "invalid_arguments", v.getMessage(), first == null ? null : first.path());
        }
        if (e instanceof ProposeApplyException p) {
            return new ConsoleException(409, p.code(), p.getMessage());
        }
        if (e instanceof IllegalArgumentException) {
            return ConsoleException.badRequest(null, e.getMessage());
        }
        throw e;
    }

    private static OverrideScope scope(String name) {
        if (name == null) {
            throw ConsoleException.badRequest("scope", "'Approve always' needs a scope: automation or tenant.");
        }
        for (OverrideScope scope : OverrideScope.values()) {
            if (scope.name().equalsIgnoreCase(name)) {
                return scope;
            }
        }
        throw ConsoleException.badRequest("scope", "Unknown scope '" + name + "': expected automation or tenant.");
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The 409 answer, with the status and the decider for the page. */
    static final class AlreadyDecided extends ConsoleException {
        private static final long serialVersionUID = 1L;
        final CallStatus current;
        final PrincipalRef by;

        AlreadyDecided(ConsoleException base, CallStatus current, PrincipalRef by) {
            super(base.status, base.code, base.getMessage());
            this.current = current;
            this.by = by;
        }
    }
}
