package dev.toolgate.jdbc;

import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.spi.CallStore.ProposeResult;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The proposals of {@link JdbcCallStore}: one insert, and in a session only while the session's pending
 * count, which the session's lock makes exact, is under the cap (the class comment of
 * {@link JdbcCallStore} tells the statements per database).
 */
final class JdbcProposals {

    private static final String TABLE = CallRows.TABLE;

    private final Db db;
    private final FirstSteps steps;
    private final RowLocks sessions;
    /**
     * The sessions' locks of an H2 database in this JVM ({@link LocalSessionLocks}), which replace the
     * session row's lock for proposals; null on PostgreSQL and on an H2 database other processes reach.
     */
    private final LocalSessionLocks localSessions;
    private final String sessionRow;
    private final PlainSql proposeAnywhere;
    private final PlainSql proposeInSession;
    /** {@link #proposeAnywhere} and {@link #proposeInSession} of only the columns a proposal fills, outside a run. */
    private final ProposalShapes proposalShapes;
    /** Whether {@link #proposeInSession} locks the session itself (PostgreSQL), so it needs no transaction. */
    private final boolean roomInStatement;
    private final PlainSql proposeAnywhereWithRun;
    private final PlainSql proposeInSessionWithRun;

    /** {@code createdAt}: the SQL of a proposal's creation time (its admission's time, else the database's). */
    JdbcProposals(Db db, FirstSteps steps, String createdAt) {
        this.db = db;
        this.steps = steps;
        Dialect dialect = db.dialect();
        String now = db.nowSql();
        this.sessions = new RowLocks(dialect, "toolgate_session", "session_id");
        this.localSessions = dialect == Dialect.H2 ? db.withConnection(LocalSessionLocks::of) : null;
        this.sessionRow = "SELECT session_id FROM toolgate_session WHERE session_id = :key";
        String proposal = CallRows.values(createdAt, Db.plusMicros(now, '+', "ttl_us"), ":completed_at");
        this.proposeAnywhere = PlainSql.of(dialect.returning(
                "INSERT INTO " + TABLE + " (" + CallRows.COLUMNS + ") VALUES (" + proposal + ")", "created_at, expires_at"));
        // H2: the session's row lock is held (taken by a statement of its own in the same transaction), so
        // this count sees every proposal committed before ours. PostgreSQL: toolgate_session_room takes the
        // session's advisory lock and counts after it in the statement itself, one autocommit round trip.
        String room = dialect == Dialect.POSTGRESQL
                ? "toolgate_session_room(CAST(:session_id AS TEXT), CAST(:max_pending AS INTEGER),"
                        + " CAST(:now AS TIMESTAMP WITH TIME ZONE))"
                : "(SELECT COUNT(*) FROM " + TABLE + " p"
                        + " WHERE p.session_id = :session_id AND p.status = 'proposed' AND p.expires_at > " + now + ")"
                        + " < :max_pending";
        this.proposeInSession = PlainSql.of(dialect.returning("INSERT INTO " + TABLE + " (" + CallRows.COLUMNS + ")"
                + " SELECT " + proposal + " FROM (SELECT 1 AS one) AS single WHERE " + room, "created_at, expires_at"));
        this.proposalShapes = new ProposalShapes(dialect, createdAt, Db.plusMicros(now, '+', "ttl_us"), room);
        this.roomInStatement = dialect == Dialect.POSTGRESQL;
        this.proposeAnywhereWithRun = steps.withRun(proposeAnywhere);
        this.proposeInSessionWithRun = steps.withRun(proposeInSession);
    }

    /**
     * The sessions' locks of an H2 database in this JVM, which a proposal in flight holds; null on
     * PostgreSQL and on an H2 database other processes reach.
     */
    LocalSessionLocks localSessions() {
        return localSessions;
    }

