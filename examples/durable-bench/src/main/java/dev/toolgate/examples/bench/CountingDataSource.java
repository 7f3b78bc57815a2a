package dev.toolgate.examples.bench;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * A data source that counts the transactions its connections commit, as the server counts them in
 * {@code pg_stat_database.xact_commit}: each statement run on an autocommit connection is one, and so is
 * each {@code commit()} (or switch back to autocommit) that ends a transaction in which a statement ran.
 * Counted on the client, so the other users of a shared database add nothing to it (their commits are
 * in the server's count of the database). Read-only transactions count too, as they do on the server;
 * {@link Counts#writes} counts apart those in which a statement could write (any but a plain
 * {@code SELECT}, {@code SHOW} or {@code SET}, and a {@code SELECT} that locks rows or calls a function
 * that may write is counted as writing too), less the updates that matched no row.
 */
final class CountingDataSource {

    private CountingDataSource() {
    }

    /** Transactions committed, and of those, the ones in which a statement could write. */
    record Counts(LongAdder commits, LongAdder writes) {
        Counts() {
            this(new LongAdder(), new LongAdder());
        }
    }

    /** {@code target}, with every transaction its connections commit added to {@code counts}. */
    static DataSource wrap(DataSource target, Counts counts) {
        return proxy(DataSource.class, target, (proxy, method, args) -> {
            Object result = call(target, method, args);
            return result instanceof Connection c ? connection(c, counts) : result;
        });
    }

    /** While true, every statement's SQL is printed as it runs ({@code -Dbench.count-trace=true}, one run per side). */
    static volatile boolean trace;

    /** Whether {@code sql} may write: all but plain reads (a guess from its text, which is all the client has). */
    static boolean writes(String sql) {
        String s = sql.strip().toUpperCase(java.util.Locale.ROOT);
        boolean read = s.startsWith("SELECT") || s.startsWith("SHOW") || s.startsWith("SET ") || s.isEmpty();
        return !read || s.contains(" FOR UPDATE") || s.contains(" FOR SHARE") || s.contains("FOR NO KEY UPDATE")
                || s.contains("TOOLGATE_ADMIT") || s.contains("NEXTVAL");
    }

    private static Connection connection(Connection target, Counts counts) throws Exception {
        boolean[] autoCommit = {target.getAutoCommit()};
        boolean[] open = {false, false}; // a statement ran since the transaction began; one that may write
        java.util.function.Consumer<Boolean> ran = write -> {
            if (autoCommit[0]) {
                counts.commits().increment();
                if (write) {
                    counts.writes().increment();
                }
            } else {
                open[0] = true;
                open[1] |= write;
            }
        };
        return proxy(Connection.class, target, (proxy, method, args) -> {
            String name = method.getName();
            if (name.equals("commit") || (name.equals("setAutoCommit") && (Boolean) args[0] && !autoCommit[0])) {
                if (open[0]) {
                    counts.commits().increment();
                }
                if (open[1]) {
                    counts.writes().increment();
                }
                open[0] = open[1] = false;
            } else if (name.equals("rollback") && (args == null || args.length == 0)) {
                open[0] = open[1] = false;
            }
            Object result = call(target, method, args);
            if (name.equals("setAutoCommit")) {
                autoCommit[0] = (Boolean) args[0];
            }
            boolean write = args != null && args.length > 0 && args[0] instanceof String sql && writes(sql);
            if (trace && args != null && args.length > 0 && args[0] instanceof String sql) {
                System.out.println("  [" + (autoCommit[0] ? "autocommit" : "in transaction") + (write ? ", writes" : "")
                        + "] " + sql.replaceAll("\\s+", " "));
            } else if (trace && (name.equals("commit") || name.equals("setAutoCommit"))) {
                System.out.println("  " + name + (args == null ? "" : " " + args[0]));
            }
            String sql = args != null && args.length > 0 && args[0] instanceof String q ? q : null;
            if (result instanceof CallableStatement s) {
                return statement(CallableStatement.class, s, ran, write, sql);
            }
            if (result instanceof PreparedStatement s) {
                return statement(PreparedStatement.class, s, ran, write, sql);
            }
            if (result instanceof Statement s) {
                return statement(Statement.class, s, ran, false, null);
            }
            return result;
        });
    }

    /** While true, each statement's round trips are timed by its SQL ({@link #timings}). */
    static volatile boolean timing;
    private static final java.util.Map<String, long[]> TIMINGS = new java.util.concurrent.ConcurrentHashMap<>();

    /** Per statement (its SQL's first 90 characters): executions and nanoseconds, since the last call. */
    static java.util.Map<String, long[]> timings() {
        java.util.Map<String, long[]> copy = new java.util.TreeMap<>(TIMINGS);
        TIMINGS.clear();
        return copy;
    }

    /** {@code prepared}: whether the statement's SQL, given when it was prepared, may write. */
    private static <S extends Statement> S statement(Class<S> type, S target, java.util.function.Consumer<Boolean> ran,
                                                     boolean prepared, String sql) {
        return proxy(type, target, (proxy, method, args) -> {
            long start = timing ? System.nanoTime() : 0;
            Object result = call(target, method, args);
            if (start != 0 && method.getName().startsWith("execute")) {
                String text = sql != null ? sql : args != null && args.length > 0 && args[0] instanceof String q ? q : "?";
                text = text.strip().replaceAll("\\s+", " ");
                long[] t = TIMINGS.computeIfAbsent(text.substring(0, Math.min(90, text.length())), k -> new long[2]);
                synchronized (t) {
                    t[0]++;
                    t[1] += System.nanoTime() - start;
                }
            }
            if (method.getName().startsWith("execute")) {
                boolean write = prepared || (args != null && args.length > 0 && args[0] instanceof String given && writes(given));
                // an update that matched no row wrote nothing (its commit has nothing to flush)
                ran.accept(write && !(result instanceof Number n && n.longValue() == 0));
            }
            return result;
        });
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static <T> T proxy(Class<T> type, T target, InvocationHandler handler) {
        return type.cast(Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> switch (method.getName()) {
                    case "unwrap" -> ((java.sql.Wrapper) target).unwrap((Class<?>) args[0]);
                    case "isWrapperFor" -> ((java.sql.Wrapper) target).isWrapperFor((Class<?>) args[0]);
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "toString" -> "counting " + target;
                    default -> handler.invoke(proxy, method, args);
                }));
    }
}
