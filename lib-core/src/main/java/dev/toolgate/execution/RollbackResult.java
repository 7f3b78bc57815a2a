package dev.toolgate.execution;

import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.call.RevertResult;
import java.util.List;
import java.util.Objects;

/**
 * What a rollback did: one result per applied step it considered, newest first.
 *
 * @param executionId the run
 * @param status      where the run is afterwards ({@code rolled_back}, or unchanged when refused)
 * @param reverts     what happened to each applied step, newest first
 * @param refusal     why nothing was done (the run is still running), or null
 */
public record RollbackResult(String executionId, ExecutionStatus status, List<RevertResult> reverts, String refusal) {

    /** Checks the components; see the class description for what each must hold. */
    public RollbackResult {
        Objects.requireNonNull(executionId, "executionId");
        Objects.requireNonNull(status, "status");
        reverts = List.copyOf(reverts);
    }

    /** How many steps this rollback reverted. */
    public long reverted() {
        return reverts.stream().filter(r -> r.outcome() == RevertResult.Outcome.REVERTED).count();
    }
}
