package dev.toolgate.jdbc;

import dev.toolgate.audit.ExecutionQuery;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.spi.ExecutionStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Update;

/**
 * The runs of durable executions in {@code toolgate_execution}; their steps are rows of
 * {@code toolgate_call} ({@link JdbcCallStore}). Every status change is one guarded autocommit
 * {@code UPDATE ... WHERE id = ? AND status = ? [AND attempt = ?]} whose row count decides: under READ
 * COMMITTED a concurrent change of the same row makes it wait for that row's lock and re-evaluate
 * its {@code WHERE} on the committed row (PostgreSQL; H2 does the same for its row locks), so of any
 * number of concurrent callers on every instance exactly one changes the row, and the others find it
 * changed. Costs (PostgreSQL, 2 cores, loopback: a durable commit about 0.3-0.45 ms):
 *
 * <ul>
 *   <li>{@link #create}: no commit of its own. The run is written in the same transaction as its
 *       first step (by {@link JdbcCallStore}), so a run costs no commit to start: the step's commit
 *       is durable, and carries the run. Until then it exists on this instance only ({@link #find}
 *       sees it, other instances do not, which is what they need: there is nothing to resume before
 *       the first step). Any change of its state before that writes it first. A run whose instance
 *       dies before its first step leaves nothing behind; nothing had happened. Its stored times are
 *       the database's when it is written (an injected clock's at {@code create}).</li>
 *   <li>{@link #pause}: one durable guarded update ({@code running} at the attempt to {@code paused}
 *       on the step's proposal). Durable: the inbox shows the proposal, and an approval must find the
 *       run paused on it.</li>
 *   <li>{@link #resume} and {@link #takeOver}: one durable guarded update that increments the attempt,
 *       returning the row as it is now ({@code RETURNING}; H2: {@code FINAL TABLE}). Durable: a lost
 *       resume would let a second approval replay the run; the winner's claim of the approved step
 *       (a durable claim in {@code toolgate_call}) would still keep that step to one execution.</li>
 *   <li>{@link #finish}: one guarded update ({@code running} at the attempt to its end), committed on
 *       PostgreSQL without waiting for the write-ahead log flush, as an apply's outcome is. A lost
 *       finish is harmless: a database crash can forget a finish committed in its last fraction of a
 *       second (the first durable commit after it, of any session, flushes it too), and the run then
 *       reads {@code running} at the attempt that finished it, with every step logged. Once quiet for
 *       the quiet period, a sweep takes it over ({@link #stalled}, {@link #takeOver}) and replays it:
 *       every step is served from the log (nothing runs, nothing is charged) and the program finishes
 *       it again. A program that returns or throws as its log says (the replay contract) finishes it
 *       with the same result or error; one that diverges fails the run, running nothing.</li>
 *   <li>{@link #close}: one durable guarded update ({@code status IN (from)} to {@code to}).</li>
 *   <li>{@link #stalled}: one query: running runs quiet since the cutoff with no step applying and no
 *       step active since, by {@code NOT EXISTS} on {@code toolgate_call} joined on
 *       {@code execution_id} (the step index).</li>
 *   <li>{@link #pausedOnClosedSteps}: one query: paused runs whose pending proposal is not pending
 *       any more, by {@code NOT EXISTS} on its {@code toolgate_call} row.</li>
 *   <li>{@link #purge}: at most {@code limit} finished runs, oldest {@code completed_at} first, as
 *       {@link PickedRows} (concurrent purgers on every instance take different rows).</li>
 * </ul>
 */
final class JdbcExecutionStore implements ExecutionStore {

    private static final String TABLE = ExecutionRows.TABLE;
    private static final String SELECT = "SELECT " + ExecutionRows.COLUMNS + " FROM " + TABLE;
    private static final Set<ExecutionStatus> FINISHES = EnumSet.of(ExecutionStatus.COMPLETED, ExecutionStatus.FAILED,
            ExecutionStatus.INTERRUPTED, ExecutionStatus.REJECTED, ExecutionStatus.EXPIRED);

