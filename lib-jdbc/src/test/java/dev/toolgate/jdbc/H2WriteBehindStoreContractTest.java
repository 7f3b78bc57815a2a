package dev.toolgate.jdbc;

import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.testkit.StoreContractTest;
import java.time.Clock;
import java.time.Duration;

/** The storage SPI contract on H2 with read rows written behind (the opt-in): it must hold unchanged. */
class H2WriteBehindStoreContractTest extends StoreContractTest {

    @Override
    protected ToolgateStore openStore(Clock clock) {
        return JdbcStore.builder().url(TestStores.h2MemoryUrl("store-contract-behind")).poolSize(8).clock(clock)
                .writeBehind(Duration.ofMillis(50)).build();
    }
}
