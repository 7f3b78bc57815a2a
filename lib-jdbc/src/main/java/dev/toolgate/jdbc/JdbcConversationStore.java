package dev.toolgate.jdbc;

import dev.toolgate.audit.CallRecord;
import dev.toolgate.spi.ConversationStore;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The JDBC {@link ConversationStore}: a told proposal's row carries the delivery that told it in
 * {@code toolgate_call.told_in} (schema version 6). Telling is one guarded update ({@code told_in IS NULL}
 * and the row decided), so exactly one caller across every instance sharing the database wins it.
 * On PostgreSQL the partial index {@code toolgate_call_untold} keeps a conversation's lookup to its
 * proposals not yet told; on H2 the session index does.
 */
final class JdbcConversationStore implements ConversationStore {

    private static final String TABLE = CallRows.TABLE;

    private final Db db;
    private final String untold;
    private final String tell;
    private final String untell;

    JdbcConversationStore(Db db) {
        this.db = db;
        String now = db.nowSql();
        String appliedInStep = APPLIED_IN_STEP.stream().sorted().map(r -> "'" + r + "'").collect(Collectors.joining(", "));
        // ConversationStore.isDecided, in SQL (the reasons are constants of the gate, never input)
        String decided = "token_digest IS NOT NULL AND reverts IS NULL AND ("
                + "(status IN ('applied', 'reverted', 'failed') AND applied_at IS NOT NULL AND (decided_by IS NOT NULL"
                + " OR decision_reason IS NULL OR decision_reason NOT IN (" + appliedInStep + ")))"
                + " OR status IN ('rejected', 'superseded', 'expired', 'stale')"
                + " OR (status = 'proposed' AND expires_at <= " + now + "))";
        String decidedAt = "CASE WHEN status = 'proposed' OR completed_at IS NULL THEN expires_at ELSE completed_at END";
        this.untold = "SELECT " + CallRows.COLUMNS + " FROM " + TABLE
                + " WHERE session_id = :session_id AND (principal = :principal OR supersedes IS NOT NULL) AND told_in IS NULL AND " + decided
                + " ORDER BY " + decidedAt + ", id LIMIT :limit";
        this.tell = "UPDATE " + TABLE + " SET told_in = :delivery WHERE id = :id AND told_in IS NULL AND " + decided;
        this.untell = "UPDATE " + TABLE + " SET told_in = NULL WHERE id = :id AND told_in = :delivery";
    }

    @Override
    public List<CallRecord> untold(String sessionId, String principalKey, int limit) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(principalKey, "principalKey");
        if (limit < 1) {
            return List.of();
        }
        return db.withHandle(h -> h.createQuery(untold).bind("session_id", sessionId).bind("principal", principalKey)
                .bind("limit", limit).bind("now", db.now()).map(CallRows.MAPPER).list());
    }

    @Override
    public boolean tell(String callId, String deliveryId) {
        requireDelivery(deliveryId);
        if (callId == null) {
            return false;
        }
        return db.withHandle(h -> h.createUpdate(tell).bind("id", callId).bind("delivery", deliveryId)
                .bind("now", db.now()).execute()) == 1;
    }

    @Override
    public boolean untell(String callId, String deliveryId) {
        if (callId == null || deliveryId == null) {
            return false;
        }
        return db.withHandle(h -> h.createUpdate(untell).bind("id", callId).bind("delivery", deliveryId).execute()) == 1;
    }

    private static void requireDelivery(String deliveryId) {
        if (deliveryId == null || deliveryId.isEmpty() || deliveryId.length() > 64) {
            throw new IllegalArgumentException("deliveryId must be 1-64 characters, got " + deliveryId);
        }
    }
}
