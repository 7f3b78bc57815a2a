package dev.toolgate.execution;

import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.tool.RegisteredTool;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Function;

/**
 * The sweeper's part of {@link Executions}: paused runs whose pending step closed end accordingly, finished
 * runs past their retention are purged, and runs whose instance stopped between steps are taken over and
 * replayed from their log.
 */
final class ExecutionSweep {

    private static final Logger LOG = LoggerFactory.getLogger(Executions.class);
    private static final Set<ExecutionStatus> PAUSED = EnumSet.of(ExecutionStatus.PAUSED);

    private ExecutionSweep() {
    }

    /** See {@link Executions#sweep}; {@code lookup} finds a run's principal now. */
    static int sweep(Wiring wiring, Function<ExecutionRecord, Optional<Principal>> lookup) {
        int settled = 0;
        for (ExecutionRecord run : wiring.runs().pausedOnClosedSteps(Executions.SWEEP_BATCH)) {
            CallRecord step = wiring.calls().find(run.pendingCallId()).orElse(null);
            ExecutionStatus to;
            String why;
            if (step == null || step.status() == CallStatus.EXPIRED || step.status() == CallStatus.PROPOSED) {
                to = ExecutionStatus.EXPIRED;
                why = "step " + run.pendingSeq() + " expired before anyone decided";
            } else if (step.status() == CallStatus.REJECTED || step.status() == CallStatus.SUPERSEDED) {
                to = ExecutionStatus.REJECTED;
                why = "step " + run.pendingSeq() + " was rejected";
            } else if (step.status() == CallStatus.STALE) {
                to = ExecutionStatus.FAILED;
                why = "step " + run.pendingSeq() + " is stale: the state it was proposed from changed; nothing ran";
            } else if (step.status() == CallStatus.APPLYING) {
                continue; // an approval is applying it; its runner moves the run on, or it becomes in doubt
            } else {
                to = ExecutionStatus.INTERRUPTED;
                why = "step " + run.pendingSeq() + " was applied but its run never went on; it is not re-run";
            }
            if (wiring.runs().close(run.id(), PAUSED, to, why)) {
                settled++;
            }
        }
        Duration keep = wiring.settings().retention().finishedCalls();
        if (keep != null) {
            int purged = wiring.runs().purge(wiring.calls().now().minus(keep), Executions.SWEEP_BATCH);
            if (purged > 0) {
                LOG.debug("Purged {} finished execution(s)", purged);
            }
        }
        Instant quietSince = wiring.calls().now().minus(quietPeriod(wiring));
        for (ExecutionRecord run : wiring.runs().stalled(quietSince, Executions.SWEEP_BATCH)) {
            if (!wiring.programs().containsKey(run.program())) {
                LOG.warn("Execution {} stalled, but program {} is not registered on this instance; an instance that has"
                        + " it must take it over", run.id(), run.program());
                continue;
            }
            Optional<ExecutionRecord> taken = wiring.runs().takeOver(run.id(), run.attempt());
            if (taken.isEmpty()) {
                continue;
            }
            LOG.info("Execution {} of {} stalled at attempt {}; taking it over", run.id(), run.program(), run.attempt());
            try {
                Optional<Principal> principal = lookup.apply(taken.get());
                if (principal.isEmpty()) {
                    wiring.runs().finish(run.id(), taken.get().attempt(), ExecutionStatus.FAILED, null,
                            "the run's principal " + run.principal() + " no longer exists", List.of());
                } else {
                    new Attempt(wiring, taken.get(), principal.get(), null, null, null).execute(); // nobody waits on a takeover
                }
                settled++;
            } catch (RuntimeException e) {
                LOG.warn("Taking over execution {} failed; a later sweep tries again", run.id(),
                        wiring.settings().redactor().redactThrowable(e));
            }
        }
        return settled;
    }

    /** How long a running run may show no activity before it counts as stalled. */
    static Duration quietPeriod(Wiring wiring) {
        Duration longest = wiring.settings().executionTimeout();
        for (RegisteredTool tool : wiring.registry().tools()) {
            Duration own = tool.timeout().orElse(longest);
            if (own.compareTo(longest) > 0) {
                longest = own;
            }
        }
        return longest.plus(Duration.ofSeconds(30));
    }
}
