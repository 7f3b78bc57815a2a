package dev.toolgate.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Records Toolgate's meters of one outcome, with the duration Toolgate measured. The listener calls it
 * directly rather than through an observation handler: the outcome is reported after it happened, so an
 * observation would add nothing to the meters but its cost (about a kilobyte of garbage per call).
 * The counter and timer of each distinct set of tag values are built once and found with one lookup.
 */
final class CallMeters {

    private final MeterRegistry meters;
    private final Clock clock;

    CallMeters(MeterRegistry meters, Clock clock) {
        this.meters = meters;
        this.clock = clock;
    }

    /** The meters of one set of {@link ToolCallContext.Facts}, built once. */
    private record Outcome(Counter calls, Timer duration) {
    }

    private final ConcurrentMap<ToolCallContext.Facts, Outcome> outcomes = new ConcurrentHashMap<>();

    /**
     * Counts and times one outcome; for the decision on a proposal that waited ({@code proposedAt} set),
     * the approval latency too.
     */
    void record(ToolCallContext.Facts facts, Duration duration, Instant proposedAt) {
        Outcome outcome = outcomes.get(facts);
        if (outcome == null) {
            outcome = outcomes.computeIfAbsent(facts, this::register);
        }
        outcome.calls().increment();
        outcome.duration().record(duration);
        String status = facts.status();
        if (proposedAt == null && !status.equals(ToolCallContext.OVER_BUDGET) && !status.equals("interrupted")
                && !status.equals("expired")) {
            return;
        }
        Tags tool = Tags.of(ToolgateObservability.TAG_TOOL, facts.tool(), ToolgateObservability.TAG_EFFECT, facts.effect());
        if (proposedAt != null) {
            Duration waited = Duration.between(proposedAt, clock.instant());
            Timer.builder(ToolgateObservability.APPROVAL_LATENCY)
                    .description("Time from a proposal to its decision (apply, approval, rejection, edit)")
                    .tags(tool).tag(ToolgateObservability.TAG_STATUS, status)
                    .tag(ToolgateObservability.TAG_TRANSPORT, facts.transport())
                    .publishPercentileHistogram().register(meters).record(waited.isNegative() ? Duration.ZERO : waited);
        }
        switch (status) {
            case ToolCallContext.OVER_BUDGET -> Counter.builder(ToolgateObservability.BUDGET_REFUSALS)
                    .description("Calls, applies and approvals the budget refused").tags(tool)
                    .tag(ToolgateObservability.TAG_TRANSPORT, facts.transport()).register(meters).increment();
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

    private Outcome register(ToolCallContext.Facts key) {
        Tags tags = Tags.of(ToolgateObservability.TAG_TOOL, key.tool(), ToolgateObservability.TAG_EFFECT, key.effect(),
                ToolgateObservability.TAG_MODE, key.mode(), ToolgateObservability.TAG_MODE_SOURCE, key.modeSource(),
                ToolgateObservability.TAG_STATUS, key.status(), ToolgateObservability.TAG_TRANSPORT, key.transport());
        return new Outcome(
                Counter.builder(ToolgateObservability.CALLS).description("Governed tool call outcomes")
                        .tags(tags).register(meters),
                Timer.builder(ToolgateObservability.CALL_DURATION).description("Time the gate spent on a call outcome")
                        .tags(tags).publishPercentileHistogram().register(meters));
    }
}
