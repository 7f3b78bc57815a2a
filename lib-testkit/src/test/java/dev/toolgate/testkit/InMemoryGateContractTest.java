package dev.toolgate.testkit;

import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.ToolgateStore;
import java.time.Clock;

/** The engine contract on the in-memory store. */
class InMemoryGateContractTest extends GateContractTest {

    @Override
    protected ToolgateStore openStore(Clock clock) {
        return new InMemoryStore(clock);
    }
}
