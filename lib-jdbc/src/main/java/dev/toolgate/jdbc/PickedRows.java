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
 *   <li><b>H2</b>: three statements of one transaction. The candidates, at most {@code :limit} ids in
 *       order with no lock ({@code SELECT id ... ORDER BY ... LIMIT :limit}, on a named index where one
 *       is given); then the lock of those of them that still qualify ({@code SELECT id ... WHERE
 *       (<condition>) IS TRUE AND id IN (:k0, ...) FOR UPDATE SKIP LOCKED}); then the change of the locked
 *       ids, {@code ... WHERE id IN (:k0, ...) AND (<condition>) IS TRUE}. The condition is wrapped in
 *       {@code IS TRUE} (the same rows) so that H2 reads these statements on the primary key: on the
 *       bare condition it chose the index on {@code status} and read the whole backlog. H2 2.x locks every row that satisfies a
 *       {@code FOR UPDATE} query's {@code WHERE} before it applies the {@code LIMIT} (measured on 60,000
 *       calls: a purge batch of 100 locked 27,000 rows, wrote them all to its transaction and took
 *       0.6-1.6 s instead of 1-2 ms), so the lock is taken on the candidates' ids only. H2 also picked the
 *       index on {@code status} for a purge's candidates and sorted every finished call, with or without
 *       table statistics (300 ms); the index on {@code completed_at}, named, stops after the batch.
 *       Two concurrent callers can pick the same candidates; the second skips the rows the first
 *       holds and changes fewer than the limit, and picks the rest in its next batch. H2 re-evaluates
 *       an {@code IN (subquery)} for every row it changes, after its own changes, so the one-statement
 *       form changed fewer rows than the limit (measured: one of fifty for a limit of two). The later
 *       statements see everything committed before them, and the changed rows are locked.</li>
 * </ul>
 */
final class PickedRows {

    private final Db db;
    private final String oneStatement;
    private final String pick;
    /** H2: the lock of the candidates that still qualify, followed by their ids; null on PostgreSQL. */
    private final String lockPicked;
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
     * @param h2Index   on H2, the index whose order is {@code order} and that the candidates are read
     *                  from, or null to let H2 choose
     */
    PickedRows(Db db, String table, String condition, String order, String change, String returning, String h2Index) {
        this.db = db;
        this.change = change;
        this.condition = condition;
        this.returning = returning;
        if (db.dialect() == Dialect.POSTGRESQL) {
            this.pick = "SELECT id FROM " + table + " WHERE " + condition + " ORDER BY " + order
                    + " LIMIT :limit FOR UPDATE SKIP LOCKED";
            this.lockPicked = null;
            this.oneStatement = "WITH picked AS MATERIALIZED (" + pick + ") " + change
                    + " WHERE id IN (SELECT id FROM picked) AND " + condition + (returning == null ? "" : " RETURNING " + returning);
        } else {
            this.pick = "SELECT id FROM " + table + (h2Index == null ? "" : " USE INDEX (" + h2Index + ")")
                    + " WHERE " + condition + " ORDER BY " + order + " LIMIT :limit";
            this.lockPicked = "SELECT id FROM " + table + " WHERE (" + condition + ") IS TRUE AND id IN (";
            this.oneStatement = null;
        }
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

    /** The pick: on H2 the candidates' query (no lock), on PostgreSQL the locking one. For tests. */
    String pickSql() {
        return pick;
    }

    /** H2: the candidates, then those of them this transaction could lock and that still qualify. */
    private List<String> picked(Handle h, int limit, Instant before) {
        List<String> candidates = bind(h.createQuery(pick), limit, before).mapTo(String.class).list();
        if (candidates.isEmpty()) {
            return candidates;
        }
        return bindIds(h.createQuery(lockSql(candidates.size())), candidates, limit, before).mapTo(String.class).list();
    }

    /** The change of {@code n} locked ids ({@code :k0} ...) that still qualify. For tests. */
    String changeSql(int n) {
        return change + " WHERE id IN (" + keys(n) + ") AND (" + condition + ") IS TRUE";
    }

    /** H2: the lock of {@code n} candidates ({@code :k0} ...) that still qualify, skipping rows others hold. */
    String lockSql(int n) {
        return lockPicked + keys(n) + ") FOR UPDATE SKIP LOCKED";
    }

    /** {@code :k0, :k1, ...}: {@code n} named parameters, bound by {@link #bindIds}. */
    static String keys(int n) {
        return IntStream.range(0, n).mapToObj(i -> ":k" + i).collect(Collectors.joining(", "));
    }

    private String changeOf(List<String> ids) {
        return changeSql(ids.size());
    }

    private <S extends SqlStatement<S>> S bindIds(S statement, List<String> ids, int limit, Instant before) {
        return bind(bindKeys(statement, ids), limit, before);
    }

    /** Binds {@code keys} to the parameters {@link #keys} named, in order. */
    static <S extends SqlStatement<S>> S bindKeys(S statement, List<String> keys) {
        for (int i = 0; i < keys.size(); i++) {
            statement.bind("k" + i, keys.get(i));
        }
        return statement;
    }

    private <S extends SqlStatement<S>> S bind(S statement, int limit, Instant before) {
        return statement.bind("limit", limit).bind("before", Db.timestamp(before)).bind("now", db.now());
    }
}
