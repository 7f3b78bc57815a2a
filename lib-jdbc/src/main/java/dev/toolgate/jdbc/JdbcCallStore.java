package dev.toolgate.jdbc;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.StepTakenException;
import java.time.Duration;
import java.time.Instant;
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

    private final Db db;
    private final Admissions admissions;
    private final String pending;
    private final String selectWithNow;
    /**
     * The insert of every column of a finished call, its times bound (the estimated database time, as
     * microseconds since the epoch: see {@link Db#fromEpochMicros}) and nothing returned.
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
    private final JdbcProposals proposals;
    private final JdbcClaims claims;
    private final JdbcCallQueries queries;
    private final FirstSteps steps;
    private final String close;
    private final String countPending;
    private final PickedRows expireDue;
    private final PickedRows interruptOverdue;
    private final String resolve;
    private final String markReverted;
    private final Purges purges;
    private final JdbcExecutionStore runs;
    /**
     * PostgreSQL: the first step of a run created on this instance and the run's row in one statement
     * ({@code WITH run AS (INSERT ...) INSERT ...}), one round trip and one commit; null on H2, where
     * the two inserts share a transaction instead.
     */
    private final PlainSql recordWithRun;

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
        this.recordTimed = PlainSql.of("INSERT INTO " + TABLE + " (" + CallRows.COLUMNS + ") VALUES ("
                + CallRows.values(Db.fromEpochMicros("created_us"), ":expires_at", Db.fromEpochMicros("completed_us")) + ")");
        // a late outcome replaces interrupted; an operator's resolution (applied or failed) is final
        this.complete = PlainSql.of("UPDATE " + TABLE + " SET status = :status, result_json = :result_json, error = :error,"
                + " duration_millis = :duration_millis, completed_at = " + now
                + dialect.asynchronousCommitFrom()
                + " WHERE id = :id AND status IN ('applying', 'interrupted')");
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
        this.markReverted = "UPDATE " + TABLE + " SET status = 'reverted', reverted_by = :revert_id"
                + " WHERE id = :id AND status = 'applied' AND reverted_by IS NULL";
        this.purges = new Purges(db);
        this.steps = new FirstSteps(db, runs);
        this.recordWithRun = steps.withRun(recordTimed);
        this.proposals = new JdbcProposals(db, steps, createdAt);
        this.claims = new JdbcClaims(db, admissions, pending, selectWithNow);
        this.queries = new JdbcCallQueries(db);
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
            CallRecord timed = timed(call);
            if (steps.unwritten(call.executionId())) { // the run's first row goes with it
                // the step's times bound as every step's are (the estimated database time): nothing to read back
                PlainSql.Binder binder = p -> CallRows.bind(p, timed).timestamp("now", db.clockInstant())
                        .number("created_us", Db.epochMicros(timed.createdAt()))
                        .number("completed_us", Db.epochMicros(timed.completedAt()));
                if (recordWithRun != null) {
                    db.withConnection(c -> steps.inOneStatement(c, call, recordWithRun, recordTimed, binder));
                } else {
                    steps.withRun(call, h -> recordTimed.update(h.getConnection(), binder));
                }
                return timed;
            }
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
            throw FirstSteps.stepTakenOr(e, call);
        }
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
        return proposals.propose(proposal, ttl, maxPendingPerSession);
    }

    @Override
    public ClaimResult claim(String id, Claim claim, BudgetCharge charge) {
        return claims.claim(id, claim, charge);
    }

    @Override
    public ClaimResult claim(CallRecord proposal, Claim claim, BudgetCharge charge) {
        return claims.claim(proposal, claim, charge);
    }

    @Override
    public ClaimResult claimRevert(CallRecord revert, Duration outcomeWithin) {
        return claims.claimRevert(revert, outcomeWithin);
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

    /** The SQL of {@link #query} (see {@link JdbcCallQueries#querySql}). */
    String querySql(CallQuery query) {
        return queries.querySql(query);
    }

    @Override
    public List<CallRecord> query(CallQuery query) {
        writeWaiting();
        return queries.query(query);
    }

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
        LocalSessionLocks localSessions = proposals.localSessions();
        return localSessions == null || sessionId == null ? purges.endSession(sessionId)
                : localSessions.withLock(sessionId, () -> purges.endSession(sessionId));
    }
}
