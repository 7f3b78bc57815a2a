package dev.toolgate.micrometer;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.call.CallContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Metrics, traces and structured logs of governed calls, on Micrometer's Observation API. One line
 * installs it on a builder:
 *
 * <pre>{@code
 * ToolgateObservability obs = ToolgateObservability.install(builder, observationRegistry, meterRegistry, tracer);
 * Toolgate toolgate = obs.bind(builder.build());   // the pending and paused gauges read through it
 * }</pre>
 *
 * <p>Every call outcome (and every budget refusal) is recorded on Toolgate's meters (with {@code meters},
 * directly: see below), becomes one observation named {@value #OBSERVATION} with the low-cardinality key
 * values {@value #TAG_TOOL}, {@value #TAG_EFFECT}, {@value #TAG_MODE}, {@value #TAG_MODE_SOURCE},
 * {@value #TAG_STATUS} and {@value #TAG_TRANSPORT}, the call id as the high-cardinality
 * {@code gen_ai.tool.call.id}, and the contextual name {@code execute_tool <tool>}; and one SLF4J event on
 * the logger {@code dev.toolgate.calls}. Toolgate reports an outcome after it happened, so the
 * observation carries the measured duration in its {@link ToolCallContext}: the span handler this class
 * registers with {@code tracer} uses it to back-date GenAI spans. A generic handler of the same registry
 * sees a zero-length observation. Principal ids, sessions, arguments and results are never tags or span
 * attributes.
 *
 * <p>The listener runs on the call path. Toolgate's meters are therefore recorded directly, not through
 * an observation handler, and the observation is built only when the observation registry has handlers
 * (a tracer's, or the host's own); a registry without any ({@code ObservationRegistry.create()} with no
 * tracer, or {@code ObservationRegistry.NOOP}) costs nothing. Each distinct set of tag values gets its
 * meters and key values built once.
 */
public final class ToolgateObservability {

    /** The observation of one call outcome. */
    public static final String OBSERVATION = "toolgate.call.outcome";
    /** Counter: governed call outcomes, by every tag. */
    public static final String CALLS = "toolgate.calls";
    /** Timer (percentile histogram): the time the gate spent on an outcome, by every tag. */
    public static final String CALL_DURATION = "toolgate.call.duration";
    /** Timer (percentile histogram): proposal to decision, by tool, effect, status, transport. */
    public static final String APPROVAL_LATENCY = "toolgate.approval.latency";
    /** Counter: calls, applies and approvals the budget refused, by tool, effect, transport. */
    public static final String BUDGET_REFUSALS = "toolgate.budget.refusals";
    /** Counter: claimed calls marked interrupted (in doubt), by tool and effect. */
    public static final String INTERRUPTED = "toolgate.calls.interrupted";
    /** Counter: proposals that expired undecided, by tool and effect. */
    public static final String EXPIRED = "toolgate.proposals.expired";
    /** Gauge: proposals pending now, all tenants (cached). */
    public static final String PENDING_PROPOSALS = "toolgate.proposals.pending";
    /** Gauge: durable runs paused on a step awaiting consent, all tenants (cached). */
    public static final String PAUSED_RUNS = "toolgate.runs.paused";

    /** Gauge: tools whose schema drifted since their review, as one context sees them (cached; see {@link #bind(Toolgate, CallContext)}). */
    public static final String DRIFTED_TOOLS = "toolgate.tools.drifted";

    /**
     * Counter: source tools whose schema changed between two listings of their source, by tool and
     * source (once per change, on each instance that lists the source).
     */
    public static final String TOOL_DRIFTS = "toolgate.tools.drift";

    /** Tag: the qualified tool name. */
    public static final String TAG_TOOL = "tool";
    /** Timer of tool source listings, tagged by source and outcome. */
    public static final String SOURCE_LIST_DURATION = "toolgate.source.list.duration";
    /** Counter of tool source listings that failed or timed out, tagged by source. */
    public static final String SOURCE_LIST_FAILURES = "toolgate.source.list.failures";
    /** Tag: the tool source id, such as {@code mcp:github} (configured by the host: few values). */
    public static final String TAG_SOURCE = "source";
    /** Tag: a listing's outcome, {@code available} or {@code unavailable}. */
    public static final String TAG_OUTCOME = "outcome";
    /** Tag: {@code read}, {@code mutate} or {@code destructive}. */
    public static final String TAG_EFFECT = "effect";
    /** Tag: the resolved policy mode. */
    public static final String TAG_MODE = "mode";
    /** Tag: where the mode came from. */
    public static final String TAG_MODE_SOURCE = "mode.source";
    /** Tag: the outcome ({@code executed}, {@code proposed}, {@code applied} ... or {@code over_budget}). */
    public static final String TAG_STATUS = "status";
    /** Tag: how the call arrived ({@code mcp}, {@code chat}, {@code java} ...). */
    public static final String TAG_TRANSPORT = "transport";

    /** How long the gauges keep a count before reading the store again. */
    public static final Duration GAUGE_CACHE = Duration.ofSeconds(5);

    private final MeterRegistry meters;
    private final Clock clock;

    private ToolgateObservability(MeterRegistry meters, Clock clock) {
        this.meters = meters;
        this.clock = clock;
    }

    /**
     * Installs the observation of every outcome on {@code builder}; the registry's own handlers decide
     * what becomes of it. Use an overload to get Toolgate's meters and spans.
     */
    public static ToolgateObservability install(ToolgateBuilder builder, ObservationRegistry registry) {
        return install(builder, registry, null, null, Clock.systemUTC());
    }

    /** Installs the observation, and Toolgate's meters on {@code meters}. */
    public static ToolgateObservability install(ToolgateBuilder builder, ObservationRegistry registry, MeterRegistry meters) {
        return install(builder, registry, meters, null, Clock.systemUTC());
    }

    /**
     * Installs the observation, Toolgate's meters on {@code meters} (null: none) and GenAI spans through
     * {@code tracer} (null: none; any Micrometer Tracing bridge, e.g. OpenTelemetry's).
     */
    public static ToolgateObservability install(ToolgateBuilder builder, ObservationRegistry registry, MeterRegistry meters,
                                                Tracer tracer) {
        return install(builder, registry, meters, tracer, Clock.systemUTC());
    }

    /** As {@link #install(ToolgateBuilder, ObservationRegistry, MeterRegistry, Tracer)}, with a clock for latencies and caches. */
    public static ToolgateObservability install(ToolgateBuilder builder, ObservationRegistry registry, MeterRegistry meters,
                                                Tracer tracer, Clock clock) {
        Objects.requireNonNull(builder, "builder");
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(clock, "clock");
        if (tracer != null) {
            registry.observationConfig().observationHandler(new SpanHandler(tracer, clock));
        }
        builder.listener(new ObservingListener(registry, meters == null ? null : new CallMeters(meters, clock), meters));
        return new ToolgateObservability(meters, clock);
    }

    /**
     * Registers the gauges {@value #PENDING_PROPOSALS} and {@value #PAUSED_RUNS} for {@code toolgate}
     * (when a meter registry was given), read through it at most every {@link #GAUGE_CACHE}.
     *
     * @return {@code toolgate}
     */
    public Toolgate bind(Toolgate toolgate) {
        Objects.requireNonNull(toolgate, "toolgate");
        if (meters != null) {
            new StoreGauges(toolgate, null, clock, GAUGE_CACHE).register(meters);
        }
        return toolgate;
    }

    /**
     * As {@link #bind(Toolgate)}, plus the gauge {@value #DRIFTED_TOOLS}: the tools whose schema changed
     * since operators reviewed it, in the tenant (and automation) of {@code driftView}, among the tools its
     * principal may see ({@link Toolgate#catalog}). Pass a context whose principal sees every tool, for
     * example an operator's. Drift is per tenant; the gauge watches one.
     *
     * @return {@code toolgate}
     */
    public Toolgate bind(Toolgate toolgate, CallContext driftView) {
        Objects.requireNonNull(toolgate, "toolgate");
        Objects.requireNonNull(driftView, "driftView");
        if (meters != null) {
            new StoreGauges(toolgate, driftView, clock, GAUGE_CACHE).register(meters);
        }
        return toolgate;
    }
}
