package dev.toolgate.gate;

import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallPreview;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Denied;
import dev.toolgate.call.Executed;
import dev.toolgate.call.PendingLimitException;
import dev.toolgate.call.PolicyDeniedException;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.StepRef;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.gate.Preparation.Prepared;
import dev.toolgate.json.FieldChange;
import dev.toolgate.json.FieldDiff;
import dev.toolgate.json.Json;
import dev.toolgate.json.JsonTruncator;
import dev.toolgate.policy.Disposition;
import dev.toolgate.policy.Dispositions;
import dev.toolgate.policy.Mode;
import dev.toolgate.spi.CallStore.Claim;
import dev.toolgate.spi.CallStore.ClaimResult;
import dev.toolgate.spi.CallStore.ProposeResult;
import dev.toolgate.tool.DryRunResult;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolContext;
import dev.toolgate.tool.ToolValidationException;
import java.security.SecureRandom;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * A model's calls: a read runs and is recorded once; a mutation is dry-run and stored as a proposal
 * with a single-use token (and, where policy consents, applied at once); a denied call is recorded as
 * denied. Every path meters the call before any tool code runs.
 */
final class Calls {

    private final Steps steps;
    private final Applies applies;
    private final SecureRandom random = new SecureRandom();

    Calls(Steps steps, Applies applies) {
        this.steps = steps;
        this.applies = applies;
    }

    /** A call, or with {@code step} the step of a durable execution it is (logged once per step). */
    CallResult call(CallContext context, StepRef step, String toolName, JsonNode arguments) {
        long start = System.nanoTime();
        CallContext checked = step == null ? context : context.withTurn(null);
        Prepared call = steps.preparation.prepare(checked, toolName, arguments);
        try {
            Disposition disposition = disposition(context, call);
            return switch (disposition) {
                case DENY -> deny(context, call, step, start);
                case RUN -> execute(context, call, step, start);
                case PROPOSE_AND_WAIT -> propose(context, call, Steps.newId(), null, step, start);
                case PROPOSE_AND_APPLY -> applyAutomatically(context, call,
                        proposeRecorded(context, call, Steps.newId(), step, start), start);
            };
        } finally {
            endInTurn(checked, call);
        }
    }

    /** Ends a call's admission into its context's turn, if it has one (see {@link Steps#prepare}). */
    private static void endInTurn(CallContext context, Prepared call) {
        if (context.turn() != null) {
            Admissions.end(context.turn(), call.tool().name(), call.argumentsHash());
        }
    }

    /** What policy makes of a call; a tool with a standing approval applies at once under the inferred default. */
    static Disposition disposition(CallContext context, Prepared call) {
        Disposition disposition = Dispositions.decide(call.tool().effect(), call.mode(), context.permissionMode());
        if (disposition == Disposition.PROPOSE_AND_WAIT && call.tool().tool().standingApproval()
                && !call.mode().explicit() && !call.mode().drifted()) {
            return Disposition.PROPOSE_AND_APPLY;
        }
        return disposition;
    }

    Proposal propose(CallContext context, String toolName, JsonNode arguments) {
        long start = System.nanoTime();
        Prepared call = steps.preparation.prepare(context, toolName, arguments);
        try {
            if (call.mode().mode() == Mode.DENY) {
                throw new PolicyDeniedException(deny(context, call, null, start));
            }
            return propose(context, call, Steps.newId(), null, null, start);
        } finally {
            endInTurn(context, call);
        }
    }

    /**
     * What a call would do: every check of {@link #call} and its metering, and for a mutation the
     * dry-run; nothing is stored but the budget's charge, and nothing changes.
     */
    CallPreview preview(CallContext context, String toolName, JsonNode arguments) {
        Prepared call = steps.preparation.prepare(context.withTurn(null), toolName, arguments);
        Disposition disposition = disposition(context, call);
        String name = call.tool().name();
        if (disposition == Disposition.DENY || disposition == Disposition.RUN) {
            return new CallPreview(name, call.tool().effect(), disposition, call.mode(), null, null, List.of());
        }
        steps.charges.admit(context.principal());
        ToolContext toolContext = Steps.toolContext(Steps.newId(), context, ToolContext.Phase.DRY_RUN);
        DryRunResult preview;
        try {
            preview = steps.runTool(call.tool(), () -> call.tool().dryRun(call.arguments(), toolContext));
        } catch (ToolValidationException e) {
            throw e;
        } catch (Throwable e) {
            if (e instanceof Error error && !(e instanceof StackOverflowError)) {
                throw error;
            }
            throw new ToolExecutionException(null, name, steps.failures.failureMessage(name, e), e instanceof ToolRunner.Timeout);
        }
        return new CallPreview(name, call.tool().effect(), disposition, call.mode(),
                steps.settings.redactor().redactText(preview.summary()),
                steps.settings.redactor().redact(preview.payload()), steps.hygiene.diff(preview.diff()));
    }

