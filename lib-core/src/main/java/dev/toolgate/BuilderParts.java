package dev.toolgate;

import dev.toolgate.audit.SourceListing;
import dev.toolgate.audit.ToolDrift;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.execution.Program;
import dev.toolgate.execution.ProgramProvider;
import dev.toolgate.json.Redactor;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.StoreProvider;
import dev.toolgate.spi.StoreSettings;
import dev.toolgate.spi.ToolgateStore;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link ToolgateBuilder#build} assembles besides the gate itself: the store when none was given,
 * the programs of durable executions from every provider, and the listeners told of sources' listings
 * and drifts (a listener that fails is logged, the others are still told).
 */
final class BuilderParts {

    private static final Logger LOG = LoggerFactory.getLogger(Toolgate.class);
    /** Throwables from host code are logged redacted (a secret in a message or a URL stays out of the log). */
    private static final Redactor LOGGED = Redactor.defaults();

    private BuilderParts() {
    }

    /** Every program of {@code found}'s providers, then {@code programs}; a name registered twice throws. */
    static Map<String, Program> programs(List<ProgramProvider> found, Map<String, Program> programs) {
        Map<String, Program> all = new LinkedHashMap<>();
        for (ProgramProvider provider : found) {
            provider.programs().forEach((name, program) -> {
                if (all.putIfAbsent(name, program) != null) {
                    throw new IllegalStateException("program " + name + " is registered twice (again by "
                            + provider.getClass().getName() + ")");
                }
            });
        }
        programs.forEach((name, program) -> {
            if (all.putIfAbsent(name, program) != null) {
                throw new IllegalStateException("program " + name + " is registered twice");
            }
        });
        return all;
    }

    /** Tells every listener a source listed its tools. */
    static void listed(List<ToolCallListener> listeners, SourceListing listing) {
        for (ToolCallListener listener : listeners) {
            try {
                listener.onSourceListed(listing);
            } catch (RuntimeException e) {
                LOG.warn("Listener {} failed on the listing of {}", listener, listing.sourceId(), LOGGED.redactThrowable(e));
            }
        }
    }

    /** Tells every listener a tool drifted. */
    static void drifted(List<ToolCallListener> listeners, ToolDrift drift) {
        for (ToolCallListener listener : listeners) {
            try {
                listener.onToolDrifted(drift);
            } catch (RuntimeException e) {
                LOG.warn("Listener {} failed on the drift of {}", listener, drift.toolName(), LOGGED.redactThrowable(e));
            }
        }
    }

    /** The store when none was given: the one store provider discovered with the highest priority, else in memory. */
    static ToolgateStore openStore(Discovery discovery, boolean discoverComponents, Map<String, String> storeSettings) {
        if (!discoverComponents) {
            return InMemoryStore.builder().settings(StoreSettings.of(storeSettings)).build();
        }
        List<StoreProvider> found = discovery.all(StoreProvider.class);
        if (found.isEmpty()) {
            InMemoryStore store = InMemoryStore.builder().settings(StoreSettings.of(storeSettings)).build();
            LOG.info("No store provider on the classpath: using an in-memory store (single process only, for trying"
                    + " things out; keeps the newest {} finished calls)", store.maxFinishedCalls());
            return store;
        }
        found.sort(Comparator.comparingInt(StoreProvider::priority).reversed());
        if (found.size() > 1 && found.get(0).priority() == found.get(1).priority()) {
            throw new IllegalStateException("Store providers " + found.get(0).name() + " and " + found.get(1).name()
                    + " have the same priority; pass a store to Toolgate.builder() explicitly");
        }
        return found.get(0).open(StoreSettings.of(storeSettings));
    }
}
