package dev.toolgate.console;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The audit trail for operators, newest first, filtered by tool, principal, status and time, paged by
 * an opaque cursor. Only the operator's tenant is shown. Arguments appear only as their hash.
 */
final class AuditApi {

    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 200;
    private static final Set<String> PARAMETERS = Set.of("tool", "principal", "status", "from", "to", "cursor", "limit");

    private final Toolgate toolgate;

    AuditApi(Toolgate toolgate) {
        this.toolgate = toolgate;
    }

    ConsoleResponse list(Exchange exchange) {
        CallContext operator = InboxApi.requireOperator(toolgate, exchange);
        Map<String, String> params = exchange.query();
        for (String name : params.keySet()) {
            if (!PARAMETERS.contains(name)) {
                throw ConsoleException.badRequest(name, "Unknown parameter '" + clip(name) + "'; expected one of "
                        + String.join(", ", new java.util.TreeSet<>(PARAMETERS)) + ".");
            }
        }
        int limit = limit(params.get("limit"));
        CallQuery query = CallQuery.latest(limit + 1).tenant(operator.tenantId());
        String tool = blankToNull(params.get("tool"));
        if (tool != null) {
            query = query.tool(bounded("tool", tool));
        }
        String principal = blankToNull(params.get("principal"));
        if (principal != null) {
            query = query.principal(bounded("principal", principal));
        }
        String status = blankToNull(params.get("status"));
        if (status != null) {
            query = query.status(status(status));
        }
        Instant from = instant("from", params.get("from"));
        Instant to = instant("to", params.get("to"));
        if (from != null && to != null && from.isAfter(to)) {
            throw ConsoleException.badRequest("from", "'from' is after 'to'.");
        }
        try {
            query = query.from(from).until(to);
        } catch (IllegalArgumentException e) {
            throw ConsoleException.badRequest(from != null && (to == null || e.getMessage().startsWith("from")) ? "from" : "to",
                    "The time range is out of bounds: " + e.getMessage());
        }
        String cursor = blankToNull(params.get("cursor"));
        if (cursor != null) {
            try {
                query = query.after(CallQuery.Cursor.decode(cursor));
            } catch (IllegalArgumentException e) {
                throw ConsoleException.badRequest("cursor", "'cursor' is not one this console gave out.");
            }
        }
        List<CallRecord> found = toolgate.findCalls(query);
        boolean more = found.size() > limit;
        List<CallRecord> page = more ? found.subList(0, limit) : found;
        ArrayNode records = Json.mapper().createArrayNode();
        for (CallRecord r : page) {
            // A null tenant filter matches every tenant in the store's query; keep the operator's own.
            if (Objects.equals(r.tenantId(), operator.tenantId())) {
                records.add(Views.record(r));
            }
        }
        ObjectNode body = Json.object();
        body.set("records", records);
        body.put("next", more ? CallQuery.Cursor.of(page.get(page.size() - 1)).encode() : null);
        return Responses.json(200, body);
    }

    private static int limit(String raw) {
        if (raw == null || raw.isBlank()) {
            return DEFAULT_LIMIT;
        }
        try {
            int value = Integer.parseInt(raw.trim());
            if (value >= 1 && value <= MAX_LIMIT) {
                return value;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw ConsoleException.badRequest("limit", "'limit' must be a whole number from 1 to " + MAX_LIMIT + ".");
    }

    private static CallStatus status(String raw) {
        for (CallStatus s : CallStatus.values()) {
            if (s.wireName().equalsIgnoreCase(raw.trim())) {
                return s;
            }
        }
        throw ConsoleException.badRequest("status", "Unknown status '" + clip(raw) + "'.");
    }

    private static Instant instant(String field, String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(raw.trim());
        } catch (DateTimeParseException e) {
            throw ConsoleException.badRequest(field, "'" + field + "' must be an ISO-8601 instant such as 2026-11-27T09:00:00Z.");
        }
    }

    private static String bounded(String field, String value) {
        if (value.length() > 200) {
            throw ConsoleException.badRequest(field, "'" + field + "' is longer than 200 characters.");
        }
        return value.trim();
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static String clip(String s) {
        String clean = s.replaceAll("[^\\x20-\\x7e]", "?");
        return clean.length() > 40 ? clean.substring(0, 40) + "..." : clean;
    }
}
