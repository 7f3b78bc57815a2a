package dev.toolgate.gate;

import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Freshness;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.call.StaleProposalException;
import dev.toolgate.call.StepOfExecutionException;
import dev.toolgate.call.UnknownProposalException;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.gate.Preparation.Prepared;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeOverride;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.policy.ToolReview;
import dev.toolgate.json.Json;
import dev.toolgate.spi.CallStore.Claim;
import dev.toolgate.spi.CallStore.ClaimResult;
import dev.toolgate.spi.CallStore.Closure;
import dev.toolgate.spi.CallStore.Resolution;
import dev.toolgate.tool.RegisteredTool;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The operator's side: the pending proposals and in-doubt calls of a tenant, and the decisions on
 * them (approve once or always, reject, edit, resolve), the modes operators store, and schema
 * re-confirmation. Every action needs the approver rule; a decision on something no longer pending
 * is a safe no-op that says what happened instead.
 */
final class Inbox {

    private static final Logger LOG = LoggerFactory.getLogger(StandardEngine.class);
    private static final int MAX_INBOX = 1_000;

    private final Steps steps;
    private final Calls calls;
    private final Applies applies;

    Inbox(Steps steps, Calls calls, Applies applies) {
        this.steps = steps;
        this.calls = calls;
        this.applies = applies;
    }

    InboxResult approve(CallContext approver, String callId, Approval approval) {
        long start = System.nanoTime();
        Objects.requireNonNull(approval, "approval");
        steps.approvers.require(approver);
        CallRecord record = proposalFor(approver, callId);
        if (!record.pendingAt(steps.calls.now())) {
            return notPending(record);
        }
        if (approval.always()) {
            scopeId(approval.scope(), record);
        }
        RegisteredTool tool = steps.preparation.tool(record.toolName());
        steps.preparation.authorize(approver.principal(), tool);
        steps.duties.requireDistinctDecider(record, approver.principal(), "approving it");
        JsonNode payload = Applies.storedPayload(steps, record, tool, approver);
        PrincipalRef actor = PrincipalRef.of(approver.principal());
        ClaimResult claim = steps.charges.claimCharged(record, new Claim(actor, actor, approval.reason(), steps.outcomeWithin(tool)),
                approver, start);
        steps.known.forget(record.id());
        try {
            if (claim.status() == ClaimResult.Status.CONFLICT) {
                throw applies.preconditions.conflict(record, approver, start);
            }
            if (claim.status() != ClaimResult.Status.CLAIMED) {
                return claim.record() == null ? notPending(record) : notPending(claim.record());
            }
            if (approval.always()) {
                allowFromNowOn(approval.scope(), record, tool, actor);
            }
            return new InboxResult.Approved(record.id(),
                    applies.runClaimed(claim.record(), tool, payload, approver, false, start));
        } catch (StaleProposalException e) {
            if (!e.preconditionChanged()) {
                throw e;
            }
            return new InboxResult.Stale(record.id(), e.getMessage(), e.changes());
        }
    }

    InboxResult reject(CallContext approver, String callId, String reason) {
        long start = System.nanoTime();
        steps.approvers.require(approver);
        CallRecord record = proposalFor(approver, callId);
        PrincipalRef actor = PrincipalRef.of(approver.principal());
        steps.known.forget(record.id());
        if (!steps.calls.close(record.id(), new Closure(CallStatus.REJECTED, actor, reason, null))) {
            return notPending(steps.calls.find(record.id()).orElse(record));
        }
        steps.events.publishDecision(record, CallStatus.REJECTED, actor, start, record.createdAt());
        return new InboxResult.Rejected(record.id(), reason);
    }

    /**
     * The proposer takes back its own pending proposal (a client cancelling the task that waits on it,
     * a user declining in the client): closed as rejected, decided by the proposer. A proposal of
     * another principal, of another tenant, or a step of a run answers as unknown (a run's step is
     * withdrawn by rejecting it in its run).
     */
    InboxResult withdraw(CallContext proposer, String callId, String reason) {
        long start = System.nanoTime();
        Objects.requireNonNull(proposer, "proposer");
        PrincipalRef actor = PrincipalRef.of(proposer.principal());
        CallRecord record = steps.calls.find(callId)
                .filter(r -> r.tokenDigest() != null && r.executionId() == null
                        && Objects.equals(r.tenantId(), proposer.tenantId()) && r.principal().equals(actor))
                .orElseThrow(() -> new UnknownProposalException("No proposal " + callId));
        if (!record.pendingAt(steps.calls.now())) {
            return notPending(record);
        }
        String safeReason = reason == null ? null : steps.settings.redactor().redactText(reason);
        steps.known.forget(record.id());
        if (!steps.calls.close(record.id(), new Closure(CallStatus.REJECTED, actor, safeReason, null))) {
            return notPending(steps.calls.find(record.id()).orElse(record));
        }
        steps.events.publishDecision(record, CallStatus.REJECTED, actor, start, record.createdAt());
        return new InboxResult.Rejected(record.id(), safeReason);
    }

