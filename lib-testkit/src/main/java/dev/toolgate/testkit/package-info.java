/**
 * The contract suites every Toolgate store (and any replacement engine) must pass, for authors of
 * storage backends: extend {@link dev.toolgate.testkit.StoreContractTest} for the storage SPI's
 * semantics operation by operation, and {@link dev.toolgate.testkit.GateContractTest} for the engine's
 * behaviour through {@link dev.toolgate.Toolgate} on your store. Both open a fresh store per test on a
 * {@link dev.toolgate.testkit.MutableClock}; the suites use the {@link dev.toolgate.testkit.Notes} test
 * domain, whose counters show exactly how often each tool's code ran, and
 * {@link dev.toolgate.testkit.Together} to release real threads at once.
 *
 * <p>Add {@code dev.toolgate:toolgate-testkit} in test scope; it brings JUnit Jupiter's API and AssertJ.
 */
package dev.toolgate.testkit;
