package dev.toolgate.micrometer;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionQuery;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.call.CallContext;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pending proposals and paused runs of every tenant, read from the store through the
 * {@link Toolgate} facade at most once per cache period however often the gauges are scraped.
 * Counts stop at the queries' limit ({@value CallQuery#MAX_LIMIT}).
 */
final class StoreGauges {

    private static final Logger LOG = LoggerFactory.getLogger(StoreGauges.class);

    private final Toolgate toolgate;
    private final CallContext driftView;
    private final Clock clock;
    private final Duration cacheFor;
    private Instant readAt;
    private double pending = Double.NaN;
    private double paused = Double.NaN;
    private double drifted = Double.NaN;

    StoreGauges(Toolgate toolgate, CallContext driftView, Clock clock, Duration cacheFor) {
        this.toolgate = toolgate;
        this.driftView = driftView;
        this.clock = clock;
        this.cacheFor = cacheFor;
    }

    void register(MeterRegistry meters) {
        Gauge.builder(ToolgateObservability.PENDING_PROPOSALS, this, StoreGauges::pending)
                .description("Proposals waiting for a decision (cached)").strongReference(true).register(meters);
        Gauge.builder(ToolgateObservability.PAUSED_RUNS, this, StoreGauges::paused)
                .description("Durable runs paused on a step that needs consent (cached)").strongReference(true).register(meters);
        if (driftView != null) {
            Gauge.builder(ToolgateObservability.DRIFTED_TOOLS, this, StoreGauges::drifted)
                    .description("Tools whose schema changed since operators reviewed it (cached)").strongReference(true)
                    .register(meters);
        }
    }

    synchronized double drifted() {
        refresh();
        return drifted;
    }

    synchronized double pending() {
        refresh();
        return pending;
    }

    synchronized double paused() {
        refresh();
        return paused;
    }

    private void refresh() {
        Instant now = clock.instant();
        if (readAt != null && now.isBefore(readAt.plus(cacheFor))) {
            return;
        }
        readAt = now;
        try {
            pending = toolgate.findCalls(CallQuery.latest(CallQuery.MAX_LIMIT).status(CallStatus.PROPOSED)).stream()
                    .filter(r -> r.pendingAt(now)).count();
        } catch (RuntimeException e) {
            LOG.warn("Could not count pending proposals for the gauge {}", ToolgateObservability.PENDING_PROPOSALS, e);
            pending = Double.NaN;
        }
        if (driftView != null) {
            try {
                drifted = toolgate.catalog(driftView).stream().filter(e -> e.mode().drifted()).count();
            } catch (RuntimeException e) {
                LOG.warn("Could not count drifted tools for the gauge {}", ToolgateObservability.DRIFTED_TOOLS, e);
                drifted = Double.NaN;
            }
        }
        try {
            paused = toolgate.executions().executions(ExecutionQuery.latest(ExecutionQuery.MAX_LIMIT)
                    .status(ExecutionStatus.PAUSED)).size();
        } catch (UnsupportedOperationException e) {
            paused = 0;
        } catch (RuntimeException e) {
            LOG.warn("Could not count paused runs for the gauge {}", ToolgateObservability.PAUSED_RUNS, e);
            paused = Double.NaN;
        }
    }
}
