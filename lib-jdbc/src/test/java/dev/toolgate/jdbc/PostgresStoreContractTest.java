package dev.toolgate.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.toolgate.testkit.StoreContractTest;
import dev.toolgate.spi.ToolgateStore;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The storage SPI contract on PostgreSQL: one pool for the class in its own schema, emptied per test. */
class PostgresStoreContractTest extends StoreContractTest {

    private static HikariDataSource pool;

    @BeforeAll
    static void openPool() {
        pool = TestStores.postgresWithSchema("store_contract");
    }

    @AfterAll
    static void closePool() {
        if (pool != null) {
            pool.close();
        }
    }

    @Override
    protected ToolgateStore openStore(Clock clock) {
        return TestStores.emptyStore(pool, clock);
    }
}
