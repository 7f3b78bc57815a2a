package dev.toolgate.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.toolgate.testkit.MutableClock;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;

/** Durable executions on H2: a fresh in-memory database per test. */
class H2ExecutionsTest extends ExecutionsContract {

    private HikariDataSource pool;

    @Override
    JdbcStore openStore(MutableClock clock) {
        pool = TestStores.pool(TestStores.h2MemoryUrl("executions"), 8);
        return JdbcStore.builder().dataSource(pool).clock(clock).build();
    }

    @Override
    DataSource dataSource() {
        return pool;
    }

    @AfterEach
    void closePool() {
        pool.close();
    }
}
