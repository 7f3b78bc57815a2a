package dev.toolgate.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.toolgate.testkit.MutableClock;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Durable executions on PostgreSQL: one pool for the class in its own schema, emptied per test. */
class PostgresExecutionsTest extends ExecutionsContract {

    private static HikariDataSource pool;

    @BeforeAll
    static void openPool() {
        pool = TestStores.postgresWithSchema("executions");
    }

    @AfterAll
    static void closePool() {
        if (pool != null) {
            pool.close();
        }
    }

    @Override
    JdbcStore openStore(MutableClock clock) {
        return TestStores.emptyStore(pool, clock);
    }

    @Override
    DataSource dataSource() {
        return pool;
    }
}
