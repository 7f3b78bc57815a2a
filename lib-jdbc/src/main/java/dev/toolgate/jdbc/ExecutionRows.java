package dev.toolgate.jdbc;

import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jdbi.v3.core.mapper.RowMapper;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * How an {@link ExecutionRecord} maps to a {@code toolgate_execution} row: one column per component,
 * the principal as its {@code <kind>:<id>} key, the status as its lower-case wire name, the
 * principal's rules (sorted) and the log lines as JSON arrays of strings.
 */
final class ExecutionRows {

    static final String TABLE = "toolgate_execution";

    /** Every column, in {@link ExecutionRecord} component order. */
    static final String COLUMNS = "id, program, principal, principal_rules, tenant_id, session_id, automation_id, transport, "
            + "auto_approve, input_json, status, attempt, pending_seq, pending_call_id, created_at, updated_at, completed_at, "
            + "result_json, error, logs";

    /** Reads a row selected with {@link #COLUMNS}. */
    static final RowMapper<ExecutionRecord> MAPPER = (rs, ctx) -> read(rs);

    private ExecutionRows() {
    }

    /** Binds every column but the three times ({@code :created_at} and friends are the caller's SQL). */
    static PlainSql.Params bind(PlainSql.Params p, ExecutionRecord r) throws SQLException {
        return p.string("id", r.id())
                .string("program", r.program())
                .string("principal", r.principal().key())
                .string("principal_rules", strings(r.principalRules().stream().sorted().toList()))
                .string("tenant_id", r.tenantId())
                .string("session_id", r.sessionId())
                .string("automation_id", r.automationId())
                .string("transport", r.transport())
                .bool("auto_approve", r.autoApprove())
                .string("input_json", r.inputJson())
                .string("status", r.status().wireName())
                .integer("attempt", r.attempt())
                .integerOrNull("pending_seq", r.pendingSeq())
                .string("pending_call_id", r.pendingCallId())
                .string("result_json", r.resultJson())
                .string("error", r.error())
                .string("logs", strings(r.logs()));
    }

    /** Reads the current row of {@code rs}. */
    static ExecutionRecord read(ResultSet rs) throws SQLException {
        int seq = rs.getInt("pending_seq");
        Integer pendingSeq = rs.wasNull() ? null : seq;
        return new ExecutionRecord(
                rs.getString("id"),
                rs.getString("program"),
                CallRows.principal(rs.getString("principal")),
                new LinkedHashSet<>(strings(rs.getString("principal_rules"))),
                rs.getString("tenant_id"),
                rs.getString("session_id"),
                rs.getString("automation_id"),
                rs.getString("transport"),
                rs.getBoolean("auto_approve"),
                rs.getString("input_json"),
                ExecutionStatus.fromWireName(rs.getString("status")),
                rs.getInt("attempt"),
                pendingSeq,
                rs.getString("pending_call_id"),
                Db.instant(rs, "created_at"),
                Db.instant(rs, "updated_at"),
                Db.instant(rs, "completed_at"),
                rs.getString("result_json"),
                rs.getString("error"),
                strings(rs.getString("logs")));
    }

    /** Strings as a JSON array. */
    static String strings(Collection<String> values) {
        if (values.isEmpty()) {
            return "[]"; // a run's log lines, mostly: no writer needed
        }
        ArrayNode array = Json.mapper().createArrayNode();
        values.forEach(array::add);
        return Json.write(array);
    }

    /** A JSON array of strings read back (null reads as empty). */
    static List<String> strings(String json) {
        if (json == null) {
            return List.of();
        }
        JsonNode array = Json.parse(json);
        if (!array.isArray()) {
            throw new IllegalStateException("malformed string array in " + TABLE);
        }
        List<String> values = new ArrayList<>(array.size());
        array.forEach(v -> values.add(v.asString()));
        return values;
    }

    /** The wire names of {@code statuses}, sorted. */
    static List<String> wireNames(Set<ExecutionStatus> statuses) {
        return statuses.stream().map(ExecutionStatus::wireName).sorted().toList();
    }
}
