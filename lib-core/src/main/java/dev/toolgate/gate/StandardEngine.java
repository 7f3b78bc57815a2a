package dev.toolgate.gate;

import dev.toolgate.call.Applied;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallPreview;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Freshness;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.PurgeResult;
import dev.toolgate.call.RevertResult;
import dev.toolgate.call.StepRef;
import dev.toolgate.call.SweepResult;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * The standard gate, one class per verb: {@link Calls} (a model's calls and proposals, and the steps
 * of durable executions), {@link Applies} (token applies, step approvals and running claimed
 * proposals), {@link Inbox} (operators' decisions), {@link Reverts} (undoing applied calls) and
 * {@link Upkeep} (the sweeper). Every path follows the same order: checks that change nothing
 * (tool, access, arguments, duplicate, policy, token); then the admission against the budget; then
 * tool code; then one store write that records the call with its outcome (or the proposal), before
 * anything is returned. Applying is one atomic claim, the execution of the stored payload, and its
 * outcome. Built by {@link ProposeApplyEngine#standard()}.
 */
final class StandardEngine implements ProposeApplyEngine {

    private final Steps steps;
    private final Calls calls;
    private final Applies applies;
    private final Inbox inbox;
    private final Upkeep upkeep;
    private final Reverts reverts;

    StandardEngine(EngineContext context) {
        this.steps = new Steps(context);
        this.applies = new Applies(steps);
        this.calls = new Calls(steps, applies);
        this.inbox = new Inbox(steps, calls, applies);
        this.upkeep = new Upkeep(steps);
        this.reverts = new Reverts(steps);
    }

    @Override
    public CallResult call(CallContext context, String toolName, JsonNode arguments) {
        return calls.call(context, null, toolName, arguments);
    }

    @Override
    public CallResult callStep(CallContext context, StepRef step, String toolName, JsonNode arguments) {
        return calls.call(context, java.util.Objects.requireNonNull(step, "step"), toolName, arguments);
    }

    @Override
    public Applied applyStep(CallContext approver, String callId) {
        return applies.applyStep(approver, callId);
    }

    @Override
    public boolean rejectStep(CallContext actor, String callId, String reason) {
        return inbox.rejectStep(actor, callId, reason);
    }

    @Override
    public RevertResult revert(CallContext actor, String callId) {
        return reverts.revert(actor, callId);
    }

    @Override
    public CallPreview preview(CallContext context, String toolName, JsonNode arguments) {
        return calls.preview(context, toolName, arguments);
    }

    @Override
    public Proposal propose(CallContext context, String toolName, JsonNode arguments) {
        return calls.propose(context, toolName, arguments);
    }

    @Override
    public Applied apply(CallContext context, String token) {
        return applies.apply(context, token);
    }

    @Override
    public PendingProposal inspect(CallContext context, String token) {
        return applies.inspect(context, token);
    }

    @Override
    public InboxResult approve(CallContext approver, String callId, Approval approval) {
        return inbox.approve(approver, callId, approval);
    }

    @Override
    public InboxResult reject(CallContext approver, String callId, String reason) {
        return inbox.reject(approver, callId, reason);
    }

    @Override
    public InboxResult withdraw(CallContext proposer, String callId, String reason) {
        return inbox.withdraw(proposer, callId, reason);
    }

    @Override
    public InboxResult edit(CallContext approver, String callId, JsonNode arguments) {
        return inbox.edit(approver, callId, arguments);
    }

    @Override
    public List<PendingProposal> pending(CallContext viewer, String sessionId) {
        return inbox.pending(viewer, sessionId);
    }

    @Override
    public Freshness freshness(CallContext viewer, String callId) {
        return inbox.freshness(viewer, callId);
    }

    @Override
    public List<CallRecord> interrupted(CallContext operator) {
        return inbox.interrupted(operator);
    }

    @Override
    public InboxResult resolve(CallContext operator, String callId, boolean applied, String note) {
        return inbox.resolve(operator, callId, applied, note);
    }

    @Override
    public void confirmSchema(CallContext approver, String toolName) {
        inbox.confirmSchema(approver, toolName);
    }

    @Override
    public void setMode(CallContext approver, OverrideScope scope, String toolName, Mode mode) {
        inbox.setMode(approver, scope, toolName, mode);
    }

    @Override
    public boolean clearMode(CallContext approver, OverrideScope scope, String toolName) {
        return inbox.clearMode(approver, scope, toolName);
    }

    @Override
    public SweepResult sweep() {
        return upkeep.sweep();
    }

    @Override
    public PurgeResult purge(Instant before) {
        return upkeep.purge(before);
    }

    @Override
    public boolean endSession(String sessionId) {
        return upkeep.endSession(sessionId);
    }

    @Override
    public void close() {
        steps.close();
    }
}
