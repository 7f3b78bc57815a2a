package dev.toolgate.jdbc;

import dev.toolgate.spi.CallStore.Purge;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jdbi.v3.core.Handle;

/**
 * Retention for {@link JdbcCallStore}: {@link dev.toolgate.spi.CallStore#purge} and
 * {@link dev.toolgate.spi.CallStore#endSession}. Never on a call's path; every batch is short, and
 * purges are safe on every instance at once and against concurrent calls.
 *
 * <ul>
 *   <li><b>Finished calls, closed proposals:</b> at most {@code limit} rows, oldest {@code completed_at}
 *       first, as {@link PickedRows}: concurrent purgers take different rows, and a row that changed
 *       while it was picked (a late outcome of an interrupted call sets a new {@code completed_at}) is
 *       kept. Never a step of a run that is running or paused ({@code NOT EXISTS} on
 *       {@code toolgate_execution}): its replay needs it.</li>
 *   <li><b>Idle budget and session rows:</b> one short transaction of two statements. The first
 *       selects at most {@code limit} idle rows {@code FOR UPDATE SKIP LOCKED}, skipping any row an
 *       admission or a proposal holds right now; the second deletes those of them that are still idle.
 *       Being a later statement, under READ COMMITTED it sees everything committed before it, including
 *       an admission or proposal that committed between the first statement's snapshot and its lock;
 *       and as the rows stay locked until the commit, nothing can admit into or propose under a row
 *       after that re-check and before it is gone. (On H2 the first statement is two: the idle keys
 *       without a lock, then the lock of those keys, as {@link #deleteLocked} explains.) A budget row is idle when its newest admission
 *       ({@code last_at}) is before the cutoff, or when it has none; budget rows go oldest first, and
 *       their admission rows ({@code toolgate_budget_admission}) go with them, in the same transaction. A session row is idle when the session
 *       has no pending proposal and no proposal created at or after the cutoff; session rows have no
 *       time of their own, so a batch takes idle ones in no particular order.</li>
 * </ul>
 *
 * <p><b>Why a purged row loses nothing.</b> An admission or a proposal that waited for a row's lock
 * while the purge deleted it finds no row when the lock is released ({@link RowLocks#lock} and the
 * single-statement admission both see the deletion; the latter, which locks the principal and not the
 * row, finds its guarded advance of the row changing nothing, admits nothing and starts again) and
 * creates the row afresh, exactly as for a
 * principal or session never seen before, so every admission of one principal, and every pending
 * count of one session, is still decided under one row lock at a time: a row disappears only while
 * the purge holds its lock, so nobody can be holding the old row while someone else holds its
 * successor. The budget row deleted, with its admission rows, held only admissions older than the cutoff (the caller's cutoff
 * is older than the longest budget window), and the session row holds nothing but its lock (the
 * pending count is read from {@code toolgate_call} under it), so neither the budget nor the pending
 * cap can admit one call more. The contract suite's
 * {@code aBudgetRowThatAdmitsWhileItIsPurgedKeepsItsAdmission} and the concurrency tests
 * ({@code ConcurrencyContract}, {@code CrossInstancePostgresTest}) race purges against admissions and
 * proposals to prove it. A proposal on PostgreSQL, and on an H2 database in this JVM
 * ({@link LocalSessionLocks}), locks its session elsewhere than in the row, so purges and proposals never
 * wait for each other there: one that commits just after its session's row was deleted leaves the
 * session without a row until its next proposal (the row only tells purges that a session proposed; the
 * cap does not depend on it).
 */
final class Purges {

    private static final String FINISHED = "'executed', 'failed', 'invalid', 'denied', 'applied', 'reverted', 'interrupted'";
    private static final String FOR_UPDATE = " FOR UPDATE SKIP LOCKED";
    private static final String CLOSED = "'rejected', 'expired', 'superseded', 'stale'";

    private final Db db;
    private final PickedRows finishedCalls;
    private final PickedRows closedProposals;
    private final String lockIdleSessions;
    private final String idleSession;
    private final String lockIdleBudgets;
    private final String idleBudget;
    private final String lockSession;
    private final String endSession;