    private final Db db;
    private final String now;
    private final PlainSql create;
    private final PlainSql pause;
    private final PlainSql resume;
    private final PlainSql takeOver;
    private final PlainSql finish;
    private final String stalled;
    private final String pausedOnClosedSteps;
    private final PickedRows purge;
    /**
     * Runs created on this instance and not written yet, by id: each is written with its first step,
     * or before its first change. Entries of runs that never got that far (their attempt died of an
     * {@code Error}) are dropped after {@link #UNWRITTEN_AGE}.
     */
    private final Map<String, ExecutionRecord> unwritten = new ConcurrentHashMap<>();
    private static final Duration UNWRITTEN_AGE = Duration.ofHours(1);
    private static final int UNWRITTEN_SWEEP_SIZE = 1_000;

    JdbcExecutionStore(Db db) {
        this.db = db;
        Dialect dialect = db.dialect();
        this.now = db.nowSql();
        this.create = PlainSql.of(insertSql(""));
        this.pause = PlainSql.of("UPDATE " + TABLE + " SET status = 'paused', pending_seq = :seq, pending_call_id = :call_id,"
                + " updated_at = " + now + " WHERE id = :id AND status = 'running' AND attempt = :attempt");
        this.resume = PlainSql.of(dialect.returning("UPDATE " + TABLE + " SET status = 'running', attempt = attempt + 1,"
                + " pending_seq = NULL, pending_call_id = NULL, updated_at = " + now
                + " WHERE id = :id AND status = 'paused' AND pending_call_id = :call_id", ExecutionRows.COLUMNS));
        this.takeOver = PlainSql.of(dialect.returning("UPDATE " + TABLE + " SET attempt = attempt + 1,"
                + " pending_seq = NULL, pending_call_id = NULL, updated_at = " + now
                + " WHERE id = :id AND status = 'running' AND attempt = :attempt", ExecutionRows.COLUMNS));
        this.finish = PlainSql.of("UPDATE " + TABLE + " SET status = :status, result_json = :result_json, error = :error,"
                + " logs = :logs, pending_seq = NULL, pending_call_id = NULL, completed_at = " + now + ", updated_at = " + now
                + dialect.asynchronousCommitFrom()
                + " WHERE id = :id AND status = 'running' AND attempt = :attempt");
        this.stalled = SELECT + " e WHERE e.status = 'running' AND e.updated_at < :quiet"
                + " AND NOT EXISTS (SELECT 1 FROM " + CallRows.TABLE + " c WHERE c.execution_id = e.id"
                + " AND (c.status = 'applying' OR c.created_at >= :quiet OR c.applied_at >= :quiet OR c.completed_at >= :quiet))"
                + " ORDER BY e.updated_at, e.id LIMIT :limit";
        this.pausedOnClosedSteps = SELECT + " e WHERE e.status = 'paused'"
                + " AND NOT EXISTS (SELECT 1 FROM " + CallRows.TABLE + " c WHERE c.id = e.pending_call_id"
                + " AND c.status = 'proposed' AND c.expires_at > " + now + ")"
                + " ORDER BY e.updated_at, e.id LIMIT :limit";
        this.purge = new PickedRows(db, TABLE, "status NOT IN ('running', 'paused') AND completed_at < :before",
                "completed_at", "DELETE FROM " + TABLE, null, null);
    }

    /** The pick of {@link #purge}. For tests. */
    PickedRows purgePick() {
        return purge;
    }

    /**
     * The {@code INSERT} of a run, its parameters named with {@code prefix} (but {@code :now}), so it
     * can go in front of a step's insert in one statement: {@code WITH run AS (<this>) INSERT ...}.
     */
    String insertSql(String prefix) {
        String p = ":" + prefix;
        String created = "COALESCE(CAST(" + p + "created_at AS TIMESTAMP WITH TIME ZONE), " + now + ")";
        return "INSERT INTO " + TABLE + " (" + ExecutionRows.COLUMNS + ") VALUES ("
                + p + "id, " + p + "program, " + p + "principal, " + p + "principal_rules, " + p + "tenant_id, "
                + p + "session_id, " + p + "automation_id, " + p + "transport, " + p + "auto_approve, " + p + "input_json, "
                + p + "status, " + p + "attempt, " + p + "pending_seq, " + p + "pending_call_id, " + created + ", " + created
                + ", NULL, " + p + "result_json, " + p + "error, " + p + "logs)";
    }

    /** Binds the parameters of {@link #insertSql} for {@code run} (named with the params' prefix). */
    void bindInsert(PlainSql.Params params, ExecutionRecord run) throws java.sql.SQLException {
        ExecutionRows.bind(params, run).timestamp("created_at", db.clockInstant() == null ? null : run.createdAt());
    }

