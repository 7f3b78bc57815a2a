package dev.toolgate.jdbc;

import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * A batch change ({@code UPDATE} or {@code DELETE}) of at most {@code :limit} rows of one table
 * ({@code toolgate_call}, {@code toolgate_execution}) that a query picks in order, safe for any number
 * of concurrent callers on every instance (the interrupt sweep, the call purges, the run purge): each
 * caller changes the rows it picked
 * and locked, skipping rows another caller holds ({@code FOR UPDATE SKIP LOCKED}), and the change
 * repeats the pick's condition, so a row that stopped qualifying while it was being picked (its
 * outcome committed, an operator resolved it) is left alone. Every writer that can make a row stop
 * qualifying updates that row, which is what both databases re-check.
 *
 * <ul>
 *   <li><b>PostgreSQL</b>: one statement,
 *       {@code WITH picked AS MATERIALIZED (SELECT id ... ORDER BY ... LIMIT :limit FOR UPDATE SKIP LOCKED)
 *       UPDATE ... WHERE id IN (SELECT id FROM picked) AND <condition> RETURNING ...}. A row that a
 *       concurrent transaction changed before the pick could lock it is re-checked against the pick's
 *       condition on its newest version. {@code MATERIALIZED} runs the pick exactly once: the plain
 *       form {@code UPDATE ... WHERE id IN (SELECT id ... LIMIT :limit FOR UPDATE SKIP LOCKED)} is
 *       planned on PostgreSQL 15 as a nested-loop semi join that re-runs the subquery for every outer
 *       row, and as each re-run skips the rows the statement already changed, it changed all five
 *       overdue rows for a limit of two (measured).</li>
 *   <li><b>H2</b>: the pick ({@code FOR UPDATE SKIP LOCKED}) and then the change of the picked ids,
 *       {@code ... WHERE id IN (:k0, ...) AND <condition>}, as two statements of one transaction. H2
 *       re-evaluates an {@code IN (subquery)} for every row it changes, after its own changes, so the
 *       one-statement form changed fewer rows than the limit (measured: one of fifty for a limit of
 *       two). The second statement sees everything committed before it, and the rows are locked.</li>
 * </ul>
 */
final class PickedRows {

    private final Db db;
    private final String oneStatement;
    private final String pick;
    private final String change;
    private final String condition;
    private final String returning;

    /**
     * @param table     the table (its key column is {@code id})
     * @param condition what a row must satisfy, in SQL over the table's columns (unqualified, or
     *                  qualified with the table's name in a correlated subquery)
     * @param order     the pick's {@code ORDER BY} list
     * @param change    {@code UPDATE <table> SET ...} or {@code DELETE FROM <table>}
     * @param returning the columns to return for each changed row, or null for a count
     */
    PickedRows(Db db, String table, String condition, String order, String change, String returning) {
        this.db = db;
        this.pick = "SELECT id FROM " + table + " WHERE " + condition + " ORDER BY " + order
                + " LIMIT :limit FOR UPDATE SKIP LOCKED";
        this.change = change;
        this.condition = condition;
        this.returning = returning;
        this.oneStatement = db.dialect() == Dialect.POSTGRESQL
                ? "WITH picked AS MATERIALIZED (" + pick + ") " + change + " WHERE id IN (SELECT id FROM picked) AND " + condition
                        + (returning == null ? "" : " RETURNING " + returning)
                : null;
    }

    /** Changes the picked rows; returns them as they are now. */
    <T> List<T> changeReturning(int limit, Instant before, RowMapper<T> mapper) {
        if (oneStatement != null) {
            return db.withHandle(h -> bind(h.createQuery(oneStatement), limit, before).map(mapper).list());
        }
        return db.inTransaction(h -> {
            List<String> ids = picked(h, limit, before);
            return ids.isEmpty() ? List.<T>of()
                    : bindIds(h.createQuery(db.dialect().returning(changeOf(ids), returning)), ids, limit, before).map(mapper).list();
        });
    }

    /** Changes the picked rows; returns how many. */
    int change(int limit, Instant before) {
        if (oneStatement != null) {
            return db.withHandle(h -> bind(h.createUpdate(oneStatement), limit, before).execute());
        }
        return db.inTransaction(h -> {
            List<String> ids = picked(h, limit, before);
            return ids.isEmpty() ? 0 : bindIds(h.createUpdate(changeOf(ids)), ids, limit, before).execute();
        });
    }

    private List<String> picked(Handle h, int limit, Instant before) {
        return bind(h.createQuery(pick), limit, before).mapTo(String.class).list();
    }

    private String changeOf(List<String> ids) {
        String in = IntStream.range(0, ids.size()).mapToObj(i -> ":k" + i).collect(Collectors.joining(", "));
        return change + " WHERE id IN (" + in + ") AND " + condition;
    }

    private <S extends SqlStatement<S>> S bindIds(S statement, List<String> ids, int limit, Instant before) {
        for (int i = 0; i < ids.size(); i++) {
            statement.bind("k" + i, ids.get(i));
        }
        return bind(statement, limit, before);
    }

    private <S extends SqlStatement<S>> S bind(S statement, int limit, Instant before) {
        return statement.bind("limit", limit).bind("before", Db.timestamp(before)).bind("now", db.now());
    }
}
