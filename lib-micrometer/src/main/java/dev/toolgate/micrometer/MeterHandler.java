package dev.toolgate.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Records Toolgate's meters from a {@link ToolCallContext}, with the duration Toolgate measured (the
 * observation itself is reported after the outcome, so its own elapsed time would be near zero).
 */
final class MeterHandler implements ObservationHandler<ToolCallContext> {

    private final MeterRegistry meters;
    private final Clock clock;

    MeterHandler(MeterRegistry meters, Clock clock) {
        this.meters = meters;
        this.clock = clock;
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof ToolCallContext;
    }

    /** The tags of one outcome's counter and duration timer. */
    private record Key(String tool, String effect, String mode, String source, String status, String transport) {
    }

    /** The meters of one {@link Key}, built once. */
    private record Outcome(Counter calls, Timer duration) {
    }

    private final ConcurrentMap<Key, Outcome> outcomes = new ConcurrentHashMap<>();

    @Override
    public void onStop(ToolCallContext c) {
        String effect = c.effect().wireName();
        Key key = new Key(c.toolName(), effect, ToolCallContext.modeTag(c.mode()), ToolCallContext.sourceTag(c.modeSource()),
                c.status(), c.transport());
        Outcome outcome = outcomes.computeIfAbsent(key, this::register);
        outcome.calls().increment();
        outcome.duration().record(c.duration());
        if (c.proposedAt() == null && !c.status().equals(ToolCallContext.OVER_BUDGET) && !c.status().equals("interrupted")
                && !c.status().equals("expired")) {
            return;
        }
        Tags tool = Tags.of(ToolgateObservability.TAG_TOOL, c.toolName(), ToolgateObservability.TAG_EFFECT, effect);
        if (c.proposedAt() != null) {
            Duration waited = Duration.between(c.proposedAt(), clock.instant());
            Timer.builder(ToolgateObservability.APPROVAL_LATENCY)
                    .description("Time from a proposal to its decision (apply, approval, rejection, edit)")
                    .tags(tool).tag(ToolgateObservability.TAG_STATUS, c.status())
                    .tag(ToolgateObservability.TAG_TRANSPORT, c.transport())
                    .publishPercentileHistogram().register(meters).record(waited.isNegative() ? Duration.ZERO : waited);
        }
        switch (c.status()) {
            case ToolCallContext.OVER_BUDGET -> Counter.builder(ToolgateObservability.BUDGET_REFUSALS)
                    .description("Calls, applies and approvals the budget refused").tags(tool)
                    .tag(ToolgateObservability.TAG_TRANSPORT, c.transport()).register(meters).increment();
            case "interrupted" -> Counter.builder(ToolgateObservability.INTERRUPTED)
                    .description("Claimed calls whose outcome never arrived (in doubt)").tags(tool)
                    .register(meters).increment();
            case "expired" -> Counter.builder(ToolgateObservability.EXPIRED)
                    .description("Proposals that expired before anyone decided").tags(tool)
                    .register(meters).increment();
            default -> {
            }
        }
    }

    private Outcome register(Key key) {
        Tags tags = Tags.of(ToolgateObservability.TAG_TOOL, key.tool(), ToolgateObservability.TAG_EFFECT, key.effect(),
                ToolgateObservability.TAG_MODE, key.mode(), ToolgateObservability.TAG_MODE_SOURCE, key.source(),
                ToolgateObservability.TAG_STATUS, key.status(), ToolgateObservability.TAG_TRANSPORT, key.transport());
        return new Outcome(
                Counter.builder(ToolgateObservability.CALLS).description("Governed tool call outcomes")
                        .tags(tags).register(meters),
                Timer.builder(ToolgateObservability.CALL_DURATION).description("Time the gate spent on a call outcome")
                        .tags(tags).publishPercentileHistogram().register(meters));
    }
}