    /** The record of a call before its outcome, with the step of a run it is, if any. */
    private CallRecord.Builder draft(CallContext context, Prepared call, String id, StepRef step, long start) {
        return draft(context, call, id, step, admit(context, call, start));
    }

    private CallRecord.Builder draft(CallContext context, Prepared call, String id, StepRef step, java.time.Instant admitted) {
        CallRecord.Builder draft = steps.draft(context, call, id, admitted);
        return step == null ? draft : draft.executionId(step.executionId()).stepSeq(step.seq());
    }

    /** Meters the call: its admission time, or null when no budget meters its principal. */
    private java.time.Instant admit(CallContext context, Prepared call, long start) {
        try {
            return steps.charges.admit(context.principal());
        } catch (BudgetExceededException e) {
            steps.events.refused(call.tool().name(), call.tool().effect(), context, call.mode().mode(), call.mode().source(),
                    start);
            throw e;
        }
    }

    Denied deny(CallContext context, Prepared call, StepRef step, long start) {
        CallRecord record = steps.calls.record(draft(context, call, Steps.newId(), step, start)
                .status(CallStatus.DENIED).decisionReason("policy").build());
        steps.events.publish(record, CallStatus.DENIED, record.principal(), start);
        return new Denied(record.id(), record.toolName(), "policy", call.mode());
    }

    private Executed execute(CallContext context, Prepared call, StepRef step, long start) {
        String id = Steps.newId();
        CallRecord.Builder draft = draft(context, call, id, step, start);
        ToolContext toolContext = Steps.toolContext(id, context, ToolContext.Phase.EXECUTE);
        long toolStart = System.nanoTime();
        RegisteredTool.Output output;
        try {
            output = steps.runTool(call.tool(), () -> call.tool().run(call.arguments(), toolContext));
        } catch (ToolValidationException e) {
            throw steps.failures.invalid(draft, call, e, toolStart, start);
        } catch (Throwable e) {
            throw steps.failures.fail(draft, call, e, toolStart, start);
        }
        JsonTruncator.Truncation safe = steps.hygiene.result(output.json());
        CallRecord record = steps.calls.record(draft.status(CallStatus.EXECUTED).resultJson(Json.write(safe.value()))
                .durationMillis(Steps.millisSince(toolStart)).build());
        steps.events.publish(record, CallStatus.EXECUTED, record.principal(), start);
        rememberSuccess(context, call);
        return new Executed(record.id(), record.toolName(), safe.value(), safe.truncated(),
                steps.hygiene.content(output.content()));
    }

    /**
     * Dry-runs {@code call} and stores it as proposal {@code id}, replacing {@code supersedes} if set,
     * as {@code step} of a run if set.
     */
    Proposal propose(CallContext context, Prepared call, String id, String supersedes, StepRef step, long start) {
        requirePendingRoom(context);
        return record(context, call, preview(context, call, id, step, start), supersedes, start, true).proposal();
    }

    /** A proposal policy applies at once (no approval notice), with its stored record for the claim. */
    private Recorded proposeRecorded(CallContext context, Prepared call, String id, StepRef step, long start) {
        requirePendingRoom(context);
        return record(context, call, preview(context, call, id, step, start), null, start, false);
    }

    /** A proposal as the caller gets it, and its record as the store holds it. */
    private record Recorded(Proposal proposal, CallRecord record) {
    }

    /**
     * A dry-run done, its proposal not yet recorded; {@code charged} whether its admission was charged
     * to a budget.
     */
    record Previewed(String id, CallRecord.Builder proposal, DryRunResult preview, long toolStart, boolean charged) {
    }

    /**
     * The session's pending cap, checked before a charged proposal is metered: a full session then costs
     * no budget (and its dry-run does not run). The store's insert enforces the cap atomically in any case
     * ({@link dev.toolgate.spi.CallStore#propose}), so a proposal no budget meters skips this count (one
     * store round trip): refused at the insert, it records nothing and has changed nothing, its dry-run
     * being free of side effects by contract.
     */
    void requirePendingRoom(CallContext context) {
        if (context.sessionId() != null && steps.charges.charge(context.principal()) != null
                && steps.calls.countPending(context.sessionId()) >= steps.settings.maxPendingPerSession()) {
            throw pendingLimit(context.sessionId());
        }
    }

