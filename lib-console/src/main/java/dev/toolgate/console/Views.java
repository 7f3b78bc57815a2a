package dev.toolgate.console;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.call.Freshness;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.json.FieldChange;
import dev.toolgate.json.Json;
import java.time.Instant;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON the page reads. Audit records never carry arguments or payloads: only their hash, and the
 * result as the store keeps it (redacted and capped when it was recorded). A record links the calls it
 * is tied to: {@code supersedes}/{@code supersededBy} (an operator's edit), {@code reverts} (this call is
 * the revert of that one) and {@code revertedBy} (this call was undone by that revert; it reads
 * {@code reverted}).
 */
final class Views {

    private Views() {
    }

    /** A pending card, with whether its preview still holds ({@code stale}, {@code staleMessage}, {@code staleChanges}). */
    static ObjectNode card(PendingProposal p, Freshness freshness) {
        ObjectNode card = card(p);
        card.put("stale", freshness.stale());
        if (freshness.stale()) {
            card.put("staleMessage", freshness.message());
            card.set("staleChanges", dev.toolgate.json.FieldDiff.toJson(freshness.changes()));
        }
        return card;
    }

    static ObjectNode card(PendingProposal p) {
        ObjectNode card = Json.object()
                .put("callId", p.callId())
                .put("tool", p.toolName())
                .put("effect", p.effect() == null ? null : p.effect().wireName())
                .put("summary", p.summary());
        ArrayNode diff = card.putArray("diff");
        for (FieldChange change : p.diff()) {
            ObjectNode row = diff.addObject().put("path", change.path());
            row.set("before", change.before());
            row.set("after", change.after());
        }
        card.set("payload", p.payload());
        card.set("proposer", principal(p.proposer()));
        card.put("session", p.sessionId())
                .put("tenant", p.tenantId())
                .put("automation", p.automationId())
                .put("createdAt", instant(p.createdAt()))
                .put("expiresAt", instant(p.expiresAt()))
                .put("mode", p.mode() == null ? null : p.mode().wireName())
                .put("modeSource", p.modeSource() == null ? null : p.modeSource().wireName())
                .put("supersedes", p.supersedes())
                .put("executionId", p.executionId());
        if (p.stepSeq() == null) {
            card.putNull("stepSeq");
        } else {
            card.put("stepSeq", p.stepSeq());
        }
        card.put("decidable", p.decidable())
                .put("blockedReason", p.blockedReason())
                .put("alwaysAllowed", !p.alwaysScopes().isEmpty());
        ArrayNode scopes = card.putArray("scopes");
        p.alwaysScopes().forEach(scope -> scopes.add(scope.wireName()));
        return card;
    }

    static ObjectNode doubt(CallRecord r) {
        ObjectNode node = Json.object()
                .put("callId", r.id())
                .put("tool", r.toolName())
                .put("effect", r.effect() == null ? null : r.effect().wireName());
        node.set("principal", principal(r.principal()));
        return node.put("createdAt", instant(r.createdAt()))
                .put("summary", r.summary())
                .put("error", r.error());
    }

    static ObjectNode record(CallRecord r) {
        ObjectNode node = Json.object()
                .put("callId", r.id())
                .put("tool", r.toolName())
                .put("effect", r.effect() == null ? null : r.effect().wireName());
        node.set("principal", principal(r.principal()));
        node.put("session", r.sessionId())
                .put("status", r.status().wireName())
                .put("mode", r.mode() == null ? null : r.mode().wireName())
                .put("modeSource", r.modeSource() == null ? null : r.modeSource().wireName())
                .put("argumentsHash", r.argumentsHash())
                .put("summary", r.summary());
        node.set("result", storedJson(r.resultJson()));
        node.put("error", r.error())
                .put("createdAt", instant(r.createdAt()))
                .put("completedAt", instant(r.completedAt()));
        if (r.durationMillis() == null) {
            node.putNull("durationMillis");
        } else {
            node.put("durationMillis", r.durationMillis());
        }
        node.set("appliedBy", principal(r.appliedBy()));
        node.set("decidedBy", principal(r.decidedBy()));
        node.put("decisionReason", r.decisionReason())
                .put("executionId", r.executionId());
        if (r.stepSeq() == null) {
            node.putNull("stepSeq");
        } else {
            node.put("stepSeq", r.stepSeq());
        }
        // a revert is its own applied call naming the call it undid; that call reads reverted and names it
        return node.put("supersedes", r.supersedes()).put("supersededBy", r.supersededBy())
                .put("reverts", r.reverts()).put("revertedBy", r.revertedBy());
    }

    static ObjectNode principal(PrincipalRef ref) {
        if (ref == null) {
            return null;
        }
        return Json.object().put("key", ref.key()).put("id", ref.id()).put("kind", ref.kind().name().toLowerCase(java.util.Locale.ROOT));
    }

    static String instant(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    /** A stored JSON text as JSON; text that does not parse stays a string (it is shown, not run). */
    private static tools.jackson.databind.JsonNode storedJson(String json) {
        if (json == null) {
            return null;
        }
        try {
            return Json.parse(json);
        } catch (RuntimeException e) {
            return Json.mapper().getNodeFactory().stringNode(json);
        }
    }
}
