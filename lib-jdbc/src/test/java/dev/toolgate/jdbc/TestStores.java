package dev.toolgate.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** Databases and pools for tests. */
final class TestStores {

    private static final AtomicInteger H2_DATABASES = new AtomicInteger();

    private TestStores() {
    }

    /** A private in-memory H2 database, dropped when its last connection closes. */
    static String h2MemoryUrl(String name) {
        return "jdbc:h2:mem:" + name + "-" + H2_DATABASES.incrementAndGet();
    }

    /** A plain pool the tests own (as a host would), on {@code url}. */
    static HikariDataSource pool(String url, int size) {
        return new HikariDataSource(config(url, size));
    }

    /** The configuration of {@link #pool}, to change before creating the pool. */
    static HikariConfig config(String url, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(10_000);
        return config;
    }

    /** A pool on a fresh PostgreSQL schema named after {@code name}, with Toolgate's tables installed. */
    static HikariDataSource postgresWithSchema(String name) {
        HikariDataSource pool = pool(PostgresDatabase.freshSchema(name), 12);
        JdbcStore.builder().dataSource(pool).build().close(); // installs the schema
        return pool;
    }

    /** An empty store on {@code pool} that takes its time from {@code clock} (PostgreSQL). */
    static JdbcStore emptyStore(HikariDataSource pool, java.time.Clock clock) {
        truncate(pool);
        return JdbcStore.builder().dataSource(pool).schema(SchemaMode.VALIDATE).clock(clock).build();
    }

    /** Empties every Toolgate table (PostgreSQL). */
    static void truncate(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            truncate(c);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Empties every Toolgate table of the database at {@code url} (PostgreSQL). */
    static void truncate(String url) {
        try (Connection c = DriverManager.getConnection(url)) {
            truncate(c);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void truncate(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("TRUNCATE toolgate_call, toolgate_execution, toolgate_budget, toolgate_budget_admission, toolgate_session,"
                    + " toolgate_mode_override, toolgate_tool_review");
        }
    }
}
