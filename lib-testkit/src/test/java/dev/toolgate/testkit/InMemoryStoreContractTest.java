package dev.toolgate.testkit;

import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.ToolgateStore;
import java.time.Clock;

/** The store contract on the in-memory store. */
class InMemoryStoreContractTest extends StoreContractTest {

    @Override
    protected ToolgateStore openStore(Clock clock) {
        return new InMemoryStore(clock);
    }
}
