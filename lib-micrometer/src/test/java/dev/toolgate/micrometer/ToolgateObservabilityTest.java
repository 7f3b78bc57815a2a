package dev.toolgate.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.access.Principal;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ToolCallEvent;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Denied;
import dev.toolgate.call.Executed;
import dev.toolgate.call.GateSettings;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolValidationException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every outcome path through a real gate (in-memory store, real tools) produces the documented meters
 * and a GenAI span, with no principal, session, tenant or argument value in any tag or attribute.
 */
class ToolgateObservabilityTest {

    /** Distinctive values that must never reach a tag or a span attribute. */
    private static final String USER_ID = "principal-zq7x41";
    private static final String OPERATOR_ID = "operator-kk93p2";
    private static final String SESSION = "session-mm5518";
    private static final String TENANT = "tenant-acme7731";
    private static final String ARG = "argvalue-secret-81f3";
    private static final List<String> FORBIDDEN = List.of(USER_ID, OPERATOR_ID, SESSION, TENANT, ARG, "argvalue");

    record Note(String text) {
    }

    private final TestClock clock = new TestClock(Instant.parse("2026-11-27T05:00:00Z"));
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
    private final OtelTracer tracer = new OtelTracer(provider.get("test"), new OtelCurrentTraceContext(), event -> { });
    private final List<Toolgate> gates = new ArrayList<>();
    private InMemoryStore store;
    private Toolgate gate;

    private final Principal user = Principal.user(USER_ID);
    private final Principal operator = Principal.user(OPERATOR_ID, GateSettings.DEFAULT_APPROVER_RULE);
    private CallContext userCtx;
    private CallContext operatorCtx;

    @BeforeEach
    void setUp() {
        store = new InMemoryStore(clock);
        gate = gate(Toolgate.builder().store(store));
        userCtx = CallContext.of(user).withTenant(TENANT).withSession(SESSION).withTransport("mcp");
        operatorCtx = CallContext.of(operator).withTenant(TENANT).withSession(SESSION).withTransport("console");
    }

    @AfterEach
    void tearDown() {
        gates.forEach(Toolgate::close);
        provider.close();
    }

    private Toolgate gate(ToolgateBuilder builder) {
        builder.discoverComponents(false).discoverTools(false).sweepInterval(Duration.ZERO)
                .tools("notes", tools());
        ToolgateObservability observability = ToolgateObservability.install(builder, ObservationRegistry.create(), meters,
                tracer, clock);
        Toolgate built = observability.bind(builder.build());
        gates.add(built);
        return built;
    }

    private static Tool<?, ?>[] tools() {
        Tool<Note, ?> read = Tool.builder("read", Note.class).description("Reads a note").effect(Effect.READ)
                .execute((in, ctx) -> {
                    if (in.text().startsWith("boom")) {
                        throw new IllegalStateException("the backend is down for " + in.text());
                    }
                    return "note " + in.text();
                }).build();
        Tool<Note, ?> write = Tool.builder("write", Note.class).description("Writes a note").effect(Effect.MUTATE)
                .dryRun((in, ctx) -> {
                    if (in.text().startsWith("bad")) {
                        throw new ToolValidationException("text", "not a note: " + in.text());
                    }
                    return Preview.of("write a note");
                })
                .execute((in, ctx) -> {
                    if (in.text().startsWith("explode")) {
                        throw new IllegalStateException("write failed for " + in.text());
                    }
                    return "written";
                }).build();
        return new Tool<?, ?>[] {read, write};
    }

    private static String args(String text) {
        return "{\"text\":\"" + text + "\"}";
    }

