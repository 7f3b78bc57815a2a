package dev.toolgate.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.toolgate.testkit.GateContractTest;
import dev.toolgate.spi.ToolgateStore;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The engine contract on PostgreSQL. One pool for the class (passed to each store as the host's data
 * source, so the store creates none), its own schema, emptied before each test.
 */
class PostgresGateContractTest extends GateContractTest {

    static HikariDataSource pool;

    @BeforeAll
    static void openPool() {
        pool = TestStores.postgresWithSchema("gate_contract");
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
