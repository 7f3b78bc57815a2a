package dev.toolgate.micrometer;

import dev.toolgate.audit.BudgetRefusal;
import dev.toolgate.audit.SourceListing;
import dev.toolgate.audit.ToolCallEvent;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.audit.ToolDrift;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The listener {@link ToolgateObservability} installs: one observation and one structured log event
 * per outcome. Tags are the low-cardinality facts only; the call id is a high-cardinality key (spans,
 * never meters); principal, arguments and results never leave the event.
 */
final class ObservingListener implements ToolCallListener {

    /** The logger of the per-outcome log events. */
    static final Logger CALLS = LoggerFactory.getLogger("dev.toolgate.calls");

    private final ObservationRegistry registry;
    /** Where source listings are timed; null: nowhere. */
    private final MeterRegistry meters;

    ObservingListener(ObservationRegistry registry, MeterRegistry meters) {
        this.registry = registry;
        this.meters = meters;
    }

    @Override
    public void onSourceListed(SourceListing listing) {
        if (meters == null) {
            return;
        }
        String outcome = listing.available() ? "available" : "unavailable";
        Timer.builder(ToolgateObservability.SOURCE_LIST_DURATION).description("Tool source listings")
                .tag(ToolgateObservability.TAG_SOURCE, listing.sourceId()).tag(ToolgateObservability.TAG_OUTCOME, outcome)
                .register(meters).record(listing.duration());
        if (!listing.available()) {
            Counter.builder(ToolgateObservability.SOURCE_LIST_FAILURES).description("Tool source listings that failed")
                    .tag(ToolgateObservability.TAG_SOURCE, listing.sourceId()).register(meters).increment();
        }
    }

    @Override
    public void onToolDrifted(ToolDrift drift) {
        if (meters == null) {
            return;
        }
        Counter.builder(ToolgateObservability.TOOL_DRIFTS).description("Source tools whose schema changed between listings")
                .tag(ToolgateObservability.TAG_TOOL, drift.toolName()).tag(ToolgateObservability.TAG_SOURCE, drift.sourceId())
                .register(meters).increment();
    }

    @Override
    public void onCall(ToolCallEvent event) {
        observe(ToolCallContext.of(event));
    }

    @Override
    public void onBudgetRefused(BudgetRefusal refusal) {
        observe(ToolCallContext.of(refusal));
    }

    private void observe(ToolCallContext context) {
        if (!registry.isNoop()) {
            Observation observation = Observation.createNotStarted(ToolgateObservability.OBSERVATION, () -> context, registry)
                    .contextualName("execute_tool " + context.toolName())
                    .lowCardinalityKeyValues(KeyValues.of(
                            ToolgateObservability.TAG_TOOL, context.toolName(),
                            ToolgateObservability.TAG_EFFECT, context.effect().wireName(),
                            ToolgateObservability.TAG_MODE, ToolCallContext.modeTag(context.mode()),
                            ToolgateObservability.TAG_MODE_SOURCE, ToolCallContext.sourceTag(context.modeSource()),
                            ToolgateObservability.TAG_STATUS, context.status(),
                            ToolgateObservability.TAG_TRANSPORT, context.transport()));
            if (context.callId() != null) {
                observation.highCardinalityKeyValue("gen_ai.tool.call.id", context.callId());
            }
            observation.start();
            observation.stop();
        }
        log(context);
    }

    /** One event per outcome with key-value fields; never arguments, results, tokens or the principal. */
    private static void log(ToolCallContext c) {
        Level level = switch (c.status()) {
            case "failed", "interrupted", ToolCallContext.OVER_BUDGET -> Level.WARN;
            case "executed" -> Level.DEBUG; // the bulk of calls (reads): on when the logger is set to DEBUG
            default -> Level.INFO;
        };
        if (!CALLS.isEnabledForLevel(level)) {
            return;
        }
        org.slf4j.spi.LoggingEventBuilder event = CALLS.atLevel(level);
        if (c.callId() != null) {
            event = event.addKeyValue("call", c.callId());
        }
        if (c.sessionId() != null) {
            event = event.addKeyValue("session", c.sessionId());
        }
        if (c.tenantId() != null) {
            event = event.addKeyValue("tenant", c.tenantId());
        }
        event.addKeyValue("tool", c.toolName())
                .addKeyValue("effect", c.effect().wireName())
                .addKeyValue("mode", ToolCallContext.modeTag(c.mode()))
                .addKeyValue("mode_source", ToolCallContext.sourceTag(c.modeSource()))
                .addKeyValue("status", c.status())
                .addKeyValue("transport", c.transport())
                .addKeyValue("duration_ms", c.duration().toMillis())
                .log("tool call {} {}", c.toolName(), c.status());
    }
}
