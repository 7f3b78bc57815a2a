package dev.toolgate.gate;

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
 * <p>The standard engine is built by the {@code Toolgate} builder. A host may replace it with a
 * {@link Factory} given to the builder or listed in
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

    /** An operator approves a pending proposal by id; a proposal no longer pending is a safe no-op. */
    InboxResult approve(CallContext approver, String callId, Approval approval);

    /** An operator rejects a pending proposal; a proposal no longer pending is a safe no-op. */
    InboxResult reject(CallContext approver, String callId, String reason);

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

    /** An operator re-confirms a drifted tool: its current schema becomes the reviewed one for the tenant. */
    void confirmSchema(CallContext approver, String toolName);

    /** Marks expired proposals as expired (hygiene; apply never depends on it). */
    int expireDue();

    /** Stops the engine's threads. */
    @Override
    void close();

    /** Builds an engine from the assembled parts. */
    @FunctionalInterface
    interface Factory {

        /** A new engine. */
        ProposeApplyEngine create(EngineContext context);
    }
}