    Purges(Db db) {
        this.db = db;
        String now = db.nowSql();
        this.finishedCalls = deleteCalls(db, FINISHED);
        this.closedProposals = deleteCalls(db, CLOSED);
        String pendingIn = "SELECT 1 FROM toolgate_call p WHERE p.session_id = s.session_id AND p.status = 'proposed'"
                + " AND p.expires_at > " + now;
        this.idleSession = "NOT EXISTS (" + pendingIn + ")"
                + " AND NOT EXISTS (SELECT 1 FROM toolgate_call r WHERE r.session_id = s.session_id"
                + " AND r.token_digest IS NOT NULL AND r.created_at >= :before)";
        this.lockIdleSessions = "SELECT s.session_id FROM toolgate_session s WHERE " + idleSession
                + " LIMIT :limit" + FOR_UPDATE;
        // last_at: the newest admission, or null when there was none
        this.idleBudget = "COALESCE(b.last_at < :before, TRUE)";
        this.lockIdleBudgets = "SELECT b.principal FROM toolgate_budget b WHERE " + idleBudget
                + " ORDER BY b.last_at NULLS FIRST, b.principal LIMIT :limit" + FOR_UPDATE;
        this.lockSession = "SELECT session_id FROM toolgate_session WHERE session_id = :key FOR UPDATE";
        this.endSession = "DELETE FROM toolgate_session s WHERE s.session_id = :key AND NOT EXISTS (" + pendingIn + ")";
    }

    /**
     * Deletes calls of {@code statuses} completed before {@code :before}, oldest first, except the steps
     * of runs that are still running or paused: a replay answers them from the log. A run never becomes
     * running or paused again once it is neither, so a step that passes the check can go.
     */
    private static PickedRows deleteCalls(Db db, String statuses) {
        return new PickedRows(db, CallRows.TABLE, "status IN (" + statuses + ") AND completed_at < :before"
                + " AND (execution_id IS NULL OR NOT EXISTS (SELECT 1 FROM " + ExecutionRows.TABLE + " e"
                + " WHERE e.id = " + CallRows.TABLE + ".execution_id AND e.status IN ('running', 'paused')))",
                "completed_at", "DELETE FROM " + CallRows.TABLE, null, "toolgate_call_completed");
    }

    /** The picks of the finished calls' and the closed proposals' purges. For tests. */
    Map<String, PickedRows> picks() {
        return Map.of("finished calls", finishedCalls, "closed proposals", closedProposals);
    }

    int purge(Purge kind, Instant before, int limit) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(before, "before");
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        return switch (kind) {
            case FINISHED_CALLS -> finishedCalls.change(limit, before);
            case CLOSED_PROPOSALS -> closedProposals.change(limit, before);
            case IDLE_SESSIONS -> deleteLocked(lockIdleSessions, "toolgate_session s", "s.session_id", idleSession, before, limit);
            case IDLE_BUDGETS -> deleteLocked(lockIdleBudgets, "toolgate_budget b", "b.principal", idleBudget, before, limit);
        };
    }

    /**
     * Locks idle rows with {@code lock}, then deletes those still {@code idle}, in one transaction. On
     * H2 the lock is two statements: the idle keys without a lock, then the lock of those keys (H2
     * locks every row that satisfies a {@code FOR UPDATE} query's {@code WHERE} before it applies the
     * {@code LIMIT}: every idle session, not a batch of them; see {@link PickedRows}).
     */
    private int deleteLocked(String lock, String table, String key, String idle, Instant before, int limit) {
        boolean h2 = db.dialect() == Dialect.H2;
        return db.inTransaction(h -> {
            List<String> keys = h.createQuery(h2 ? lock.replace(FOR_UPDATE, "") : lock)
                    .bind("before", Db.timestamp(before)).bind("limit", limit).bind("now", db.now())
                    .mapTo(String.class).list();
            if (h2 && !keys.isEmpty()) {
                keys = PickedRows.bindKeys(h.createQuery("SELECT " + key + " FROM " + table + " WHERE " + key + " IN ("
                        + PickedRows.keys(keys.size()) + ")" + FOR_UPDATE), keys).mapTo(String.class).list();
            }
            if (keys.isEmpty()) {
                return 0;
            }
            String in = PickedRows.keys(keys.size());
            int deleted = PickedRows.bindKeys(h.createUpdate("DELETE FROM " + table + " WHERE " + key + " IN (" + in + ") AND " + idle), keys)
                    .bind("before", Db.timestamp(before)).bind("now", db.now()).execute();
            if (deleted > 0 && table.startsWith("toolgate_budget ")) {
                // the admissions of the budget rows just deleted (all before the cutoff), in the same transaction
                PickedRows.bindKeys(h.createUpdate("DELETE FROM toolgate_budget_admission WHERE principal IN (" + in + ")"
                        + " AND NOT EXISTS (SELECT 1 FROM toolgate_budget b WHERE b.principal = toolgate_budget_admission.principal)"),
                        keys).execute();
            }
            return deleted;
        });
    }

    boolean endSession(String sessionId) {
        if (sessionId == null) {
            return false;
        }
        return db.inTransaction(h -> lockedSession(h, sessionId)
                && h.createUpdate(endSession).bind("key", sessionId).bind("now", db.now()).execute() == 1);
    }

    /** Locks the session's row, waiting for a proposal in flight; false if there is none. */
    private boolean lockedSession(Handle h, String sessionId) {
        return h.createQuery(lockSession).bind("key", sessionId).mapTo(String.class).findOne().isPresent();
    }
}
