package dev.toolgate.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import java.time.Clock;
import java.time.Duration;

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

    @Override
    public void onStop(ToolCallContext c) {
        String effect = c.effect().wireName();
        Tags tags = Tags.of(ToolgateObservability.TAG_TOOL, c.toolName(), ToolgateObservability.TAG_EFFECT, effect,
                ToolgateObservability.TAG_MODE, ToolCallContext.modeTag(c.mode()),
                ToolgateObservability.TAG_MODE_SOURCE, ToolCallContext.sourceTag(c.modeSource()),
                ToolgateObservability.TAG_STATUS, c.status(), ToolgateObservability.TAG_TRANSPORT, c.transport());
        Counter.builder(ToolgateObservability.CALLS).description("Governed tool call outcomes")
                .tags(tags).register(meters).increment();
        Timer.builder(ToolgateObservability.CALL_DURATION).description("Time the gate spent on a call outcome")
                .tags(tags).publishPercentileHistogram().register(meters).record(c.duration());
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
}
