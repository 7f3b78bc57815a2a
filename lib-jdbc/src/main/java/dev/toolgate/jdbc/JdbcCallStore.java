package dev.toolgate.jdbc;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.StepTakenException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The audit trail, token store and budget ledger in {@code toolgate_call} and {@code toolgate_budget}.
 * Each method is one statement or one short transaction (PostgreSQL costs measured on a 2-core machine,
 * loopback: a durable commit about 0.3-0.45 ms, a round trip without one 30-100 µs):
 *
 * <ul>
 *   <li>{@link #admit}: see {@link Admissions}; no audit row.</li>
 *   <li>{@link #record}: one durable autocommit insert of the finished call (of the columns it fills),
 *       so a governed read costs one commit; its times are the estimated database time
 *       ({@link DatabaseClock}), bound, so nothing is read back; or, with
 *       {@link JdbcStore.Builder#writeBehind}, outside a run, no statement on the call's path: the row
 *       joins a batch that {@link WriteBehind} writes in one transaction. A step of
 *       a durable execution is the same insert: the unique index
 *       {@value #STEP_INDEX} on {@code (execution_id, step_seq)} refuses a second row for a step, and
 *       that violation (told from others by the index's name) becomes {@link StepTakenException}; no
 *       statement is added, for steps or for other calls.</li>
 *   <li>{@link #propose}: one durable insert; in a session, it first locks the session and inserts
 *       only if the session's pending count, which the lock makes exact, is under the cap (PostgreSQL:
 *       one statement, {@code toolgate_session_room} taking the session's advisory transaction lock;
 *       H2 in this JVM: the insert alone, under the session's lock of the JVM, {@link LocalSessionLocks}; an
 *       H2 other processes reach: a transaction that locks the session's row in {@code toolgate_session}). A step proposal that is already logged fails
 *       on {@value #STEP_INDEX} as in {@link #record}.</li>
 *   <li>{@link #claim}: the single-use update ({@code proposed} to {@code applying} only if still
 *       proposed and unexpired by the store's clock; a row or nothing), which also sets
 *       {@code applied_at} and {@code outcome_due_at}; with the admission in the same transaction when
 *       there is a charge: a lost claim admits nothing, a refused admission rolls the claim back.
 *       Always a durable commit: a claim lost in a crash could let a mutation run twice. Of a proposal
 *       the caller holds ({@link #claim(CallRecord, Claim, BudgetCharge)}) only those two times are
 *       read back, else the whole row.</li>
 *   <li>{@link #complete}: one guarded update ({@code applying} or {@code interrupted} to the
 *       outcome; an operator's resolution is never overwritten); on PostgreSQL committed without
 *       waiting for the WAL flush. What a crash can lose: a database crash can forget an outcome
 *       committed in its last fraction of a second, and an instance that dies while the tool runs
 *       never sends one. Either way the row is {@code applying}, and once its {@code outcome_due_at}
 *       passes the sweep marks it {@code interrupted} (in doubt): it never reads applied without its
 *       outcome, and it is never re-run.</li>
 *   <li>{@link #interruptOverdue}: a guarded update of at most {@code limit} overdue claims, oldest
 *       due first, returning them: one statement on PostgreSQL, two in one transaction on H2 (see
 *       {@link PickedRows}). Concurrent sweepers on every instance each mark a row at most once, and
 *       never one whose outcome committed meanwhile.</li>
 *   <li>{@link #resolve}: one guarded update ({@code interrupted} to the operator's outcome).</li>
 *   <li>{@link #claimRevert}: one durable insert of the revert as {@code applying}; the unique index
 *       {@value #REVERTS_INDEX} on {@code reverts} lets one revert per call in: on PostgreSQL
 *       {@code INSERT ... ON CONFLICT (reverts) WHERE reverts IS NOT NULL DO NOTHING RETURNING ...}, on
 *       H2 the insert through {@code FINAL TABLE} whose unique violation is caught; a caller that lost
 *       then reads the revert that won (one more query).</li>
 *   <li>{@link #markReverted}: one guarded update ({@code applied} and not yet marked).</li>
 *   <li>{@link #close}: one guarded update.</li>
 *   <li>{@link #expireDue}: like {@link #interruptOverdue}, a guarded update of at most {@code limit}
 *       due proposals, oldest expiry first, returning them ({@link PickedRows}): concurrent sweepers on
 *       every instance each expire, and return, a row at most once, and never one decided meanwhile.</li>
 *   <li>{@link #purge} and {@link #endSession}: see {@link Purges}; never on a call's path.</li>
 * </ul>
 */
final class JdbcCallStore implements CallStore {

    private static final String TABLE = CallRows.TABLE;
    /** The unique index that lets one call of a precondition apply at a time (schema version 6). */
    static final String APPLYING_STATE_INDEX = "toolgate_call_applying_state";
    private static final String SELECT = "SELECT " + CallRows.COLUMNS + " FROM " + TABLE;
    private static final Set<CallStatus> RECORDABLE = Set.of(CallStatus.EXECUTED, CallStatus.FAILED, CallStatus.INVALID,
            CallStatus.DENIED);
    /** The unique index that logs each step of a run once. */
    static final String STEP_INDEX = "toolgate_call_step";
    /** The unique index that lets each call be reverted once. */
    static final String REVERTS_INDEX = "toolgate_call_reverts";
    /**
     * Shapes of finished calls' rows with an insert of their own: a host's calls take a few dozen (the
     * columns they fill, times their effects, statuses, modes and mode sources).
     */
    private static final int MAX_RECORD_SHAPES = 128;
    /** Attempts of a revert's claim that lost to a revert it then could not read (purged in between). */
    private static final int REVERT_ATTEMPTS = 50;

    private final Db db;
    private final Admissions admissions;
    private final String pending;
    private final String selectWithNow;
    private final PlainSql record;
    /**
     * {@link #record} with its times bound (the estimated database time, as microseconds since the
     * epoch: see {@link Db#fromEpochMicros}) and nothing returned.
     */
    private final PlainSql recordTimed;
    /**
     * {@link #recordTimed} of only the columns a finished call's row fills (a read's row leaves about half
     * of them null, and each parameter bound costs on both ends), its effect, status, mode and mode source
     * as literals, the rest bound by position with {@link CallRows#bindPresent}; up to
     * {@value #MAX_RECORD_SHAPES} shapes, then the insert of every column, bound by name.
     */
    private final ShapeCache recordShapes = new ShapeCache(MAX_RECORD_SHAPES,
            shape -> CallRows.insertOf(shape, CallRows.TIMES_AS_MICROS));
    private final PlainSql complete;
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
    /** The single-use update, reading back the whole row. */
    private final PlainSql claimRow;
    /** {@link #claimRow} reading back only the two times it sets: the claim of a proposal the caller holds. */
    private final PlainSql claimTimes;
    private final String close;
    private final String countPending;
    private final PickedRows expireDue;
    private final PickedRows interruptOverdue;
    private final String resolve;
    private final PlainSql claimRevert;
    private final String revertOf;
    private final String markReverted;
    private final Purges purges;
    private final JdbcExecutionStore runs;
    /**
     * PostgreSQL: the first step of a run created on this instance and the run's row in one statement
     * ({@code WITH run AS (INSERT ...) INSERT ...}), one round trip and one commit; null on H2, where
     * the two inserts share a transaction instead.
     */
    private final PlainSql recordWithRun;
    private final PlainSql proposeAnywhereWithRun;
    private final PlainSql proposeInSessionWithRun;

    /** Rows of calls outside runs that changed nothing, written in batches; null when each is its own commit. */
    private final WriteBehind behind;

    JdbcCallStore(Db db, JdbcExecutionStore runs, WriteBehind behind) {
        this.db = db;
        this.runs = runs;
        this.behind = behind;
        this.admissions = Admissions.forDialect(db);
        Dialect dialect = db.dialect();
        String now = db.nowSql();
        this.pending = "status = 'proposed' AND expires_at > " + now;
        this.selectWithNow = "SELECT " + now + " AS now_, " + CallRows.COLUMNS + " FROM " + TABLE + " WHERE id = :id";
        String createdAt = "COALESCE(CAST(:created_at AS TIMESTAMP WITH TIME ZONE), " + now + ")";
        this.record = PlainSql.of(dialect.returning("INSERT INTO " + TABLE + " (" + CallRows.COLUMNS + ") VALUES ("
                + CallRows.values(createdAt, ":expires_at", now) + ")", "created_at, completed_at"));
        this.recordTimed = PlainSql.of("INSERT INTO " + TABLE + " (" + CallRows.COLUMNS + ") VALUES ("
                + CallRows.values(Db.fromEpochMicros("created_us"), ":expires_at", Db.fromEpochMicros("completed_us")) + ")");
        // a late outcome replaces interrupted; an operator's resolution (applied or failed) is final
        this.complete = PlainSql.of("UPDATE " + TABLE + " SET status = :status, result_json = :result_json, error = :error,"
                + " duration_millis = :duration_millis, completed_at = " + now
                + dialect.asynchronousCommitFrom()
                + " WHERE id = :id AND status IN ('applying', 'interrupted')");
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
        String claimUpdate = "UPDATE " + TABLE + " SET status = 'applying', applied_by = :applied_by,"
                + " applied_at = " + now + ", outcome_due_at = " + Db.plusMicros(now, '+', "outcome_us")
                + ", decided_by = :decided_by, decision_reason = :decision_reason"
                + " WHERE id = :id AND " + pending;
        this.claimRow = PlainSql.of(dialect.returning(claimUpdate, CallRows.COLUMNS));
        this.claimTimes = PlainSql.of(dialect.returning(claimUpdate, "applied_at, outcome_due_at"));
        this.close = "UPDATE " + TABLE + " SET status = :status, decided_by = :decided_by, decision_reason = :reason,"
                + " superseded_by = :superseded_by, completed_at = " + now + " WHERE id = :id AND " + pending;
        this.countPending = "SELECT COUNT(*) FROM " + TABLE + " WHERE session_id = :session_id AND " + pending;
        // H2 reads an index in order only for an ORDER BY on its leading columns, the constant status too;
        // on PostgreSQL the indexes are partial, on the time alone
        String byStatus = dialect == Dialect.H2 ? "status, " : "";
        this.expireDue = new PickedRows(db, TABLE, "status = 'proposed' AND expires_at <= " + now, byStatus + "expires_at",
                "UPDATE " + TABLE + " SET status = 'expired', completed_at = " + now, CallRows.COLUMNS, null);
        this.interruptOverdue = new PickedRows(db, TABLE, "status = 'applying' AND outcome_due_at <= " + now, byStatus + "outcome_due_at",
                "UPDATE " + TABLE + " SET status = 'interrupted', completed_at = " + now, CallRows.COLUMNS, null);
        this.resolve = "UPDATE " + TABLE + " SET status = :status, error = :error, completed_at = " + now
                + " WHERE id = :id AND status = 'interrupted'";
        String revert = "INSERT INTO " + TABLE + " (" + CallRows.COLUMNS + ") VALUES ("
                + CallRows.values(now, ":expires_at", ":completed_at", now, Db.plusMicros(now, '+', "outcome_us")) + ")"
                + (dialect == Dialect.POSTGRESQL ? " ON CONFLICT (reverts) WHERE reverts IS NOT NULL DO NOTHING" : "");
        this.claimRevert = PlainSql.of(dialect.returning(revert, "created_at, applied_at, outcome_due_at"));
        this.revertOf = SELECT + " WHERE reverts = :reverts";
        this.markReverted = "UPDATE " + TABLE + " SET status = 'reverted', reverted_by = :revert_id"
                + " WHERE id = :id AND status = 'applied' AND reverted_by IS NULL";
        this.purges = new Purges(db);
        boolean postgres = dialect == Dialect.POSTGRESQL;
        String withRun = "WITH toolgate_new_run AS (" + runs.insertSql("run_") + ") ";
        this.recordWithRun = postgres ? PlainSql.of(withRun + record.named()) : null;
        this.proposeAnywhereWithRun = postgres ? PlainSql.of(withRun + proposeAnywhere.named()) : null;
        this.proposeInSessionWithRun = postgres ? PlainSql.of(withRun + proposeInSession.named()) : null;
    }

    @Override
    public Instant now() {
        return db.currentTime();
    }

    @Override
    public Instant admit(BudgetCharge charge) {
        return admissions.admit(charge);
    }

    @Override
    public CallRecord record(CallRecord call) {
        if (!RECORDABLE.contains(call.status())) {
            throw new IllegalArgumentException("record takes a finished call, not " + call.status());
        }
        if (behind != null && call.executionId() == null) {
            CallRecord queued = behind.offer(call);
            if (queued != null) {
                return queued;
            }
        }
        try {
            if (runs.unwritten(call.executionId())) { // the run's first row goes with it: the database stamps both
                PlainSql.Binder binder = p -> CallRows.bind(p, call).timestamp("now", db.clockInstant());
                PlainSql.Reader<CallRecord> stored = rs -> call.toBuilder().createdAt(Db.instant(rs, 1))
                        .completedAt(Db.instant(rs, 2)).build();
                if (recordWithRun != null) {
                    return db.withConnection(c -> inOneStatement(c, call, recordWithRun, record, binder, stored))
                            .orElseThrow();
                }
                return withRun(call, h -> record.queryFirst(h.getConnection(), binder, stored).orElseThrow());
            }
            CallRecord timed = timed(call);
            Object[] values = CallRows.values(timed);
            PlainSql shape = recordShapes.get(CallRows.shapeOf(values));
            if (shape != null) {
                db.withConnection(c -> shape.updateAt(c, s -> CallRows.bindPresent(s, values)));
            } else {
                db.withConnection(c -> recordTimed.update(c, p -> CallRows.bind(p, timed)
                        .number("created_us", Db.epochMicros(timed.createdAt()))
                        .number("completed_us", Db.epochMicros(timed.completedAt()))));
            }
            return timed;
        } catch (UnableToExecuteStatementException e) {
            throw stepTakenOr(e, call);
        }
    }

    /**
     * PostgreSQL: the run's insert and the step's in one statement on {@code connection} ({@code plain}
     * alone if the run was written meanwhile by a change of its state); the run stays unwritten if the
     * statement fails.
     */
    private <R> Optional<R> inOneStatement(java.sql.Connection connection, CallRecord step, PlainSql combined, PlainSql plain,
                                           PlainSql.Binder binder, PlainSql.Reader<R> reader) {
        ExecutionRecord run = runs.takeUnwritten(step.executionId());
        if (run == null) {
            return plain.queryFirst(connection, binder, reader);
        }
        try {
            return combined.queryFirst(connection, p -> {
                binder.bind(p);
                runs.bindInsert(p.prefixed("run_"), run);
            }, reader);
        } catch (RuntimeException e) {
            runs.restore(run);
            throw e;
        }
    }

    /**
     * The first step of a run created on this instance: the run's row and the step's, in one
     * transaction (one commit); if it fails, the run stays unwritten.
     */
    private <R> R withRun(CallRecord step, org.jdbi.v3.core.HandleCallback<R, RuntimeException> write) {
        ExecutionRecord[] written = {null};
        try {
            return db.inTransaction(h -> {
                written[0] = runs.writeWith(h, step.executionId());
                return write.withHandle(h);
            });
        } catch (RuntimeException e) {
            runs.restore(written[0]);
            throw e;
        }
    }

    /** {@link StepTakenException} if {@code e} is a second row for the step {@code call} is; else {@code e}. */
    private static RuntimeException stepTakenOr(UnableToExecuteStatementException e, CallRecord call) {
        if (call.executionId() != null && Db.violates(e, STEP_INDEX)) {
            return new StepTakenException(call.executionId(), call.stepSeq());
        }
        return e;
    }

    /**
     * {@code call} with the times its row gets: its {@code createdAt} (an admission's time) or the
     * estimated database time, and that time as {@code completedAt}, never before {@code createdAt}.
     */
    private CallRecord timed(CallRecord call) {
        return CallRows.finished(call, db.estimatedTime());
    }

    @Override
    public boolean complete(String id, Completion completion) {
        return db.withConnection(c -> complete.update(c, p -> p
                .string("id", id)
                .string("status", completion.status().wireName())
                .string("result_json", completion.resultJson())
                .string("error", completion.error())
                .number("duration_millis", completion.durationMillis())
                .timestamp("now", db.clockInstant()))) == 1;
    }

    @Override
    public List<CallRecord> interruptOverdue(int limit) {
        if (limit < 1) {
            return List.of();
        }
        return interruptOverdue.changeReturning(limit, null, CallRows.MAPPER);
    }

    @Override
    public boolean resolve(String id, Resolution resolution) {
        Objects.requireNonNull(resolution, "resolution");
        return db.withHandle(h -> h.createUpdate(resolve)
                .bind("id", id)
                .bind("status", resolution.outcome().wireName())
                .bind("error", resolution.describe())
                .bind("now", db.now())
                .execute()) == 1;
    }

    @Override
    public ProposeResult propose(CallRecord proposal, Duration ttl, int maxPendingPerSession) {
        if (proposal.status() != CallStatus.PROPOSED || proposal.tokenDigest() == null || proposal.payloadJson() == null) {
            throw new IllegalArgumentException("propose takes a PROPOSED record with its payload and token digest");
        }
        String session = proposal.sessionId();
        PlainSql.Binder binder = p -> CallRows.bind(p, proposal)
                .number("ttl_us", Db.micros(ttl))
                .integer("max_pending", maxPendingPerSession)
                .timestamp("now", db.clockInstant());
        PlainSql.Reader<CallRecord> stored = rs -> proposal.toBuilder().createdAt(Db.instant(rs, 1)).expiresAt(Db.instant(rs, 2)).build();
        boolean withRun = runs.unwritten(proposal.executionId());
        try {
            if (session == null && !withRun) {
                PlainSql insert = Objects.requireNonNullElse(proposalShapes.anywhere(proposal), proposeAnywhere);
                return new ProposeResult(ProposeResult.Status.PROPOSED,
                        db.withConnection(c -> insert.queryFirst(c, binder, stored).orElseThrow()));
            }
            if (session == null) {
                if (proposeAnywhereWithRun != null) {
                    return new ProposeResult(ProposeResult.Status.PROPOSED, db.withConnection(c ->
                            inOneStatement(c, proposal, proposeAnywhereWithRun, proposeAnywhere, binder, stored)).orElseThrow());
                }
                return withRun(proposal, h -> new ProposeResult(ProposeResult.Status.PROPOSED,
                        proposeAnywhere.queryFirst(h.getConnection(), binder, stored).orElseThrow()));
            }
            boolean oneStatement = withRun && proposeInSessionWithRun != null;
            PlainSql insertInSession = withRun ? proposeInSession
                    : Objects.requireNonNullElse(proposalShapes.inSession(proposal), proposeInSession);
            if (roomInStatement) { // the statement locks the session (advisory lock): one autocommit statement
                Optional<CallRecord> inserted = db.withConnection(c -> oneStatement
                        ? inOneStatement(c, proposal, proposeInSessionWithRun, proposeInSession, binder, stored)
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
                    Optional<CallRecord> inserted = withRun ? withRun(proposal, insert) : db.withHandle(insert);
                    return inserted.map(record -> new ProposeResult(ProposeResult.Status.PROPOSED, record))
                            .orElseGet(() -> new ProposeResult(ProposeResult.Status.PENDING_LIMIT, null));
                });
            }
            org.jdbi.v3.core.HandleCallback<ProposeResult, RuntimeException> inSession = h -> {
                sessions.lock(h, session); // serializes proposals of one session: the pending count is exact
                Optional<CallRecord> inserted = oneStatement
                        ? inOneStatement(h.getConnection(), proposal, proposeInSessionWithRun, proposeInSession, binder, stored)
                        : insertInSession.queryFirst(h.getConnection(), binder, stored);
                return inserted.map(record -> new ProposeResult(ProposeResult.Status.PROPOSED, record))
                        .orElseGet(() -> new ProposeResult(ProposeResult.Status.PENDING_LIMIT, null));
            };
            return withRun && !oneStatement ? withRun(proposal, inSession) : db.inTransaction(inSession);
        } catch (UnableToExecuteStatementException e) {
            throw stepTakenOr(e, proposal); // the transaction was rolled back: nothing is stored
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

    @Override
    public ClaimResult claim(String id, Claim claim, BudgetCharge charge) {
        return claim(id, claim, charge, claimRow, rs -> CallRows.MAPPER.map(rs, null), true);
    }

    @Override
    public ClaimResult claim(CallRecord proposal, Claim claim, BudgetCharge charge) {
        Objects.requireNonNull(proposal, "proposal");
        if (proposal.status() != CallStatus.PROPOSED) {
            return claim(proposal.id(), claim, charge);
        }
        // what a claim leaves alone never changes while the proposal is pending: only the two times it
        // sets are read back (a whole row read back costs about as much again as the update's own work)
        return claim(proposal.id(), claim, charge, claimTimes, rs -> proposal.toBuilder()
                .status(CallStatus.APPLYING)
                .appliedBy(claim.appliedBy())
                .appliedAt(Db.instant(rs, 1))
                .outcomeDueAt(Db.instant(rs, 2))
                .decidedBy(claim.decidedBy())
                .decisionReason(claim.decisionReason())
                .build(), proposal.precondition() != null);
    }

    /**
     * The claim of {@code id} by {@code update}, whose returned row {@code claimed} reads. Without a
     * charge the single-use update is the whole step: one autocommit statement, sent without a JDBI
     * handle (whose set-up is measurable on every apply). With one, a transaction that takes the
     * principal's lock first and admits at the claim's own time, so {@code appliedAt} is when the
     * budget counted it; a refused admission throws and rolls the claim back. A lost claim is then read.
     */
    /**
     * {@code mayConflict}: the proposal may have a precondition, so its claim may violate the index of
     * applying preconditions. On H2 such a claim runs in a transaction even without a charge: a
     * {@code SELECT ... FROM FINAL TABLE (UPDATE ...)} that fails on the index in autocommit mode leaves
     * its update in place (seen with H2 2.x and the generated column the index is on); the rollback of a
     * transaction does not.
     */
    private ClaimResult claim(String id, Claim claim, BudgetCharge charge, PlainSql update,
                              PlainSql.Reader<CallRecord> claimed, boolean mayConflict) {
        try {
            return claimOnce(id, claim, charge, update, claimed, mayConflict && db.dialect() == Dialect.H2);
        } catch (RuntimeException e) {
            if (Db.violates(e, APPLYING_STATE_INDEX)) { // another call of the same precondition is applying
                return new ClaimResult(ClaimResult.Status.CONFLICT, null);
            }
            throw e;
        }
    }

    private ClaimResult claimOnce(String id, Claim claim, BudgetCharge charge, PlainSql update,
                                  PlainSql.Reader<CallRecord> claimed, boolean inTransaction) {
        PlainSql.Binder binder = p -> p
                .string("id", id)
                .string("applied_by", claim.appliedBy().key())
                .string("decided_by", CallRows.key(claim.decidedBy()))
                .string("decision_reason", claim.decisionReason())
                .number("outcome_us", Db.micros(claim.outcomeWithin()))
                .timestamp("now", db.clockInstant());
        if (charge == null && !inTransaction) {
            return db.withConnection(c -> update.queryFirst(c, binder, claimed))
                    .map(record -> new ClaimResult(ClaimResult.Status.CLAIMED, record))
                    .orElseGet(() -> db.withHandle(h -> lostClaim(h, id)));
        }
        return db.inTransaction(h -> {
            if (charge != null) {
                admissions.beforeClaim(h, charge);
            }
            Optional<CallRecord> record = update.queryFirst(h.getConnection(), binder, claimed);
            if (record.isEmpty()) {
                return lostClaim(h, id);
            }
            if (charge != null) {
                admissions.admit(h, charge, record.get().appliedAt());
            }
            return new ClaimResult(ClaimResult.Status.CLAIMED, record.get());
        });
    }

    /** Why a claim matched no row, read right after it. */
    private ClaimResult lostClaim(Handle h, String id) {
        return h.createQuery(selectWithNow)
                .bind("id", id).bind("now", db.now())
                .map((rs, ctx) -> {
                    CallRecord record = CallRows.MAPPER.map(rs, ctx);
                    Instant now = Db.instant(rs, "now_");
                    boolean expired = record.status() == CallStatus.EXPIRED
                            || (record.status() == CallStatus.PROPOSED && !record.pendingAt(now));
                    return new ClaimResult(expired ? ClaimResult.Status.EXPIRED : ClaimResult.Status.NOT_PENDING, record);
                })
                .findOne()
                .orElseGet(() -> new ClaimResult(ClaimResult.Status.NOT_FOUND, null));
    }

    @Override
    public ClaimResult claimRevert(CallRecord revert, Duration outcomeWithin) {
        Objects.requireNonNull(revert.reverts(), "revert.reverts");
        Objects.requireNonNull(outcomeWithin, "outcomeWithin");
        CallRecord draft = revert.toBuilder().status(CallStatus.APPLYING).build();
        PlainSql.Binder binder = p -> CallRows.bind(p, draft)
                .number("outcome_us", Db.micros(outcomeWithin))
                .timestamp("now", db.clockInstant());
        for (int attempt = 1; attempt <= REVERT_ATTEMPTS; attempt++) {
            Optional<CallRecord> claimed;
            try {
                claimed = db.withConnection(c -> claimRevert.queryFirst(c, binder, rs -> draft.toBuilder()
                        .createdAt(Db.instant(rs, 1)).appliedAt(Db.instant(rs, 2)).outcomeDueAt(Db.instant(rs, 3)).build()));
            } catch (UnableToExecuteStatementException e) {
                if (!Db.violates(e, REVERTS_INDEX)) { // H2: another revert of the call is stored
                    throw e;
                }
                claimed = Optional.empty();
            }
            if (claimed.isPresent()) {
                return new ClaimResult(ClaimResult.Status.CLAIMED, claimed.get());
            }
            Optional<CallRecord> earlier = db.withHandle(h -> h.createQuery(revertOf).bind("reverts", revert.reverts())
                    .map(CallRows.MAPPER).findOne());
            if (earlier.isPresent()) {
                return new ClaimResult(ClaimResult.Status.NOT_PENDING, earlier.get());
            }
            // the revert that won is not visible (H2: not committed yet) or was purged since: try again
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
        throw new IllegalStateException("the revert of " + revert.reverts() + " could neither be stored nor read in "
                + REVERT_ATTEMPTS + " attempts");
    }

    @Override
    public boolean markReverted(String id, String revertId) {
        return db.withHandle(h -> h.createUpdate(markReverted).bind("id", id).bind("revert_id", revertId).execute()) == 1;
    }

    @Override
    public boolean close(String id, Closure closure) {
        return db.withHandle(h -> h.createUpdate(close)
                .bind("id", id)
                .bind("status", closure.status().wireName())
                .bind("decided_by", closure.decidedBy().key())
                .bind("reason", closure.reason())
                .bind("superseded_by", closure.supersededBy())
                .bind("now", db.now())
                .execute()) == 1;
    }

    @Override
    public Optional<CallRecord> find(String id) {
        if (id == null) {
            return Optional.empty();
        }
        CallRecord waiting = waiting(id);
        return waiting != null ? Optional.of(waiting) : db.withHandle(h -> find(h, id));
    }

    /** One statement: the row and the database's time ({@code selectWithNow}). */
    @Override
    public Optional<FoundCall> findWithTime(String id) {
        if (id == null) {
            return Optional.empty();
        }
        CallRecord waiting = waiting(id);
        if (waiting != null) {
            return Optional.of(new FoundCall(waiting, now()));
        }
        return db.withHandle(h -> h.createQuery(selectWithNow).bind("id", id).bind("now", db.now())
                .map((rs, ctx) -> new FoundCall(CallRows.MAPPER.map(rs, ctx), Db.instant(rs, "now_")))
                .findOne());
    }

    /** The row of call {@code id} if it waits to be written behind, else null. */
    private CallRecord waiting(String id) {
        return behind == null ? null : behind.waiting(id);
    }

    /** Writes every row waiting behind, so that a statement reading the table sees them. */
    private void writeWaiting() {
        if (behind != null) {
            behind.flush();
        }
    }

    private static Optional<CallRecord> find(Handle h, String id) {
        return h.createQuery(SELECT + " WHERE id = :id").bind("id", id).map(CallRows.MAPPER).findOne();
    }

    /**
     * The query of {@link #query}. On H2 a query for one of the statuses a call passes through (proposed,
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

    @Override
    public List<CallRecord> query(CallQuery query) {
        writeWaiting();
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

    /** Every batch change this store picks rows for (sweeps and purges), by name. For tests. */
    Map<String, PickedRows> picks() {
        Map<String, PickedRows> picks = new java.util.TreeMap<>(purges.picks());
        picks.put("expiry sweep", expireDue);
        picks.put("interrupt sweep", interruptOverdue);
        picks.put("run purge", runs.purgePick());
        return picks;
    }

    @Override
    public int countPending(String sessionId) {
        return db.withHandle(h -> countPending(h, sessionId));
    }

    private int countPending(Handle h, String sessionId) {
        return h.createQuery(countPending).bind("session_id", sessionId).bind("now", db.now()).mapTo(Integer.class).one();
    }

    @Override
    public List<CallRecord> expireDue(int limit) {
        if (limit < 1) {
            return List.of();
        }
        return expireDue.changeReturning(limit, null, CallRows.MAPPER);
    }

    @Override
    public int purge(Purge kind, Instant before, int limit) {
        writeWaiting(); // a purge sees every row this instance has recorded, like a query
        return purges.purge(kind, before, limit);
    }

    @Override
    public boolean endSession(String sessionId) {
        // on H2 in this JVM a proposal in flight holds the session's lock of the JVM, not its row: wait for it
        return localSessions == null || sessionId == null ? purges.endSession(sessionId)
                : localSessions.withLock(sessionId, () -> purges.endSession(sessionId));
    }
}