    /**
     * Closes the pending proposal of a step as rejected, for the execution module (which decides who
     * may); false if it was no longer pending.
     */
    boolean rejectStep(CallContext actor, String callId, String reason) {
        long start = System.nanoTime();
        CallRecord record = steps.calls.find(callId).filter(r -> r.executionId() != null && r.tokenDigest() != null)
                .orElseThrow(() -> new UnknownProposalException("No step proposal " + callId));
        PrincipalRef who = PrincipalRef.of(actor.principal());
        String safeReason = reason == null ? null : steps.settings.redactor().redactText(reason);
        if (!steps.calls.close(record.id(), new Closure(CallStatus.REJECTED, who, safeReason, null))) {
            return false;
        }
        steps.events.publishDecision(record, CallStatus.REJECTED, who, start, record.createdAt());
        return true;
    }

    InboxResult edit(CallContext approver, String callId, JsonNode arguments) {
        long start = System.nanoTime();
        steps.approvers.require(approver);
        CallRecord record = proposalFor(approver, callId);
        if (!record.pendingAt(steps.calls.now())) {
            return notPending(record);
        }
        steps.duties.requireDistinctDecider(record, approver.principal(), "editing it");
        CallContext editor = new CallContext(approver.principal(), record.tenantId(), record.sessionId(), record.automationId(),
                approver.transport(), PermissionMode.APPROVE, approver.sessionKind(), null);
        Prepared call = steps.preparation.prepare(editor, record.toolName(), arguments);
        String replacementId = Steps.newId();
        // The dry-run first: an edit the tool finds invalid is refused (and recorded as its own invalid
        // row) while the original stays pending.
        Calls.Previewed previewed = call.mode().mode() == Mode.DENY ? null
                : calls.preview(editor, call, replacementId, null, start);
        PrincipalRef actor = PrincipalRef.of(approver.principal());
        steps.known.forget(record.id());
        if (!steps.calls.close(record.id(), new Closure(CallStatus.SUPERSEDED, actor, "edited by operator", replacementId))) {
            return notPending(steps.calls.find(record.id()).orElse(record));
        }
        steps.events.publishDecision(record, CallStatus.SUPERSEDED, actor, start, record.createdAt());
        CallResult replacement = previewed == null
                ? calls.deny(editor, call, null, start)
                : calls.record(editor, call, previewed, record.id(), start);
        return new InboxResult.Edited(record.id(), replacement);
    }

    List<PendingProposal> pending(CallContext viewer, String sessionId) {
        Objects.requireNonNull(viewer, "viewer");
        CallQuery query = CallQuery.latest(MAX_INBOX).status(CallStatus.PROPOSED);
        boolean operator = steps.approvers.isApprover(viewer.principal());
        if (operator) {
            query = query.tenant(viewer.tenantId());
            if (sessionId != null) {
                query = query.session(sessionId);
            }
        } else {
            if (sessionId == null) {
                return List.of();
            }
            query = query.session(sessionId).principal(viewer.principal().key());
        }
        Instant now = steps.calls.now();
        String notAnOperator = operator ? null
                : "Deciding needs the approver rule " + steps.settings.approverRule() + "; an operator will decide";
        return steps.calls.query(query).stream()
                .filter(r -> Objects.equals(r.tenantId(), viewer.tenantId()) && r.pendingAt(now))
                .map(r -> Applies.pendingView(r, notAnOperator != null ? notAnOperator
                        : steps.duties.sameDeciderReason(r, viewer.principal())))
                .toList();
    }

    Freshness freshness(CallContext viewer, String callId) {
        Objects.requireNonNull(viewer, "viewer");
        CallRecord record = steps.calls.find(callId).filter(r -> r.tokenDigest() != null
                        && Objects.equals(r.tenantId(), viewer.tenantId())
                        && (steps.approvers.isApprover(viewer.principal()) || r.principal().equals(PrincipalRef.of(viewer.principal()))))
                .orElseThrow(() -> new UnknownProposalException("No proposal " + callId));
        if (record.precondition() == null || !record.pendingAt(steps.calls.now())) {
            return Freshness.fresh(record.id());
        }
        RegisteredTool tool = steps.preparation.tool(record.toolName());
        return applies.preconditions.compare(record, tool, Json.parse(record.payloadJson()), viewer);
    }