    /** Takes the run {@code id} off the unwritten runs, to be written by the caller's statement; null if written. */
    ExecutionRecord takeUnwritten(String id) {
        return id == null ? null : unwritten.remove(id);
    }

    @Override
    public ExecutionRecord create(ExecutionRecord run) {
        Objects.requireNonNull(run, "run");
        if (run.status() != ExecutionStatus.RUNNING || run.attempt() != 1) {
            throw new IllegalArgumentException("a new run is running at attempt 1, not " + run.status() + " at " + run.attempt());
        }
        // the store's time when a clock is injected; else this instance's, as the database's is taken when
        // the run is written (a read of the database's clock here would cost a round trip per run)
        Instant at = db.clockInstant() != null ? db.clockInstant() : Instant.now();
        ExecutionRecord created = run.at(at, at);
        if (unwritten.size() >= UNWRITTEN_SWEEP_SIZE) {
            Instant old = at.minus(UNWRITTEN_AGE);
            unwritten.values().removeIf(r -> r.createdAt().isBefore(old));
        }
        if (unwritten.putIfAbsent(run.id(), created) != null) {
            throw new IllegalStateException("duplicate execution id " + run.id());
        }
        return created;
    }

    /** True if the run {@code id} was created on this instance and is not written yet. */
    boolean unwritten(String id) {
        return id != null && unwritten.containsKey(id);
    }

    /**
     * Writes the run {@code id} if it is still unwritten, in the transaction open on {@code handle}
     * (a step's, which then carries it). The caller calls {@link #restore} if that transaction fails.
     *
     * @return the run written, or null if there was nothing to write
     */
    ExecutionRecord writeWith(Handle handle, String id) {
        ExecutionRecord run = unwritten.remove(id);
        if (run != null) {
            try {
                insert(handle.getConnection(), run);
            } catch (java.sql.SQLException e) {
                throw new org.jdbi.v3.core.statement.UnableToExecuteStatementException("cannot write run " + id, e, null);
            }
        }
        return run;
    }

    /** Puts back a run whose write was rolled back with its step's transaction. */
    void restore(ExecutionRecord run) {
        if (run != null) {
            unwritten.putIfAbsent(run.id(), run);
        }
    }

    /** Writes the run {@code id} on its own if it is still unwritten: before any change of its state. */
    private void writeIfUnwritten(String id) {
        ExecutionRecord run = id == null ? null : unwritten.remove(id);
        if (run == null) {
            return;
        }
        try {
            db.withConnection(c -> {
                insert(c, run);
                return null;
            });
        } catch (RuntimeException e) {
            unwritten.putIfAbsent(run.id(), run);
            throw e;
        }
    }

    private void insert(java.sql.Connection connection, ExecutionRecord run) throws java.sql.SQLException {
        create.update(connection, p -> {
            bindInsert(p, run);
            p.timestamp("now", db.clockInstant());
        });
    }

    @Override
    public Optional<ExecutionRecord> find(String id) {
        if (id == null) {
            return Optional.empty();
        }
        ExecutionRecord local = unwritten.get(id);
        if (local != null) {
            return Optional.of(local);
        }
        return db.withHandle(h -> h.createQuery(SELECT + " WHERE id = :id").bind("id", id).map(ExecutionRows.MAPPER).findOne());
    }

