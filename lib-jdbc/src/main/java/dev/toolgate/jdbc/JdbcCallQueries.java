package dev.toolgate.jdbc;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The queries of {@link JdbcCallStore}: the SQL a {@link CallQuery} selects with, and its bindings. */
final class JdbcCallQueries {

    private static final String TABLE = CallRows.TABLE;

    private final Db db;

    JdbcCallQueries(Db db) {
        this.db = db;
    }

    /**
     * The SQL of {@link #query}. On H2 a query for one of the statuses a call passes through (proposed,
     * applying, interrupted: the operator's inbox, per tenant) outside a session reads the index that
     * leads with the status: H2 otherwise walked the tenant's whole audit trail by time (20,001 rows for
     * 50 proposals on 60,000 calls, with table statistics or without), and the calls in such a status are
     * few (proposals expire, claims are interrupted when overdue).
     */
    String querySql(CallQuery query) {
        List<String> where = new ArrayList<>();
        if (query.tenantId() != null) {
            where.add("tenant_id = :tenant_id");
        }
        if (query.sessionId() != null) {
            where.add("session_id = :session_id");
        }
        int principals = query.principalKeys().size(); // one key, or an id under every kind
        if (principals > 0) {
            where.add("principal IN (" + java.util.stream.IntStream.range(0, principals).mapToObj(i -> ":principal_" + i)
                    .collect(java.util.stream.Collectors.joining(", ")) + ")");
        }
        if (query.toolName() != null) {
            where.add("tool_name = :tool_name");
        }
        if (query.status() != null) {
            where.add("status = :status");
        }
        if (query.executionId() != null) {
            where.add("execution_id = :execution_id");
        }
        if (query.from() != null) {
            where.add("created_at >= :from_time");
        }
        if (query.until() != null) {
            where.add("created_at < :until_time");
        }
        if (query.after() != null) {
            // strictly after the cursor in (created_at DESC, id) order; the first term bounds an index range
            where.add("created_at <= :after_time AND (created_at < :after_time OR id > :after_id)");
        }
        // a run's steps in order, on the step index; anything else newest first (toolgate_call_time)
        boolean byStatus = db.dialect() == Dialect.H2 && query.sessionId() == null && query.executionId() == null
                && query.status() != null && TRANSIENT.contains(query.status());
        return "SELECT " + CallRows.COLUMNS + " FROM " + TABLE + (byStatus ? " USE INDEX (toolgate_call_pending)" : "")
                + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where))
                + (query.executionId() != null ? " ORDER BY step_seq, id" : " ORDER BY created_at DESC, id") + " LIMIT :limit";
    }

    /** The calls {@code query} selects. */
    List<CallRecord> query(CallQuery query) {
        String sql = querySql(query);
        List<String> principals = query.principalKeys();
        return db.withHandle(h -> {
            var statement = h.createQuery(sql);
            for (int i = 0; i < principals.size(); i++) {
                statement.bind("principal_" + i, principals.get(i));
            }
            return statement.bind("tenant_id", query.tenantId())
                    .bind("session_id", query.sessionId())
                    .bind("tool_name", query.toolName())
                    .bind("status", query.status() == null ? null : query.status().wireName())
                    .bind("execution_id", query.executionId())
                    .bind("from_time", Db.timestamp(query.from()))
                    .bind("until_time", Db.timestamp(query.until()))
                    .bind("after_time", Db.timestamp(query.after() == null ? null : query.after().createdAt()))
                    .bind("after_id", query.after() == null ? null : query.after().id())
                    .bind("limit", query.limit())
                    .map(CallRows.MAPPER)
                    .list();
        });
    }

    /** The statuses a call passes through on its way to an outcome: few rows each at any time. */
    private static final Set<CallStatus> TRANSIENT = Set.of(CallStatus.PROPOSED, CallStatus.APPLYING, CallStatus.INTERRUPTED);
}
