package dev.toolgate.jdbc;

import dev.toolgate.spi.ToolgateStore;
import java.time.Clock;
import java.time.Duration;

/**
 * The whole engine contract on PostgreSQL with read rows written behind (the opt-in): it must hold
 * unchanged. The class's pool and schema as {@link PostgresGateContractTest}'s, emptied before each test.
 */
class PostgresWriteBehindGateContractTest extends PostgresGateContractTest {

    @Override
    protected ToolgateStore openStore(Clock clock) {
        TestStores.truncate(pool);
        return JdbcStore.builder().dataSource(pool).schema(SchemaMode.VALIDATE).clock(clock)
                .writeBehind(Duration.ofMillis(50)).build();
    }
}