    @Override
    public List<ExecutionRecord> query(ExecutionQuery query) {
        Objects.requireNonNull(query, "query");
        List.copyOf(unwritten.keySet()).forEach(this::writeIfUnwritten); // a listing sees every run this instance knows
        List<String> where = new ArrayList<>();
        if (query.tenantId() != null) {
            where.add("tenant_id = :tenant_id");
        }
        if (query.principalKey() != null) {
            where.add("principal = :principal");
        }
        if (query.program() != null) {
            where.add("program = :program");
        }
        if (query.status() != null) {
            where.add("status = :status");
        }
        String sql = SELECT + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where))
                + " ORDER BY created_at DESC, id LIMIT :limit";
        return db.withHandle(h -> h.createQuery(sql)
                .bind("tenant_id", query.tenantId())
                .bind("principal", query.principalKey())
                .bind("program", query.program())
                .bind("status", query.status() == null ? null : query.status().wireName())
                .bind("limit", query.limit())
                .map(ExecutionRows.MAPPER)
                .list());
    }

    @Override
    public boolean pause(String id, int attempt, int seq, String callId) {
        Objects.requireNonNull(callId, "callId");
        writeIfUnwritten(id);
        return db.withConnection(c -> pause.update(c, p -> p
                .string("id", id)
                .integer("attempt", attempt)
                .integer("seq", seq)
                .string("call_id", callId)
                .timestamp("now", db.clockInstant()))) == 1;
    }

    @Override
    public Optional<ExecutionRecord> resume(String id, String callId) {
        Objects.requireNonNull(callId, "callId");
        writeIfUnwritten(id);
        return db.withConnection(c -> resume.queryFirst(c, p -> p
                .string("id", id)
                .string("call_id", callId)
                .timestamp("now", db.clockInstant()), ExecutionRows::read));
    }

    @Override
    public Optional<ExecutionRecord> takeOver(String id, int attempt) {
        writeIfUnwritten(id);
        return db.withConnection(c -> takeOver.queryFirst(c, p -> p
                .string("id", id)
                .integer("attempt", attempt)
                .timestamp("now", db.clockInstant()), ExecutionRows::read));
    }

    @Override
    public boolean finish(String id, int attempt, ExecutionStatus status, String resultJson, String error, List<String> logs) {
        Objects.requireNonNull(status, "status");
        writeIfUnwritten(id);
        if (!FINISHES.contains(status)) {
            throw new IllegalArgumentException("a run finishes as completed, failed, interrupted, rejected or expired, not " + status);
        }
        String lines = ExecutionRows.strings(logs == null ? List.of() : logs);
        return db.withConnection(c -> finish.update(c, p -> p
                .string("id", id)
                .integer("attempt", attempt)
                .string("status", status.wireName())
                .string("result_json", resultJson)
                .string("error", error)
                .string("logs", lines)
                .timestamp("now", db.clockInstant()))) == 1;
    }

    @Override
    public boolean close(String id, Set<ExecutionStatus> from, ExecutionStatus to, String error) {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (from.isEmpty()) {
            return false;
        }
        writeIfUnwritten(id);
        List<String> statuses = ExecutionRows.wireNames(from);
        String in = IntStream.range(0, statuses.size()).mapToObj(i -> ":f" + i).collect(Collectors.joining(", "));
        String sql = "UPDATE " + TABLE + " SET status = :to, error = COALESCE(CAST(:error AS VARCHAR), error),"
                + " completed_at = COALESCE(completed_at, " + now + "), pending_seq = NULL, pending_call_id = NULL,"
                + " updated_at = " + now + " WHERE id = :id AND status IN (" + in + ")";
        return db.withHandle(h -> {
            Update update = h.createUpdate(sql).bind("id", id).bind("to", to.wireName()).bind("error", error)
                    .bind("now", db.now());
            for (int i = 0; i < statuses.size(); i++) {
                update.bind("f" + i, statuses.get(i));
            }
            return update.execute();
        }) == 1;
    }

    @Override
    public List<ExecutionRecord> stalled(Instant quietSince, int limit) {
        Objects.requireNonNull(quietSince, "quietSince");
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative, got " + limit);
        }
        if (limit == 0) {
            return List.of();
        }
        // runs of this instance that never logged a step count too (their program is quiet before its first call)
        List<ExecutionRecord> found = new ArrayList<>(unwritten.values().stream()
                .filter(r -> r.updatedAt().isBefore(quietSince)).toList());
        found.addAll(db.withHandle(h -> h.createQuery(stalled)
                .bind("quiet", Db.timestamp(quietSince))
                .bind("limit", limit)
                .map(ExecutionRows.MAPPER)
                .list()));
        found.sort(java.util.Comparator.comparing(ExecutionRecord::updatedAt).thenComparing(ExecutionRecord::id));
        return found.size() > limit ? List.copyOf(found.subList(0, limit)) : found;
    }

    @Override
    public List<ExecutionRecord> pausedOnClosedSteps(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative, got " + limit);
        }
        if (limit == 0) {
            return List.of();
        }
        return db.withHandle(h -> h.createQuery(pausedOnClosedSteps)
                .bind("limit", limit)
                .bind("now", db.now())
                .map(ExecutionRows.MAPPER)
                .list());
    }

    @Override
    public int purge(Instant before, int limit) {
        Objects.requireNonNull(before, "before");
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative, got " + limit);
        }
        return limit == 0 ? 0 : purge.change(limit, before);
    }
}