    /** See {@link JdbcCallStore}: one insert, in a session under the session's lock. */
    ProposeResult propose(CallRecord proposal, Duration ttl, int maxPendingPerSession) {
        if (proposal.status() != CallStatus.PROPOSED || proposal.tokenDigest() == null || proposal.payloadJson() == null) {
            throw new IllegalArgumentException("propose takes a PROPOSED record with its payload and token digest");
        }
        String session = proposal.sessionId();
        PlainSql.Binder binder = p -> CallRows.bind(p, proposal)
                .number("ttl_us", Db.micros(ttl))
                .integer("max_pending", maxPendingPerSession)
                .timestamp("now", db.clockInstant());
        PlainSql.Reader<CallRecord> stored = rs -> proposal.toBuilder().createdAt(Db.instant(rs, 1)).expiresAt(Db.instant(rs, 2)).build();
        boolean withRun = steps.unwritten(proposal.executionId());
        try {
            if (session == null && !withRun) {
                PlainSql insert = Objects.requireNonNullElse(proposalShapes.anywhere(proposal), proposeAnywhere);
                return new ProposeResult(ProposeResult.Status.PROPOSED,
                        db.withConnection(c -> insert.queryFirst(c, binder, stored).orElseThrow()));
            }
            if (session == null) {
                if (proposeAnywhereWithRun != null) {
                    return new ProposeResult(ProposeResult.Status.PROPOSED, db.withConnection(c ->
                            steps.inOneStatement(c, proposal, proposeAnywhereWithRun, proposeAnywhere, binder, stored)).orElseThrow());
                }
                return steps.withRun(proposal, h -> new ProposeResult(ProposeResult.Status.PROPOSED,
                        proposeAnywhere.queryFirst(h.getConnection(), binder, stored).orElseThrow()));
            }
            boolean oneStatement = withRun && proposeInSessionWithRun != null;
            PlainSql insertInSession = withRun ? proposeInSession
                    : Objects.requireNonNullElse(proposalShapes.inSession(proposal), proposeInSession);
            if (roomInStatement) { // the statement locks the session (advisory lock): one autocommit statement
                Optional<CallRecord> inserted = db.withConnection(c -> oneStatement
                        ? steps.inOneStatement(c, proposal, proposeInSessionWithRun, proposeInSession, binder, stored)
                        : insertInSession.queryFirst(c, binder, stored));
                return inserted.map(record -> new ProposeResult(ProposeResult.Status.PROPOSED, record))
                        .orElseGet(() -> new ProposeResult(ProposeResult.Status.PENDING_LIMIT, null));
            }
            if (localSessions != null) { // H2 in this JVM: the session's lock is this JVM's, held until the commit
                return localSessions.withLock(session, () -> {
                    org.jdbi.v3.core.HandleCallback<Optional<CallRecord>, RuntimeException> insert = h -> {
                        touchSession(h, session);
                        return insertInSession.queryFirst(h.getConnection(), binder, stored);
                    };
                    Optional<CallRecord> inserted = withRun ? steps.withRun(proposal, insert) : db.withHandle(insert);
                    return inserted.map(record -> new ProposeResult(ProposeResult.Status.PROPOSED, record))
                            .orElseGet(() -> new ProposeResult(ProposeResult.Status.PENDING_LIMIT, null));
                });
            }
            org.jdbi.v3.core.HandleCallback<ProposeResult, RuntimeException> inSession = h -> {
                sessions.lock(h, session); // serializes proposals of one session: the pending count is exact
                Optional<CallRecord> inserted = oneStatement
                        ? steps.inOneStatement(h.getConnection(), proposal, proposeInSessionWithRun, proposeInSession, binder, stored)
                        : insertInSession.queryFirst(h.getConnection(), binder, stored);
                return inserted.map(record -> new ProposeResult(ProposeResult.Status.PROPOSED, record))
                        .orElseGet(() -> new ProposeResult(ProposeResult.Status.PENDING_LIMIT, null));
            };
            return withRun && !oneStatement ? steps.withRun(proposal, inSession) : db.inTransaction(inSession);
        } catch (UnableToExecuteStatementException e) {
            throw FirstSteps.stepTakenOr(e, proposal); // the transaction was rolled back: nothing is stored
        }
    }

    /**
     * The session's row in {@code toolgate_session} (what purges and {@link #endSession} see of a
     * session that proposed), created if missing, without locking it: a plain probe, as PostgreSQL's
     * {@code toolgate_session_room} makes.
     */
    private void touchSession(org.jdbi.v3.core.Handle h, String session) {
        if (h.createQuery(sessionRow).bind("key", session).mapTo(String.class).findOne().isEmpty()) {
            sessions.create(h, session);
        }
    }
}
