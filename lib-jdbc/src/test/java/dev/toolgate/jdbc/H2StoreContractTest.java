package dev.toolgate.jdbc;

import dev.toolgate.testkit.StoreContractTest;
import dev.toolgate.spi.ToolgateStore;
import java.time.Clock;

/** The storage SPI contract on H2: a fresh in-memory database per test, with the store's own pool. */
class H2StoreContractTest extends StoreContractTest {

    @Override
    protected ToolgateStore openStore(Clock clock) {
        return JdbcStore.builder().url(TestStores.h2MemoryUrl("store-contract")).poolSize(8).clock(clock).build();
    }
}
