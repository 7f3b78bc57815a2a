package dev.toolgate.jdbc;

import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.testkit.GateContractTest;
import java.time.Clock;
import java.time.Duration;

/** The whole engine contract on H2 with read rows written behind (the opt-in): it must hold unchanged. */
class H2WriteBehindGateContractTest extends GateContractTest {

    @Override
    protected ToolgateStore openStore(Clock clock) {
        return JdbcStore.builder().url(TestStores.h2MemoryUrl("gate-contract-behind")).poolSize(8).clock(clock)
                .writeBehind(Duration.ofMillis(50)).build();
    }
}
