package dev.toolgate;

import dev.toolgate.audit.CallRecord;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.InboxResult;
import dev.toolgate.gate.ProposeApplyEngine;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.execution.Executions;
import dev.toolgate.policy.Mode;
import dev.toolgate.spi.ToolgateStore;
import java.util.Objects;
import java.util.Optional;

/**
 * The inbox's decisions on a proposal that is the pending step of a durable execution: approving
 * resumes its run ({@link Executions#approve}), rejecting or withdrawing it ends the run
 * ({@link Executions#reject}).
 */
final class StepDecisions {

    private final ToolgateStore store;
    private final ProposeApplyEngine engine;
    /** Null when the store keeps no executions: then no proposal is a step. */
    private final Executions executions;

    StepDecisions(ToolgateStore store, ProposeApplyEngine engine, Executions executions) {
        this.store = store;
        this.engine = engine;
        this.executions = executions;
    }

    /** Approves the step {@code record} (the proposal {@code callId}); "approve always" also stores ALLOW for the tool first. */
    InboxResult approve(CallContext approver, String callId, CallRecord record, Approval approval) {
        if (approval.always()) {
            CallContext scoped = approver.withTenant(record.tenantId()).withAutomation(record.automationId());
            engine.setMode(scoped, approval.scope(), record.toolName(), Mode.ALLOW);
        }
        ExecutionOutcome outcome = executions.approve(approver, record.executionId(), record.stepSeq());
        return new InboxResult.Resumed(callId, record.executionId(), outcome.status());
    }

    /** Rejects the step {@code step}, which ends its run. */
    InboxResult reject(CallContext actor, CallRecord step, String reason) {
        if (executions.reject(actor, step.executionId(), step.stepSeq(), reason)) {
            return new InboxResult.Rejected(step.id(), reason);
        }
        return new InboxResult.NotPending(step.id(), store.calls().find(step.id()).map(CallRecord::status).orElse(step.status()));
    }

    /** The proposal {@code callId} if it is a step of a durable execution in the approver's tenant. */
    Optional<CallRecord> stepProposal(CallContext approver, String callId) {
        if (executions == null || callId == null) {
            return Optional.empty();
        }
        return store.calls().find(callId)
                .filter(r -> r.executionId() != null && Objects.equals(r.tenantId(), approver.tenantId()));
    }
}
