package dev.toolgate.gate;

import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.InvalidTokenException;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.call.ProposalClosedException;
import dev.toolgate.call.StaleProposalException;
import dev.toolgate.call.StepOfExecutionException;
import dev.toolgate.call.TokenAlreadyUsedException;
import dev.toolgate.call.TokenExpiredException;
import dev.toolgate.call.UnknownProposalException;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.json.FieldChange;
import dev.toolgate.json.FieldDiff;
import dev.toolgate.json.Json;
import dev.toolgate.json.JsonTruncator;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.CallStore.Claim;
import dev.toolgate.spi.CallStore.ClaimResult;
import dev.toolgate.spi.CallStore.Completion;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolContext;
import dev.toolgate.tool.ValidationIssue;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * Applying proposals: a token is checked (format, nonce in constant time, expiry, status, the
 * applier's rules), the proposal is claimed once across every instance, and only its stored payload,
 * re-validated against today's schema, runs; its outcome is recorded before it is returned.
 */
final class Applies {

    private final Steps steps;
    final Preconditions preconditions;

    Applies(Steps steps) {
        this.steps = steps;
        this.preconditions = new Preconditions(steps);
    }

    Applied apply(CallContext context, String tokenText) {
        long start = System.nanoTime();
        Objects.requireNonNull(context, "context");
        ProposalToken token = ProposalToken.parse(tokenText);
        Checked checked = checkKnown(context, token);
        if (checked == null) {
            checked = checkToken(context, token);
        }
        CallRecord record = checked.record();
        ClaimResult claim = steps.charges.claimCharged(record, new Claim(PrincipalRef.of(context.principal()), null, null,
                steps.outcomeWithin(checked.tool())), context, start);
        steps.known.forget(record.id()); // claimed now, or no longer pending
        if (claim.status() == ClaimResult.Status.CONFLICT) {
            throw preconditions.conflict(record, context, start);
        }
        if (claim.status() != ClaimResult.Status.CLAIMED) {
            throw lostClaim(claim, record.id());
        }
        return runClaimed(claim.record(), checked.tool(), checked.payload(), context, false, start);
    }

    /**
     * Apply's checks on a proposal this engine recorded, without reading it: the token's nonce, that it
     * is no step, the tool, the applier's rules, separation of duties and the stored payload against
     * today's schema. Its status and expiry are not checked here: the claim re-checks both by the
     * store's clock, and a lost claim reads the row to say why. Null when the proposal is not known
     * here or any check fails: the read path then checks again from the stored row, so every error is
     * the one (and in the order) a read would have given.
     */
    private Checked checkKnown(CallContext context, ProposalToken token) {
        CallRecord known = steps.known.get(token.callId());
        if (known == null || known.executionId() != null || !token.matches(known.tokenDigest())) {
            return null;
        }
        try {
            RegisteredTool tool = steps.preparation.tool(known.toolName());
            steps.preparation.authorize(context.principal(), tool);
            steps.duties.requireDistinctDecider(known, context.principal(), "applying its token");
            return new Checked(known, tool, storedPayload(steps, known, tool, context));
        } catch (RuntimeException refused) {
            return null;
        }
    }

    /**
     * Applies a pending step of a durable execution for {@code approver}: the same checks as a token
     * apply (status, expiry, the approver's rules, separation of duties, the stored payload against
     * today's schema), then the single-use claim and the stored payload's execution.
     */
    Applied applyStep(CallContext approver, String callId) {
        long start = System.nanoTime();
        Objects.requireNonNull(approver, "approver");
        CallStore.FoundCall found = steps.calls.findWithTime(callId)
                .filter(f -> f.record().executionId() != null && f.record().tokenDigest() != null)
                .orElseThrow(() -> new UnknownProposalException("No step proposal " + callId));
        CallRecord record = found.record();
        requirePending(record, found.storeTime());
        RegisteredTool tool = steps.preparation.tool(record.toolName());
        steps.preparation.authorize(approver.principal(), tool);
        steps.duties.requireDistinctDecider(record, approver.principal(), "approving it");
        JsonNode payload = storedPayload(steps, record, tool, approver);
        PrincipalRef actor = PrincipalRef.of(approver.principal());
        PrincipalRef decider = actor.equals(record.principal()) ? null : actor;
        ClaimResult claim = steps.charges.claimCharged(record, new Claim(actor, decider, null, steps.outcomeWithin(tool)),
                approver, start);
        if (claim.status() == ClaimResult.Status.CONFLICT) {
            throw preconditions.conflict(record, approver, start);
        }
        if (claim.status() != ClaimResult.Status.CLAIMED) {
            throw lostClaim(claim, record.id());
        }
        return runClaimed(claim.record(), tool, payload, approver, false, start);
    }

    PendingProposal inspect(CallContext context, String token) {
        Objects.requireNonNull(context, "context");
        return pendingView(checkTokenOnly(context, ProposalToken.parse(token)).record(), null);
    }

    /** A proposal, its tool and its stored payload, after every check apply makes before claiming. */
    private record Checked(CallRecord record, RegisteredTool tool, JsonNode payload) {
    }

    /** Apply's checks from the stored row, read with the store's time. */
    private Checked checkToken(CallContext context, ProposalToken token) {
        Checked checked = checkTokenOnly(context, token);
        return new Checked(checked.record(), checked.tool(), storedPayload(steps, checked.record(), checked.tool(), context));
    }

    /** The checks of {@link #checkToken} but the stored payload's (its payload is null). */
    private Checked checkTokenOnly(CallContext context, ProposalToken token) {
        CallStore.FoundCall found = steps.calls.findWithTime(token.callId()).filter(f -> f.record().tokenDigest() != null)
                .orElseThrow(() -> new UnknownProposalException("No proposal " + token.callId()));
        CallRecord record = found.record();
        if (!token.matches(record.tokenDigest())) {
            throw new InvalidTokenException("The token's nonce does not match proposal " + record.id());
        }
        if (record.executionId() != null) {
            throw new StepOfExecutionException(record.id(), record.executionId(), record.stepSeq());
        }
        requirePending(record, found.storeTime());
        RegisteredTool tool = steps.preparation.tool(record.toolName());
        steps.preparation.authorize(context.principal(), tool);
        steps.duties.requireDistinctDecider(record, context.principal(), "applying its token");
        return new Checked(record, tool, null);
    }

    /** Throws the lifecycle error that explains why {@code record} cannot be applied at {@code now}. */
    static void requirePending(CallRecord record, Instant now) {
        switch (record.status()) {
            case PROPOSED -> {
                if (!record.pendingAt(now)) {
                    throw expired(record);
                }
            }
            case EXPIRED -> throw expired(record);
            case APPLYING, APPLIED, REVERTED, FAILED, INTERRUPTED -> throw new TokenAlreadyUsedException("Proposal " + record.id()
                    + " was already applied" + (record.appliedBy() == null ? "" : " by " + record.appliedBy())
                    + "; a token works once");
            case REJECTED -> throw new ProposalClosedException("Proposal " + record.id() + " was rejected by an operator"
                    + (record.decisionReason() == null ? "" : ": " + record.decisionReason()));
            case SUPERSEDED -> throw new ProposalClosedException("Proposal " + record.id()
                    + " was replaced by an operator's edit: " + record.supersededBy());
            default -> throw new UnknownProposalException("No proposal " + record.id());
        }
    }

    private static TokenExpiredException expired(CallRecord record) {
        return new TokenExpiredException("Proposal " + record.id() + " expired at " + record.expiresAt() + "; propose again");
    }

    private RuntimeException lostClaim(ClaimResult claim, String id) {
        return switch (claim.status()) {
            case EXPIRED -> expired(claim.record());
            case NOT_FOUND -> new UnknownProposalException("No proposal " + id);
            default -> {
                try {
                    requirePending(claim.record(), steps.calls.now());
                } catch (RuntimeException specific) {
                    yield specific;
                }
                yield new TokenAlreadyUsedException("Proposal " + id + " was already applied; a token works once");
            }
        };
    }

    /**
     * The payload stored at propose time, re-validated against the tool's schema as it is now. For a
     * source's tool (whose definition can change under a pending proposal), its dry-run is asked again
     * what the call would do: if that is no longer what the proposal showed (the operation moved to
     * another path or server), the proposal is stale, and nothing runs.
     */
    static JsonNode storedPayload(Steps steps, CallRecord record, RegisteredTool tool, CallContext decider) {
        JsonNode payload = Json.parse(record.payloadJson());
        List<ValidationIssue> issues = tool.validate(payload);
        if (!issues.isEmpty()) {
            throw new StaleProposalException(tool.name(), issues);
        }
        if (tool.tool().dynamic() && tool.tool().hasDryRun() && record.summary() != null) {
            String now;
            try {
                ToolContext again = new ToolContext(record.id(), decider.principal(), record.tenantId(), record.sessionId(),
                        record.automationId(), decider.transport(), ToolContext.Phase.DRY_RUN);
                now = steps.settings.redactor().redactText(tool.dryRun(payload, again).summary());
            } catch (RuntimeException e) {
                throw new StaleProposalException(tool.name(), "The " + tool.name() + " proposal cannot be applied: "
                        + "the tool refuses its stored payload now (" + e.getMessage() + "); propose again",
                        List.of(ValidationIssue.at("", String.valueOf(e.getMessage()))));
            } catch (Exception e) {
                throw new StaleProposalException(tool.name(), "The " + tool.name() + " proposal cannot be applied: " + e,
                        List.of(ValidationIssue.at("", e.toString())));
            }
            if (!now.equals(record.summary())) {
                throw new StaleProposalException(tool.name(), "The " + tool.name() + " tool changed since this proposal "
                        + "was made: it showed \"" + record.summary() + "\" and would now do \"" + now + "\"; propose again",
                        List.of(ValidationIssue.at("", "the call changed since the proposal")));
            }
        }
        return payload;
    }

    /**
     * Executes a claimed proposal's stored payload as {@code executor}'s principal (with the way back to
     * its client) and records the outcome.
     */
    Applied runClaimed(CallRecord record, RegisteredTool tool, JsonNode payload, CallContext executor, boolean automatic,
                       long start) {
        PrincipalRef actor = PrincipalRef.of(executor.principal());
        preconditions.check(record, tool, payload, executor, start); // what was approved is what runs, or nothing
        ToolContext toolContext = Steps.toolContext(record, executor.principal(), executor.transport(), executor.channel());
        long toolStart = System.nanoTime();
        RegisteredTool.Output output;
        try {
            output = steps.runTool(tool, () -> tool.run(payload, toolContext));
        } catch (Throwable e) {
            throw steps.failures.failApplied(record, e, actor, toolStart, start, automatic ? null : record.createdAt());
        }
        JsonTruncator.Truncation safe = steps.hygiene.result(output.json());
        try {
            steps.calls.complete(record.id(), new Completion(CallStatus.APPLIED, Json.write(safe.value()), null,
                    Steps.millisSince(toolStart)));
        } catch (StoreUnavailableException e) {
            throw Failures.inDoubt(record, e);
        }
        steps.events.publishDecision(record, CallStatus.APPLIED, actor, start, automatic ? null : record.createdAt());
        List<FieldChange> diff = record.diffJson() == null ? List.of() : FieldDiff.fromJson(Json.parse(record.diffJson()));
        return new Applied(record.id(), record.toolName(), record.summary(), safe.value(), diff, actor, automatic,
                record.supersedes(), steps.hygiene.content(output.content()));
    }

    /** What an operator sees of a pending proposal; {@code blockedReason} says why this viewer may not decide. */
    static PendingProposal pendingView(CallRecord r, String blockedReason) {
        List<FieldChange> diff = r.diffJson() == null ? List.of() : FieldDiff.fromJson(Json.parse(r.diffJson()));
        return new PendingProposal(r.id(), r.toolName(), r.effect(), r.principal(), r.tenantId(), r.sessionId(), r.automationId(), r.summary(),
                Json.parse(r.payloadJson()), diff, r.createdAt(), r.expiresAt(), r.mode(), r.modeSource(), r.supersedes(),
                r.executionId(), r.stepSeq(), blockedReason);
    }
}
