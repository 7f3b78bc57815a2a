package dev.toolgate.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import java.time.Clock;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Turns a {@link ToolCallContext} into a span following the OpenTelemetry GenAI conventions for tool
 * execution, back-dated by the duration Toolgate measured and parented to the span current on the
 * calling thread. A decision on a proposal made in this process links to the proposal's span; both
 * carry the call id as {@code gen_ai.tool.call.id} wherever they ran.
 */
final class SpanHandler implements ObservationHandler<ToolCallContext> {

    /** Proposal spans remembered for links, newest kept. */
    static final int MAX_LINKS = 10_000;

    private final Tracer tracer;
    private final Clock clock;
    private final Map<String, TraceContext> proposals = Collections.synchronizedMap(
            new LinkedHashMap<>(256, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, TraceContext> eldest) {
                    return size() > MAX_LINKS;
                }
            });

    SpanHandler(Tracer tracer, Clock clock) {
        this.tracer = tracer;
        this.clock = clock;
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof ToolCallContext;
    }

    @Override
    public void onStop(ToolCallContext c) {
        Instant end = clock.instant();
        long endMicros = TimeUnit.SECONDS.toMicros(end.getEpochSecond()) + end.getNano() / 1_000;
        long startMicros = endMicros - TimeUnit.NANOSECONDS.toMicros(c.duration().toNanos());
        Span.Builder builder = tracer.spanBuilder()
                .name("execute_tool " + c.toolName())
                .tag("gen_ai.operation.name", "execute_tool")
                .tag("gen_ai.tool.name", c.toolName())
                .tag("toolgate.effect", c.effect().wireName())
                .tag("toolgate.mode", ToolCallContext.modeTag(c.mode()))
                .tag("toolgate.mode.source", ToolCallContext.sourceTag(c.modeSource()))
                .tag("toolgate.status", c.status())
                .tag("toolgate.transport", c.transport());
        switch (c.status()) {
            case "failed", "interrupted", ToolCallContext.OVER_BUDGET -> builder.tag("error.type", c.status());
            default -> {
            }
        }
        Span parent = tracer.currentSpan();
        if (parent != null) {
            builder.setParent(parent.context());
        } else {
            builder.setNoParent();
        }
        String callId = c.callId();
        if (callId != null) {
            builder.tag("gen_ai.tool.call.id", callId);
            TraceContext proposal = "proposed".equals(c.status()) ? null : proposals.remove(callId);
            if (proposal != null) {
                builder.addLink(new Link(proposal));
            }
        }
        Span span = builder.startTimestamp(startMicros, TimeUnit.MICROSECONDS).start();
        span.end(endMicros, TimeUnit.MICROSECONDS);
        if (callId != null && "proposed".equals(c.status())) {
            proposals.put(callId, span.context());
        }
    }
}
