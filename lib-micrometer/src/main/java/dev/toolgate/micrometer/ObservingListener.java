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
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The listener {@link ToolgateObservability} installs: per outcome, Toolgate's meters, one observation
 * (when the observation registry has handlers: a tracer's, the host's) and one structured log event.
 * Tags are the low-cardinality facts only; the call id is a high-cardinality key (spans, never meters);
 * principal, arguments and results never leave the event.
 *
 * <p>It is on the call path, so it builds as little as it can: nothing when no one listens (a no-op
 * registry, no meters, the log level off); the tag values, key values and meters of each distinct
 * outcome once.
 */
final class ObservingListener implements ToolCallListener {

    /** The logger of the per-outcome log events. */
    static final Logger CALLS = LoggerFactory.getLogger("dev.toolgate.calls");
    private static final String CALL_ID = "gen_ai.tool.call.id";

    private final ObservationRegistry registry;
    /** Toolgate's meters of call outcomes; null: none. */
    private final CallMeters callMeters;
    /** Where source listings are timed and drift counted; null: nowhere. */
    private final MeterRegistry meters;

    ObservingListener(ObservationRegistry registry, CallMeters callMeters, MeterRegistry meters) {
        this.registry = registry;
        this.callMeters = callMeters;
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
    public void onCall(ToolCallEvent e) {
        String status = e.status().wireName();
        Level level = level(status);
        boolean observe = !registry.isNoop();
        boolean log = CALLS.isEnabledForLevel(level);
        if (callMeters == null && !observe && !log) {
            return; // no one listens: nothing is built
        }
        ToolCallContext.Facts facts = ToolCallContext.Facts.of(e.toolName(), e.effect(), e.mode(), e.modeSource(), status,
                e.transport());
        if (callMeters != null) {
            callMeters.record(facts, e.duration(), e.proposedAt());
        }
        if (observe) {
            observe(new ToolCallContext(e.callId(), e.effect(), e.mode(), e.modeSource(), e.duration(), e.proposedAt(),
                    e.tenantId(), e.sessionId(), facts));
        }
        if (log) {
            log(level, facts, e.callId(), e.sessionId(), e.tenantId(), e.duration());
        }
    }

    @Override
    public void onBudgetRefused(BudgetRefusal refusal) {
        ToolCallContext context = ToolCallContext.of(refusal);
        if (callMeters != null) {
            callMeters.record(context.facts(), context.duration(), null);
        }
        if (!registry.isNoop()) {
            observe(context);
        }
        Level level = level(context.status());
        if (CALLS.isEnabledForLevel(level)) {
            log(level, context.facts(), null, refusal.sessionId(), refusal.tenantId(), refusal.duration());
        }
    }

    /** The key values and name of an observation, built once per distinct set of facts. */
    private record Prepared(KeyValues keyValues, String contextualName) {
    }

    private final ConcurrentMap<ToolCallContext.Facts, Prepared> prepared = new ConcurrentHashMap<>();

    private static Prepared prepare(ToolCallContext.Facts f) {
        return new Prepared(KeyValues.of(
                ToolgateObservability.TAG_TOOL, f.tool(),
                ToolgateObservability.TAG_EFFECT, f.effect(),
                ToolgateObservability.TAG_MODE, f.mode(),
                ToolgateObservability.TAG_MODE_SOURCE, f.modeSource(),
                ToolgateObservability.TAG_STATUS, f.status(),
                ToolgateObservability.TAG_TRANSPORT, f.transport()), "execute_tool " + f.tool());
    }

    private void observe(ToolCallContext context) {
        Prepared p = prepared.get(context.facts());
        if (p == null) {
            p = prepared.computeIfAbsent(context.facts(), ObservingListener::prepare);
        }
        Observation observation = Observation.createNotStarted(ToolgateObservability.OBSERVATION, () -> context, registry)
                .contextualName(p.contextualName())
                .lowCardinalityKeyValues(p.keyValues());
        if (context.callId() != null) {
            observation.highCardinalityKeyValue(CALL_ID, context.callId());
        }
        observation.start();
        observation.stop();
    }

    private static Level level(String status) {
        return switch (status) {
            case "failed", "interrupted", ToolCallContext.OVER_BUDGET -> Level.WARN;
            case "executed" -> Level.DEBUG; // the bulk of calls (reads): on when the logger is set to DEBUG
            default -> Level.INFO;
        };
    }

    /** One event per outcome with key-value fields; never arguments, results, tokens or the principal. */
    private static void log(Level level, ToolCallContext.Facts f, String callId, String sessionId, String tenantId,
                            Duration duration) {
        org.slf4j.spi.LoggingEventBuilder event = CALLS.atLevel(level);
        if (callId != null) {
            event = event.addKeyValue("call", callId);
        }
        if (sessionId != null) {
            event = event.addKeyValue("session", sessionId);
        }
        if (tenantId != null) {
            event = event.addKeyValue("tenant", tenantId);
        }
        event.addKeyValue("tool", f.tool())
                .addKeyValue("effect", f.effect())
                .addKeyValue("mode", f.mode())
                .addKeyValue("mode_source", f.modeSource())
                .addKeyValue("status", f.status())
                .addKeyValue("transport", f.transport())
                .addKeyValue("duration_ms", duration.toMillis())
                .log("tool call {} {}", f.tool(), f.status());
    }
}
