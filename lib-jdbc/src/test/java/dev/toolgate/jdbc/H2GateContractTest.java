package dev.toolgate.jdbc;

import dev.toolgate.testkit.GateContractTest;
import dev.toolgate.spi.ToolgateStore;
import java.time.Clock;

/** The engine contract on H2: a fresh in-memory database per test, with the store's own pool. */
class H2GateContractTest extends GateContractTest {

    @Override
    protected ToolgateStore openStore(Clock clock) {
        return JdbcStore.builder().url(TestStores.h2MemoryUrl("gate-contract")).poolSize(8).clock(clock).build();
    }
}
