package dev.toolgate.gate;

import dev.toolgate.call.Applied;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallPreview;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.DuplicateCallException;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.Freshness;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.InvalidTokenException;
import dev.toolgate.call.MalformedTokenException;
import dev.toolgate.call.PendingLimitException;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.call.PolicyDeniedException;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ProposalClosedException;
import dev.toolgate.call.ProposeApplyException;
import dev.toolgate.call.PurgeResult;
import dev.toolgate.call.RevertResult;
import dev.toolgate.call.SeparationOfDutiesException;
import dev.toolgate.call.StaleProposalException;
import dev.toolgate.call.StepRef;
import dev.toolgate.call.SweepResult;
import dev.toolgate.call.TokenAlreadyUsedException;
import dev.toolgate.call.TokenExpiredException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.call.UnknownProposalException;
import dev.toolgate.call.UnknownToolException;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * The gate's contract: calls, proposals, single-use applies and the operator inbox. {@code Toolgate}
 * is the entry point hosts use; it delegates here.
 *
 * <p>The invariants every implementation keeps:
 * <ul>
 *   <li>a tool runs only for a principal the resolver allows, re-checked at call, propose, apply and
 *       approval;</li>
 *   <li>a mutating tool runs only through {@link #apply} or {@link #approve}, and executes exactly the
 *       payload stored at propose time, re-validated against the current schema;</li>
 *   <li>a token is single-use across every instance sharing the store;</li>
 *   <li>every admitted call is metered and recorded before tool code runs; bad input changes no
 *       state.</li>
 * </ul>
 *
 * <p>The standard engine ({@link #standard()}) is built by the {@code Toolgate} builder. A host may
 * replace it with a {@link Factory} given to the builder (a factory may wrap the standard engine) or
 * listed in
 * {@code META-INF/services/dev.toolgate.gate.ProposeApplyEngine$Factory}; the builder logs a warning
 * when a discovered factory replaces the standard gate.
 */
public interface ProposeApplyEngine extends AutoCloseable {

    /**
     * A model's tool call: runs a read, proposes (and in AUTO mode or under an ALLOW override applies)
     * a mutation, or refuses it by policy.
     *
     * @throws UnknownToolException                          no such tool
     * @throws ForbiddenException                            the principal lacks a required rule
     * @throws dev.toolgate.tool.ToolValidationException     invalid arguments or a dry-run rejection
     * @throws dev.toolgate.budget.BudgetExceededException   over budget
     * @throws DuplicateCallException                        the same call already succeeded this turn
     * @throws PendingLimitException                         the session's pending queue is full
     * @throws ToolExecutionException                        the tool failed or timed out (recorded)
     */
    CallResult call(CallContext context, String toolName, JsonNode arguments);

    /**
     * The execution module's seam: a call made as step {@code step} of a durable execution. It is
     * governed exactly as {@link #call} (resolver, schema, policy, budget, dry-run, audit), and its
     * record carries the step, which the store logs at most once: a second runner of the same run
     * gets {@link dev.toolgate.spi.StepTakenException} and nothing of its call is stored. A mutation
     * whose policy needs consent comes back as a {@link Proposal}: the run pauses on it. No turn
     * applies.
     */
    CallResult callStep(CallContext context, StepRef step, String toolName, JsonNode arguments);

    /**
     * The execution module's seam: {@code approver} applies the pending proposal of a step, with every
     * check {@link #apply} makes (including separation of duties) and the same single-use claim.
     *
     * @throws UnknownProposalException no step proposal has that id
     */
    Applied applyStep(CallContext approver, String callId);

    /**
     * The execution module's seam: closes the pending proposal of a step as rejected by
     * {@code actor} (the execution module decides who may). False if it was no longer pending.
     */
    boolean rejectStep(CallContext actor, String callId, String reason);

    /**
     * Reverts an applied call once, across every instance: the tool's revert runs with the stored
     * payload and result as {@code actor} (who needs the tool's rules), and gets its own audit record.
     * A call that did not apply, or whose tool has no revert, is skipped; a second revert of one call
     * runs nothing.
     */
    RevertResult revert(CallContext actor, String callId);

    /**
     * What {@link #call} would do, without doing it: the same checks (tool, rules, arguments, turn)
     * and metering; for a mutation the dry-run runs, and its summary, payload and diff come back with
     * the disposition policy gives the call now. Nothing is proposed, applied or recorded as a call.
     * A read is not run (its disposition says it would).
     *
     * @throws UnknownToolException                          no such tool
     * @throws ForbiddenException                            the principal lacks a required rule
     * @throws dev.toolgate.tool.ToolValidationException     invalid arguments or a dry-run rejection
     * @throws dev.toolgate.budget.BudgetExceededException   over budget
     * @throws ToolExecutionException                        the dry-run failed or timed out (not recorded; no call id)
     */
    CallPreview preview(CallContext context, String toolName, JsonNode arguments);

    /** Proposes a call regardless of permission mode (it never runs here); DENY throws {@link PolicyDeniedException}. */
    Proposal propose(CallContext context, String toolName, JsonNode arguments);

    /**
     * Applies a proposal by token, executing only its stored payload. Takes no arguments from the caller.
     *
     * @throws MalformedTokenException   the token is not {@code propose:<uuid>.<nonce>}
     * @throws UnknownProposalException  no proposal has that id
     * @throws InvalidTokenException     the nonce is wrong
     * @throws TokenExpiredException     the proposal expired
     * @throws TokenAlreadyUsedException the proposal was already applied
     * @throws ProposalClosedException   an operator rejected or replaced it
     * @throws ForbiddenException        the applier lacks a rule the tool requires
     * @throws SeparationOfDutiesException the applier made the proposal and the gate requires a distinct approver
     * @throws StaleProposalException    the stored payload no longer fits the tool's schema
     */
    Applied apply(CallContext context, String token);

    /**
     * Checks a token exactly as {@link #apply} does (format, nonce in constant time, expiry, status,
     * the caller's rules) without applying it, and returns the pending proposal it names. A transport
     * uses it to show or confirm what a token would do, for example to ask a human before a
     * DESTRUCTIVE apply. Changes nothing and is not metered.
     *
     * @throws ProposeApplyException the same typed errors {@link #apply} throws for the token
     */
    PendingProposal inspect(CallContext context, String token);

    /**
     * An operator approves a pending proposal by id; a proposal no longer pending is a safe no-op.
     *
     * @throws SeparationOfDutiesException the operator made the proposal and the gate requires a distinct approver
     */
    InboxResult approve(CallContext approver, String callId, Approval approval);

    /** An operator rejects a pending proposal; a proposal no longer pending is a safe no-op. */
    InboxResult reject(CallContext approver, String callId, String reason);

    /**
     * The proposer withdraws its own pending proposal: closed as rejected, decided by the proposer
     * (no approver rule needed; a proposal of another principal answers as unknown). A proposal no
     * longer pending is a safe no-op that says what became of it.
     *
     * @throws UnknownProposalException no pending-or-decided proposal of this principal with that id
     */
    default InboxResult withdraw(CallContext proposer, String callId, String reason) {
        throw new UnsupportedOperationException(getClass().getName() + " does not support withdrawing proposals");
    }

    /**
     * An operator replaces a pending proposal's arguments: a new proposal (new dry-run, new policy
     * decision, new token) supersedes it.
     */
    InboxResult edit(CallContext approver, String callId, JsonNode arguments);

    /**
     * Pending proposals the viewer may see: an operator sees the tenant's (optionally one session's);
     * anyone else sees only their own, in {@code sessionId}.
     */
    List<PendingProposal> pending(CallContext viewer, String sessionId);

    /**
     * Whether the pending proposal {@code callId}'s preview still holds (see {@link Freshness}), for a
     * viewer who may see it in {@link #pending}: its tool's dry-run runs again on the stored payload and
     * nothing changes. An engine that checks no preconditions answers fresh.
     *
     * @throws UnknownProposalException if there is no such pending proposal for this viewer
     */
    default Freshness freshness(CallContext viewer, String callId) {
        return Freshness.fresh(callId);
    }

    /**
     * Calls whose outcome never arrived (the instance applying them stopped): in doubt, never re-run.
     * For an operator of the viewer's tenant; newest first.
     *
     * @throws ForbiddenException the viewer lacks the approver rule
     */
    List<CallRecord> interrupted(CallContext operator);

    /**
     * An operator settles an interrupted call after checking the target system: {@code applied} true
     * if the mutation happened, false if it did not. Nothing runs. A call that is not interrupted
     * (already resolved, or its late outcome arrived) is a safe no-op.
     *
     * @throws UnknownProposalException no such call in the operator's tenant
     */
    InboxResult resolve(CallContext operator, String callId, boolean applied, String note);

    /** An operator re-confirms a drifted tool: its current schema becomes the reviewed one for the tenant. */
    void confirmSchema(CallContext approver, String toolName);

    /**
     * An operator stores a mode for a tool at a scope: the automation or tenant of {@code approver}'s
     * context. The tool's current schema becomes the reviewed one.
     */
    void setMode(CallContext approver, OverrideScope scope, String toolName, Mode mode);

    /** An operator removes a stored mode; the cascade falls through to the next scope. False if none was stored. */
    boolean clearMode(CallContext approver, OverrideScope scope, String toolName);

    /**
     * One sweep: expires proposals past their time, marks claimed calls whose outcome is overdue as
     * interrupted (with a listener event each; never re-run), and purges in small batches what the
     * retention no longer keeps. Hygiene only: apply never depends on it. Safe on every instance at once.
     */
    SweepResult sweep();

    /**
     * Deletes, to completion, finished calls and closed proposals that closed before {@code before},
     * and sessions idle since before it; budget rows only once idle for the retention's budget age
     * too. Never deletes a pending proposal or a call still applying.
     */
    PurgeResult purge(Instant before);

    /**
     * The host's session ended: its bookkeeping row goes now if nothing is pending in it (otherwise
     * once it is idle). Its pending proposals stay decidable in the inbox.
     *
     * @return true if the session's row was removed
     */
    boolean endSession(String sessionId);

    /** Stops the engine's threads. */
    @Override
    void close();

    /** The standard engine's factory. */
    static Factory standard() {
        return StandardEngine::new;
    }

    /** Builds an engine from the assembled parts. */
    @FunctionalInterface
    interface Factory {

        /** A new engine. */
        ProposeApplyEngine create(EngineContext context);
    }
}