    List<CallRecord> interrupted(CallContext viewer) {
        steps.approvers.require(viewer);
        return steps.calls.query(CallQuery.latest(MAX_INBOX).status(CallStatus.INTERRUPTED).tenant(viewer.tenantId()))
                .stream().filter(r -> Objects.equals(r.tenantId(), viewer.tenantId())).toList();
    }

    InboxResult resolve(CallContext operator, String callId, boolean applied, String note) {
        long start = System.nanoTime();
        steps.approvers.require(operator);
        CallRecord record = steps.calls.find(callId).filter(r -> Objects.equals(r.tenantId(), operator.tenantId()))
                .orElseThrow(() -> new UnknownProposalException("No call " + callId));
        PrincipalRef actor = PrincipalRef.of(operator.principal());
        CallStatus outcome = applied ? CallStatus.APPLIED : CallStatus.FAILED;
        Resolution resolution = new Resolution(outcome, actor, note == null ? null : steps.settings.redactor().redactText(note));
        if (!steps.calls.resolve(record.id(), resolution)) {
            CallRecord now = steps.calls.find(record.id()).orElse(record);
            return new InboxResult.NotPending(now.id(), now.status());
        }
        LOG.info("Operator {} resolved interrupted call {} of {} as {}", actor, record.id(), record.toolName(),
                applied ? "applied" : "not applied");
        if (applied && record.reverts() != null) {
            steps.calls.markReverted(record.reverts(), record.id()); // a revert that happened undid its call
        }
        steps.events.publish(record, outcome, actor, start);
        return new InboxResult.Resolved(record.id(), outcome);
    }

    void confirmSchema(CallContext approver, String toolName) {
        steps.approvers.require(approver);
        RegisteredTool tool = steps.preparation.tool(toolName);
        steps.preparation.authorize(approver.principal(), tool);
        steps.policies.putReview(new ToolReview(Steps.tenantKey(approver.tenantId()), tool.name(), tool.schemaFingerprint(),
                PrincipalRef.of(approver.principal()), null));
    }

    void setMode(CallContext approver, OverrideScope scope, String toolName, Mode mode) {
        steps.approvers.require(approver);
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(mode, "mode");
        RegisteredTool tool = steps.preparation.tool(toolName);
        String scopeId = scope == OverrideScope.AUTOMATION ? approver.automationId() : approver.tenantId();
        if (scopeId == null) {
            throw new IllegalArgumentException("the approver's context has no " + scope.wireName() + " to store a mode for");
        }
        PrincipalRef actor = PrincipalRef.of(approver.principal());
        steps.policies.putOverride(new ModeOverride(scope, scopeId, tool.name(), mode, actor, null));
        steps.policies.putReview(new ToolReview(Steps.tenantKey(approver.tenantId()), tool.name(), tool.schemaFingerprint(),
                actor, null));
    }

    boolean clearMode(CallContext approver, OverrideScope scope, String toolName) {
        steps.approvers.require(approver);
        Objects.requireNonNull(scope, "scope");
        String scopeId = scope == OverrideScope.AUTOMATION ? approver.automationId() : approver.tenantId();
        return scopeId != null && steps.policies.removeOverride(scope, scopeId, toolName);
    }

    /**
     * A proposal the approver's tenant may decide on; other tenants' proposals do not exist for them.
     * A step of a durable execution is decided through its execution.
     */
    private CallRecord proposalFor(CallContext approver, String callId) {
        CallRecord record = steps.calls.find(callId)
                .filter(r -> r.tokenDigest() != null && Objects.equals(r.tenantId(), approver.tenantId()))
                .orElseThrow(() -> new UnknownProposalException("No proposal " + callId));
        if (record.executionId() != null) {
            throw new StepOfExecutionException(record.id(), record.executionId(), record.stepSeq());
        }
        return record;
    }

    private static InboxResult.NotPending notPending(CallRecord record) {
        CallStatus status = record.status() == CallStatus.PROPOSED ? CallStatus.EXPIRED : record.status();
        return new InboxResult.NotPending(record.id(), status);
    }

    private static String scopeId(OverrideScope scope, CallRecord record) {
        String id = scope == OverrideScope.AUTOMATION ? record.automationId() : record.tenantId();
        if (id == null) {
            throw new IllegalArgumentException("Proposal " + record.id() + " has no " + scope.wireName()
                    + "; approve always at a scope the proposal belongs to");
        }
        return id;
    }

    private void allowFromNowOn(OverrideScope scope, CallRecord record, RegisteredTool tool, PrincipalRef actor) {
        steps.policies.putOverride(new ModeOverride(scope, scopeId(scope, record), tool.name(), Mode.ALLOW, actor, null));
        steps.policies.putReview(new ToolReview(Steps.tenantKey(record.tenantId()), tool.name(), tool.schemaFingerprint(),
                actor, null));
    }

}
