package dev.toolgate.jdbc;

import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.spi.StepTakenException;
import java.util.Optional;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The first step of a run created on this instance, written together with the run's row (see
 * {@link JdbcExecutionStore}): in one statement on PostgreSQL, in one transaction on H2; if it fails,
 * the run stays unwritten. Also tells a second row for a logged step ({@value JdbcCallStore#STEP_INDEX})
 * from other failures.
 */
final class FirstSteps {

    private final Db db;
    private final JdbcExecutionStore runs;
    /** {@code WITH toolgate_new_run AS (INSERT ...)}, to put before a step's insert; null on H2. */
    private final String withRunPrefix;

    FirstSteps(Db db, JdbcExecutionStore runs) {
        this.db = db;
        this.runs = runs;
        this.withRunPrefix = db.dialect() == Dialect.POSTGRESQL ? "WITH toolgate_new_run AS (" + runs.insertSql("run_") + ") "
                : null;
    }

    /** Whether the run of a step is created on this instance and not written yet (false outside a run). */
    boolean unwritten(String executionId) {
        return runs.unwritten(executionId);
    }

    /**
     * PostgreSQL: {@code plain} preceded by the run's insert ({@code WITH run AS (INSERT ...) INSERT
     * ...}), one round trip and one commit; null on H2, where the two inserts share a transaction instead.
     */
    PlainSql withRun(PlainSql plain) {
        return withRunPrefix == null ? null : PlainSql.of(withRunPrefix + plain.named());
    }

    /**
     * PostgreSQL: the run's insert and the step's in one statement on {@code connection} ({@code plain}
     * alone if the run was written meanwhile by a change of its state); the run stays unwritten if the
     * statement fails.
     */
    <R> Optional<R> inOneStatement(java.sql.Connection connection, CallRecord step, PlainSql combined, PlainSql plain,
                                           PlainSql.Binder binder, PlainSql.Reader<R> reader) {
        ExecutionRecord run = runs.takeUnwritten(step.executionId());
        if (run == null) {
            return plain.queryFirst(connection, binder, reader);
        }
        try {
            return combined.queryFirst(connection, withRun(binder, run), reader);
        } catch (RuntimeException e) {
            runs.restore(run);
            throw e;
        }
    }

    /**
     * {@link #inOneStatement(java.sql.Connection, CallRecord, PlainSql, PlainSql, PlainSql.Binder, PlainSql.Reader)}
     * for a statement that returns nothing (a step whose times are bound); the rows it inserted.
     */
    int inOneStatement(java.sql.Connection connection, CallRecord step, PlainSql combined, PlainSql plain,
                       PlainSql.Binder binder) {
        ExecutionRecord run = runs.takeUnwritten(step.executionId());
        if (run == null) {
            return plain.update(connection, binder);
        }
        try {
            return combined.update(connection, withRun(binder, run));
        } catch (RuntimeException e) {
            runs.restore(run);
            throw e;
        }
    }

    private PlainSql.Binder withRun(PlainSql.Binder binder, ExecutionRecord run) {
        return p -> {
            binder.bind(p);
            runs.bindInsert(p.prefixed("run_"), run);
        };
    }

    /**
     * The first step of a run created on this instance: the run's row and the step's, in one
     * transaction (one commit); if it fails, the run stays unwritten.
     */
    <R> R withRun(CallRecord step, org.jdbi.v3.core.HandleCallback<R, RuntimeException> write) {
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
    static RuntimeException stepTakenOr(UnableToExecuteStatementException e, CallRecord call) {
        if (call.executionId() != null && Db.violates(e, JdbcCallStore.STEP_INDEX)) {
            return new StepTakenException(call.executionId(), call.stepSeq());
        }
        return e;
    }
}