    private double calls(String tool, String status) {
        return meters.find(ToolgateObservability.CALLS).tag("tool", tool).tag("status", status).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private List<SpanData> spans(String status) {
        return spans.getFinishedSpanItems().stream()
                .filter(s -> status.equals(s.getAttributes().get(AttributeKey.stringKey("toolgate.status")))).toList();
    }

    private static String attr(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    @Test
    void executedReadIsCountedTimedAndTracedAsExecuteTool() {
        Executed executed = (Executed) gate.call(userCtx, "notes.read", args(ARG));

        assertThat(calls("notes.read", "executed")).isEqualTo(1);
        Counter counter = meters.find(ToolgateObservability.CALLS).tag("status", "executed").counter();
        assertThat(counter.getId().getTags()).containsExactlyInAnyOrder(Tag.of("tool", "notes.read"), Tag.of("effect", "read"),
                Tag.of("mode", "allow"), Tag.of("mode.source", "inferred_default"), Tag.of("status", "executed"),
                Tag.of("transport", "mcp"));
        Timer timer = meters.find(ToolgateObservability.CALL_DURATION).tag("status", "executed").timer();
        assertThat(timer.count()).isEqualTo(1);

        SpanData span = spans("executed").get(0);
        assertThat(span.getName()).isEqualTo("execute_tool notes.read");
        assertThat(attr(span, "gen_ai.operation.name")).isEqualTo("execute_tool");
        assertThat(attr(span, "gen_ai.tool.name")).isEqualTo("notes.read");
        assertThat(attr(span, "gen_ai.tool.call.id")).isEqualTo(executed.callId());
        assertThat(attr(span, "toolgate.effect")).isEqualTo("read");
        assertThat(attr(span, "toolgate.mode")).isEqualTo("allow");
        assertThat(attr(span, "toolgate.mode.source")).isEqualTo("inferred_default");
        assertThat(attr(span, "toolgate.transport")).isEqualTo("mcp");
        assertThat(span.getEndEpochNanos()).isGreaterThanOrEqualTo(span.getStartEpochNanos());
        assertNothingSensitive();
    }

    @Test
    void aSpanIsAChildOfTheCallersSpanAndBackDatedByTheMeasuredDuration() {
        io.micrometer.tracing.Span parent = tracer.nextSpan().name("agent turn").start();
        try (io.micrometer.tracing.Tracer.SpanInScope ignored = tracer.withSpan(parent)) {
            gate.call(userCtx, "notes.read", args(ARG));
        } finally {
            parent.end();
        }
        SpanData span = spans("executed").get(0);
        assertThat(span.getTraceId()).isEqualTo(parent.context().traceId());
        assertThat(span.getParentSpanId()).isEqualTo(parent.context().spanId());
        long recorded = (long) meters.find(ToolgateObservability.CALL_DURATION).tag("status", "executed").timer()
                .totalTime(TimeUnit.MICROSECONDS);
        long spanMicros = (span.getEndEpochNanos() - span.getStartEpochNanos()) / 1_000;
        assertThat(spanMicros).as("the span lasts what the gate measured").isBetween(recorded - 1, recorded + 1);
        assertThat(span.getEndEpochNanos()).as("ends at the clock's now")
                .isEqualTo(TimeUnit.SECONDS.toNanos(clock.instant().getEpochSecond()) + clock.instant().getNano());
    }

    @Test
    void proposedThenAppliedByTokenIsLinkedThroughTheCallIdAndMeasuresApprovalLatency() {
        Proposal proposal = (Proposal) gate.call(userCtx, "notes.write", args(ARG));
        assertThat(calls("notes.write", "proposed")).isEqualTo(1);
        clock.advance(Duration.ofSeconds(42));
        gate.apply(userCtx, proposal.token());

        assertThat(calls("notes.write", "applied")).isEqualTo(1);
        Timer latency = meters.find(ToolgateObservability.APPROVAL_LATENCY).tag("status", "applied").timer();
        assertThat(latency.count()).isEqualTo(1);
        assertThat(latency.totalTime(TimeUnit.SECONDS)).isEqualTo(42.0);
        assertThat(latency.getId().getTag("tool")).isEqualTo("notes.write");

        SpanData proposed = spans("proposed").get(0);
        SpanData applied = spans("applied").get(0);
        assertThat(attr(proposed, "gen_ai.tool.call.id")).isEqualTo(proposal.callId());
        assertThat(attr(applied, "gen_ai.tool.call.id")).isEqualTo(proposal.callId());
        assertThat(applied.getLinks()).hasSize(1);
        assertThat(applied.getLinks().get(0).getSpanContext().getSpanId()).isEqualTo(proposed.getSpanId());
        assertThat(attr(proposed, "toolgate.mode")).isEqualTo("require_approval");
        assertNothingSensitive();
    }

    @Test
    void anOperatorsApprovalAndRejectionMeasureTheWaitButAPolicysAutomaticApplyDoesNot() {
        Proposal approved = (Proposal) gate.call(userCtx, "notes.write", args(ARG + "-1"));
        Proposal rejected = (Proposal) gate.call(userCtx, "notes.write", args(ARG + "-2"));
        clock.advance(Duration.ofSeconds(10));
        gate.approve(operatorCtx, approved.callId(), Approval.once());
        clock.advance(Duration.ofSeconds(5));
        gate.reject(operatorCtx, rejected.callId(), "no");

        assertThat(meters.find(ToolgateObservability.APPROVAL_LATENCY).tag("status", "applied").timer()
                .totalTime(TimeUnit.SECONDS)).isEqualTo(10.0);
        assertThat(meters.find(ToolgateObservability.APPROVAL_LATENCY).tag("status", "rejected").timer()
                .totalTime(TimeUnit.SECONDS)).isEqualTo(15.0);
        assertThat(calls("notes.write", "rejected")).isEqualTo(1);
        assertThat(attr(spans("applied").get(0), "toolgate.transport")).as("the call's transport, not the decider's")
                .isEqualTo("mcp");

        gate.setMode(operatorCtx, OverrideScope.TENANT, "notes.write", Mode.ALLOW);
        Timer before = meters.find(ToolgateObservability.APPROVAL_LATENCY).tag("status", "applied").timer();
        long applies = before.count();
        gate.call(userCtx, "notes.write", args(ARG + "-3"));
        assertThat(calls("notes.write", "applied")).isEqualTo(2);
        assertThat(before.count()).as("nobody waited for the policy's apply").isEqualTo(applies);
        assertThat(meters.find(ToolgateObservability.CALLS).tag("status", "applied").tag("mode", "allow")
                .tag("mode.source", "tenant_default").counter().count()).isEqualTo(1);
        assertNothingSensitive();
    }

    @Test
    void deniedByPolicy() {
        gate.setMode(operatorCtx, OverrideScope.TENANT, "notes.write", Mode.DENY);
        Denied denied = (Denied) gate.call(userCtx, "notes.write", args(ARG));
        assertThat(calls("notes.write", "denied")).isEqualTo(1);
        SpanData span = spans("denied").get(0);
        assertThat(attr(span, "gen_ai.tool.call.id")).isEqualTo(denied.callId());
        assertThat(attr(span, "toolgate.mode")).isEqualTo("deny");
        assertThat(attr(span, "toolgate.mode.source")).isEqualTo("tenant_default");
        assertNothingSensitive();
    }

    @Test
    void invalidInTheDryRun() {
        assertThatThrownBy(() -> gate.call(userCtx, "notes.write", args("bad-" + ARG)))
                .isInstanceOf(ToolValidationException.class);
        assertThat(calls("notes.write", "invalid")).isEqualTo(1);
        assertThat(spans("invalid")).hasSize(1);
        assertNothingSensitive();
    }

    @Test
    void failedReadAndFailedApplyAreErrors() {
        assertThatThrownBy(() -> gate.call(userCtx, "notes.read", args("boom-" + ARG)))
                .isInstanceOf(ToolExecutionException.class);
        Proposal proposal = (Proposal) gate.call(userCtx, "notes.write", args("explode-" + ARG));
        clock.advance(Duration.ofSeconds(3));
        assertThatThrownBy(() -> gate.apply(userCtx, proposal.token())).isInstanceOf(ToolExecutionException.class);

        assertThat(calls("notes.read", "failed")).isEqualTo(1);
        assertThat(calls("notes.write", "failed")).isEqualTo(1);
        assertThat(meters.find(ToolgateObservability.APPROVAL_LATENCY).tag("status", "failed").timer()
                .totalTime(TimeUnit.SECONDS)).as("the decision was made; the tool then failed").isEqualTo(3.0);
        assertThat(spans("failed")).hasSize(2).allSatisfy(s -> assertThat(attr(s, "error.type")).isEqualTo("failed"));
        assertNothingSensitive();
    }

    @Test
    void overBudgetCallsAndAppliesAreRefusedCountedAndTracedWithoutACallId() {
        Toolgate limited = gate(Toolgate.builder().store(new InMemoryStore(clock))
                .budget(ToolBudget.perPrincipal(1, Duration.ofHours(1))));
        Proposal proposal = (Proposal) limited.call(userCtx, "notes.write", args(ARG));
        assertThatThrownBy(() -> limited.call(userCtx, "notes.read", args(ARG))).isInstanceOf(BudgetExceededException.class);
        assertThatThrownBy(() -> limited.apply(userCtx, proposal.token())).isInstanceOf(BudgetExceededException.class);

        Counter refusals = meters.find(ToolgateObservability.BUDGET_REFUSALS).tag("tool", "notes.read").counter();
        assertThat(refusals.count()).isEqualTo(1);
        assertThat(refusals.getId().getTag("transport")).isEqualTo("mcp");
        assertThat(meters.find(ToolgateObservability.BUDGET_REFUSALS).tag("tool", "notes.write").counter().count())
                .as("the apply is charged to the applier").isEqualTo(1);
        assertThat(calls("notes.read", ToolCallContext.OVER_BUDGET)).isEqualTo(1);
        List<SpanData> refused = spans(ToolCallContext.OVER_BUDGET);
        assertThat(refused).hasSize(2).allSatisfy(s -> {
            assertThat(attr(s, "gen_ai.tool.call.id")).as("nothing was recorded").isNull();
            assertThat(attr(s, "error.type")).isEqualTo(ToolCallContext.OVER_BUDGET);
        });
        assertNothingSensitive();
    }

    @Test
    void anOverdueClaimIsInterrupted() {
        Proposal proposal = (Proposal) gate.call(userCtx, "notes.write", args(ARG));
        store.calls().claim(proposal.callId(), new CallStore.Claim(PrincipalRef.of(user), null, null, Duration.ofSeconds(10)),
                null);
        clock.advance(Duration.ofSeconds(11));
        assertThat(gate.sweep().interrupted()).isEqualTo(1);

        assertThat(calls("notes.write", "interrupted")).isEqualTo(1);
        assertThat(meters.find(ToolgateObservability.INTERRUPTED).tag("tool", "notes.write").counter().count()).isEqualTo(1);
        SpanData span = spans("interrupted").get(0);
        assertThat(attr(span, "error.type")).isEqualTo("interrupted");
        assertThat(attr(span, "gen_ai.tool.call.id")).isEqualTo(proposal.callId());
        assertNothingSensitive();
    }

    @Test
    void aProposalTheSweepExpiresIsCountedWithItsWait() {
        gate.call(userCtx, "notes.write", args(ARG + "-late"));
        clock.advance(Duration.ofMinutes(30));
        assertThat(gate.sweep().expired()).isEqualTo(1);

        assertThat(calls("notes.write", "expired")).isEqualTo(1);
        assertThat(meters.find(ToolgateObservability.EXPIRED).tag("tool", "notes.write").counter().count()).isEqualTo(1);
        assertThat(meters.find(ToolgateObservability.APPROVAL_LATENCY).tag("status", "expired").timer()
                .totalTime(TimeUnit.MINUTES)).isEqualTo(30.0);
        assertThat(spans("expired")).hasSize(1);
        assertThat(gate.sweep().expired()).isZero();
        assertThat(calls("notes.write", "expired")).as("once").isEqualTo(1);
        assertNothingSensitive();
    }

    /** A tool source in memory that can go down. */
    static final class OpsSource implements dev.toolgate.source.ToolSource {
        volatile boolean down;
        /** Adds a property to the schema: a drift. */
        volatile boolean widened;

        @Override
        public String id() {
            return "mcp:ops";
        }

        @Override
        public List<dev.toolgate.source.SourceTool> listTools(dev.toolgate.source.SourceContext context) {
            if (down) {
                throw new IllegalStateException("connection refused by " + ARG);
            }
            return List.of(dev.toolgate.source.SourceTool.of("restart", "Restart a service.", Effect.MUTATE,
                    (tools.jackson.databind.node.ObjectNode) dev.toolgate.json.Json.parse(
                            widened ? "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},"
                                    + "\"force\":{\"type\":\"boolean\"}}}"
                                    : "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")));
        }

        @Override
        public tools.jackson.databind.JsonNode callTool(String tool, tools.jackson.databind.JsonNode arguments,
                                                        dev.toolgate.source.SourceContext context) {
            return dev.toolgate.json.Json.object();
        }

        @Override
        public void close() {
        }
    }

    @Test
    void sourceListingsAreTimedByOutcomeAndFailuresCounted() {
        OpsSource ops = new OpsSource();
        Toolgate withSource = gate(Toolgate.builder().store(new InMemoryStore(clock)).source(ops));
        assertThat(meters.find(ToolgateObservability.SOURCE_LIST_DURATION).tag("source", "mcp:ops")
                .tag("outcome", "available").timer().count()).as("the listing at start").isEqualTo(1);
        assertThat(meters.find(ToolgateObservability.SOURCE_LIST_FAILURES).counter()).isNull();

        ops.down = true;
        withSource.refreshSources();
        assertThat(meters.find(ToolgateObservability.SOURCE_LIST_DURATION).tag("outcome", "unavailable").timer().count())
                .isEqualTo(1);
        assertThat(meters.find(ToolgateObservability.SOURCE_LIST_FAILURES).tag("source", "mcp:ops").counter().count())
                .isEqualTo(1);
        assertNothingSensitive();
    }

    @Test
    void aSourceToolWhoseSchemaChangesIsCountedOncePerChange() {
        OpsSource ops = new OpsSource();
        Toolgate withSource = gate(Toolgate.builder().store(new InMemoryStore(clock)).source(ops));
        withSource.refreshSources();
        assertThat(meters.find(ToolgateObservability.TOOL_DRIFTS).counter()).as("no change, no drift").isNull();

        ops.widened = true;
        withSource.refreshSources();
        withSource.refreshSources();
        CallContext acme = CallContext.of(operator).withTenant(TENANT).withSession(SESSION);
        withSource.call(acme, "mcp:ops.restart", "{\"text\":\"" + ARG + "\",\"force\":true}");
        withSource.call(acme, "mcp:ops.restart", "{\"text\":\"" + ARG + "\",\"force\":false}");
        assertThat(meters.find(ToolgateObservability.TOOL_DRIFTS).tag("tool", "mcp:ops.restart").tag("source", "mcp:ops")
                .counter().count()).as("one change: counted once, not per listing or call").isEqualTo(1);

        ops.widened = false;
        withSource.refreshSources();
        assertThat(meters.find(ToolgateObservability.TOOL_DRIFTS).counter().count()).isEqualTo(2);
        assertThat(meters.find(ToolgateObservability.TOOL_DRIFTS).counter().getId().getTags())
                .extracting(io.micrometer.core.instrument.Tag::getKey).containsExactlyInAnyOrder("tool", "source");
        assertNothingSensitive();
    }

    @Test
    void pendingAndPausedGaugesReadTheStoreAtMostEveryFiveSeconds() {
        assertThat(meters.find(ToolgateObservability.PENDING_PROPOSALS).gauge().value()).isZero();
        gate.call(userCtx, "notes.write", args(ARG + "-1"));
        gate.call(userCtx, "notes.write", args(ARG + "-2"));
        assertThat(meters.find(ToolgateObservability.PENDING_PROPOSALS).gauge().value()).as("cached").isZero();
        clock.advance(ToolgateObservability.GAUGE_CACHE);
        System.gc(); // the registry holds the gauges' state strongly: nothing else refers to it
        assertThat(meters.find(ToolgateObservability.PENDING_PROPOSALS).gauge().value()).isEqualTo(2);
        assertThat(meters.find(ToolgateObservability.PAUSED_RUNS).gauge().value()).isZero();
        clock.advance(gate.settings().interactiveTtl().plus(ToolgateObservability.GAUGE_CACHE));
        assertThat(meters.find(ToolgateObservability.PENDING_PROPOSALS).gauge().value()).as("expired ones do not count")
                .isZero();
    }

    record Lookup(String query) {
    }

    record LookupV2(String query, Integer limit) {
    }

    @Test
    void theDriftGaugeCountsToolsWhoseSchemaChangedSinceTheirReview() {
        SimpleMeterRegistry driftMeters = new SimpleMeterRegistry();
        ToolgateBuilder builder = Toolgate.builder().store(new InMemoryStore(clock)).discoverComponents(false)
                .discoverTools(false).sweepInterval(Duration.ZERO)
                .tools("remote", Tool.builder("lookup", Lookup.class).description("Looks up").effect(Effect.READ)
                        .dynamic(true).execute((in, ctx) -> "found").build());
        ToolgateObservability observability = ToolgateObservability.install(builder, ObservationRegistry.create(),
                driftMeters, null, clock);
        try (Toolgate watched = observability.bind(builder.build(), operatorCtx)) {
            watched.call(userCtx, "remote.lookup", "{\"query\":\"" + ARG + "\"}"); // the first call records the review
            assertThat(driftMeters.find(ToolgateObservability.DRIFTED_TOOLS).gauge().value()).isZero();

            watched.registry().unregisterPlugin("remote");
            watched.registry().register(dev.toolgate.tool.ToolProvider.of("remote", Tool.builder("lookup", LookupV2.class)
                    .description("Looks up").effect(Effect.READ).dynamic(true).execute((in, ctx) -> "found").build()));
            assertThat(driftMeters.find(ToolgateObservability.DRIFTED_TOOLS).gauge().value()).as("cached").isZero();
            clock.advance(ToolgateObservability.GAUGE_CACHE);
            assertThat(driftMeters.find(ToolgateObservability.DRIFTED_TOOLS).gauge().value()).isEqualTo(1);

            watched.confirmSchema(operatorCtx, "remote.lookup");
            clock.advance(ToolgateObservability.GAUGE_CACHE);
            assertThat(driftMeters.find(ToolgateObservability.DRIFTED_TOOLS).gauge().value()).isZero();
        }
    }

    @Test
    void withoutTracerOrMetersTheObservationStillReachesTheRegistrysHandlers() {
        ObservationRegistry registry = ObservationRegistry.create();
        List<String> seen = new ArrayList<>();
        registry.observationConfig().observationHandler(new io.micrometer.observation.ObservationHandler<>() {
            @Override
            public boolean supportsContext(io.micrometer.observation.Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(io.micrometer.observation.Observation.Context context) {
                seen.add(context.getName() + " " + context.getContextualName() + " "
                        + context.getLowCardinalityKeyValue("status").getValue());
            }
        });
        ToolgateBuilder builder = Toolgate.builder().discoverComponents(false).discoverTools(false)
                .sweepInterval(Duration.ZERO).tools("notes", tools());
        ToolgateObservability.install(builder, registry);
        try (Toolgate plain = builder.build()) {
            plain.call(userCtx, "notes.read", args(ARG));
        }
        assertThat(seen).containsExactly("toolgate.call.outcome execute_tool notes.read executed");
        assertThat(meters.find(ToolgateObservability.CALLS).meters()).as("no meter handler installed").isEmpty();
    }

    @Test
    void prometheusScrapesTheDocumentedNamesWithHistogramBuckets() {
        io.micrometer.prometheusmetrics.PrometheusMeterRegistry prometheus = new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
        ToolgateBuilder builder = Toolgate.builder().discoverComponents(false).discoverTools(false)
                .sweepInterval(Duration.ZERO).tools("notes", tools());
        ToolgateObservability observability = ToolgateObservability.install(builder, ObservationRegistry.create(), prometheus);
        try (Toolgate scraped = observability.bind(builder.build())) {
            scraped.call(userCtx, "notes.read", args(ARG));
            scraped.call(userCtx, "notes.write", args(ARG));
            String text = prometheus.scrape();
            assertThat(text).contains("toolgate_calls_total{effect=\"read\",mode=\"allow\",mode_source=\"inferred_default\","
                    + "status=\"executed\",tool=\"notes.read\",transport=\"mcp\"} 1")
                    .contains("toolgate_call_duration_seconds_bucket{")
                    .contains("toolgate_call_duration_seconds_count{")
                    .contains("toolgate_proposals_pending 1")
                    .contains("toolgate_runs_paused 0");
            for (String forbidden : FORBIDDEN) {
                assertThat(text).doesNotContain(forbidden);
            }
        }
    }

    @Test
    void eachOutcomeIsOneStructuredLogEventWithoutArguments() throws Exception {
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        Proposal proposal;
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            proposal = (Proposal) gate.call(userCtx, "notes.write", args(ARG));
            assertThatThrownBy(() -> gate.apply(userCtx, "not-a-token-" + ARG)).isInstanceOf(RuntimeException.class);
        } finally {
            System.setErr(err);
        }
        List<String> lines = captured.toString(java.nio.charset.StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains("dev.toolgate.calls")).toList();
        assertThat(lines).as("one event for the proposal; none for a refused token (no outcome)").singleElement()
                .satisfies(line -> assertThat(line).contains("call=" + proposal.callId()).contains("session=" + SESSION)
                        .contains("tenant=" + TENANT).contains("tool=notes.write").contains("mode=require_approval")
                        .contains("mode_source=inferred_default").contains("status=proposed").contains("duration_ms=")
                        .doesNotContain(ARG).doesNotContain(USER_ID).doesNotContain(proposal.token()));
    }

    /** No principal, session, tenant or argument value in any meter tag or span attribute. */
    private void assertNothingSensitive() {
        List<String> values = new ArrayList<>();
        for (Meter meter : meters.getMeters()) {
            values.add(meter.getId().getName());
            meter.getId().getTags().forEach(t -> {
                values.add(t.getKey());
                values.add(t.getValue());
            });
        }
        for (SpanData span : spans.getFinishedSpanItems()) {
            values.add(span.getName());
            span.getAttributes().forEach((k, v) -> {
                values.add(k.getKey());
                values.add(String.valueOf(v));
            });
        }
        assertThat(values).isNotEmpty();
        for (String value : values) {
            for (String forbidden : FORBIDDEN) {
                assertThat(value).as("a tag or attribute").doesNotContainIgnoringCase(forbidden);
            }
        }
    }
}
