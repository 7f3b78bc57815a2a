/**
 * How storage plugs in: {@link dev.toolgate.spi.CallStore} (audit trail, token store and budget
 * ledger) and {@link dev.toolgate.spi.PolicyStore}, bundled as a {@link dev.toolgate.spi.ToolgateStore}
 * and found through {@link dev.toolgate.spi.StoreProvider} with {@link java.util.ServiceLoader}.
 * {@link dev.toolgate.spi.InMemoryStore} is the single-process implementation core ships.
 */
package dev.toolgate.spi;
