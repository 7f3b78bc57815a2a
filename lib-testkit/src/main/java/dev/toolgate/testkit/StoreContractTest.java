package dev.toolgate.testkit;

/**
 * The storage SPI's semantics, operation by operation, on one store implementation: every store
 * must pass it. Extend it and open a fresh, empty store that takes all its time from the clock.
 */
public abstract class StoreContractTest extends StorePolicyContract {
    // The tests are in its superclasses, one concept each: StoreCallContract, StoreBudgetContract,
    // StoreLifecycleContract, StoreRetentionContract, StoreExecutionContract, StoreQueryContract and
    // StorePolicyContract, all on the fixture of StoreContractSupport.
}