    /**
     * Runs the dry-run of a proposal. Invalid input (the dry-run's {@link ToolValidationException}) and
     * failures are recorded as their own rows and thrown; nothing else is recorded.
     */
    Previewed preview(CallContext context, Prepared call, String id, StepRef step, long start) {
        java.time.Instant admitted = admit(context, call, start);
        CallRecord.Builder proposal = draft(context, call, id, step, admitted);
        ToolContext toolContext = Steps.toolContext(id, context, ToolContext.Phase.DRY_RUN);
        long toolStart = System.nanoTime();
        DryRunResult preview;
        try {
            preview = steps.runTool(call.tool(), () -> call.tool().dryRun(call.arguments(), toolContext));
        } catch (ToolValidationException e) {
            throw steps.failures.invalid(proposal, call, e, toolStart, start);
        } catch (Throwable e) {
            throw steps.failures.fail(proposal, call, e, toolStart, start);
        }
        return new Previewed(id, proposal, preview, toolStart, admitted != null);
    }

    /** Records a previewed proposal as pending, with its token. */
    Proposal record(CallContext context, Prepared call, Previewed previewed, String supersedes, long start) {
        return record(context, call, previewed, supersedes, start, true).proposal();
    }

    private Recorded record(CallContext context, Prepared call, Previewed previewed, String supersedes, long start,
                            boolean awaits) {
        CallRecord.Builder proposal = previewed.proposal().supersedes(supersedes);
        DryRunResult preview = previewed.preview();
        long toolStart = previewed.toolStart();
        String id = previewed.id();
        ProposalToken token = ProposalToken.generate(id, random);
        String summary = steps.settings.redactor().redactText(preview.summary());
        List<FieldChange> diff = steps.hygiene.diff(preview.diff());
        Preconditions.Stored precondition = applies.preconditions.of(preview);
        ProposeResult proposed = steps.calls.propose(proposal.status(CallStatus.PROPOSED).summary(summary)
                        .payloadJson(Json.write(preview.payload()))
                        .diffJson(diff.isEmpty() ? null : Json.write(FieldDiff.toJson(diff)))
                        .precondition(precondition.fingerprint()).preconditionJson(precondition.json())
                        .tokenDigest(token.nonceDigestHex()).durationMillis(Steps.millisSince(toolStart)).build(),
                steps.settings.ttlFor(context.sessionKind()), steps.settings.maxPendingPerSession());
        if (proposed.status() == ProposeResult.Status.PENDING_LIMIT) {
            if (!previewed.charged() && supersedes == null) {
                // nothing was metered: refused, the proposal leaves no trace, as the count before would have
                throw pendingLimit(context.sessionId());
            }
            // a charged admission keeps its row (the budget's window counts it); an edit's replacement
            // keeps one too (the superseded proposal names it)
            CallRecord refused = steps.calls.record(proposal.status(CallStatus.DENIED).summary(null).payloadJson(null)
                    .diffJson(null).tokenDigest(null).decisionReason("pending_limit").executionId(null).stepSeq(null).build());
            steps.events.publish(refused, CallStatus.DENIED, refused.principal(), start);
            throw pendingLimit(context.sessionId());
        }
        CallRecord record = proposed.record();
        if (awaits) {
            steps.known.remember(record);
        }
        steps.events.publish(record, CallStatus.PROPOSED, record.principal(), start, awaits);
        rememberSuccess(context, call);
        if (context.turn() != null) {
            context.turn().recordProposal(record.id());
        }
        return new Recorded(new Proposal(record.id(), record.toolName(), record.effect(), token.value(), summary,
                preview.payload(), diff, record.expiresAt(), call.mode()), record);
    }

    /** Policy consented (an ALLOW override, or AUTO mode): the proposal just made is applied in the same step. */
    private Applied applyAutomatically(CallContext context, Prepared call, Recorded recorded, long start) {
        Proposal proposal = recorded.proposal();
        String reason = call.mode().mode() == Mode.ALLOW ? "allow_policy"
                : call.tool().tool().standingApproval() ? "standing_approval" : "auto_mode";
        // the call was admitted when it was proposed: applying it in the same step is not charged again
        ClaimResult claim = steps.calls.claim(recorded.record(),
                new Claim(PrincipalRef.of(context.principal()), null, reason, steps.outcomeWithin(call.tool())), null);
        if (claim.status() == ClaimResult.Status.CONFLICT) { // another change from the same state is applying
            throw applies.preconditions.conflict(recorded.record(), context, start);
        }
        if (claim.status() != ClaimResult.Status.CLAIMED) {
            throw new IllegalStateException("a proposal just made could not be claimed: " + claim.status());
        }
        return applies.runClaimed(claim.record(), call.tool(), proposal.payload(), context, true, start);
    }

    private static PendingLimitException pendingLimit(String sessionId) {
        return new PendingLimitException("Session " + sessionId + " already has the maximum number of pending proposals; "
                + "wait for an operator to decide on them");
    }

    private static void rememberSuccess(CallContext context, Prepared call) {
        if (context.turn() != null) {
            context.turn().recordSuccess(call.tool().name(), call.argumentsHash());
        }
    }
}
