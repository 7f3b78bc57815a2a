package dev.toolgate.jdbc;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

/**
 * Statements by row shape ({@link CallRows#shapeOf}), made on first use, at most {@code max} of them:
 * past that, {@link #get} returns null and the caller uses its statement of every column.
 */
final class ShapeCache {

    private final int max;
    private final LongFunction<String> sql;
    private final ConcurrentHashMap<Long, PlainSql> statements = new ConcurrentHashMap<>();

    /** @param sql the named SQL of a shape's statement */
    ShapeCache(int max, LongFunction<String> sql) {
        this.max = max;
        this.sql = sql;
    }

    /** The statement of {@code shape}, or null if it is not kept and the cache is full. */
    PlainSql get(long shape) {
        PlainSql statement = statements.get(shape);
        if (statement != null) {
            return statement;
        }
        if (statements.size() >= max) {
            return null;
        }
        return statements.computeIfAbsent(shape, key -> PlainSql.of(sql.apply(key)));
    }

    /** How many shapes are kept. */
    int size() {
        return statements.size();
    }
}
