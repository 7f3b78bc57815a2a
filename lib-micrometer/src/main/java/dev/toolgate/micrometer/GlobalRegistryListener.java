package dev.toolgate.micrometer;

import dev.toolgate.audit.BudgetRefusal;
import dev.toolgate.audit.SourceListing;
import dev.toolgate.audit.ToolCallEvent;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.audit.ToolDrift;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.observation.ObservationRegistry;
import java.time.Clock;

/**
 * Toolgate's meters and structured logs on Micrometer's global registry ({@link Metrics#globalRegistry}),
 * for a host that registers listeners through {@link java.util.ServiceLoader} rather than code. List it in
 * the host's own {@code META-INF/services/dev.toolgate.audit.ToolCallListener}:
 *
 * <pre>
 * dev.toolgate.micrometer.GlobalRegistryListener
 * </pre>
 *
 * <p>The gate builder discovers it unless {@code discoverComponents(false)}. It records the same
 * counters and timers as {@link ToolgateObservability#install(dev.toolgate.ToolgateBuilder,
 * ObservationRegistry, io.micrometer.core.instrument.MeterRegistry)}, into whatever registries the host
 * added to the global one, but no spans and no gauges (those need a tracer and
 * {@link ToolgateObservability#bind}). Use one of the two ways, not both: each would count every call.
 * This module does not list it itself, so adding the jar changes nothing until the host does.
 */
public final class GlobalRegistryListener implements ToolCallListener {

    private final ObservingListener delegate;

    /** Records into {@link Metrics#globalRegistry}. */
    public GlobalRegistryListener() {
        this.delegate = new ObservingListener(ObservationRegistry.NOOP, new CallMeters(Metrics.globalRegistry,
                Clock.systemUTC()), Metrics.globalRegistry);
    }

    @Override
    public void onCall(ToolCallEvent event) {
        delegate.onCall(event);
    }

    @Override
    public void onBudgetRefused(BudgetRefusal refusal) {
        delegate.onBudgetRefused(refusal);
    }

    @Override
    public void onSourceListed(SourceListing listing) {
        delegate.onSourceListed(listing);
    }

    @Override
    public void onToolDrifted(ToolDrift drift) {
        delegate.onToolDrifted(drift);
    }
}
