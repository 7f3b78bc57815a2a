package dev.toolgate.gate;

import dev.toolgate.access.AccessDecision;
import dev.toolgate.access.Principal;
import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.access.Resolver;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetLimit;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.gate.Applied;
import dev.toolgate.gate.Approval;
import dev.toolgate.gate.CallContext;
import dev.toolgate.gate.CallResult;
import dev.toolgate.gate.Denied;
import dev.toolgate.gate.DuplicateCallException;
import dev.toolgate.gate.EngineContext;
import dev.toolgate.gate.Executed;
import dev.toolgate.gate.ForbiddenException;
import dev.toolgate.gate.GateSettings;
import dev.toolgate.gate.InboxResult;
import dev.toolgate.gate.InvalidTokenException;
import dev.toolgate.gate.PendingLimitException;
import dev.toolgate.gate.PendingProposal;
import dev.toolgate.gate.PolicyDeniedException;
import dev.toolgate.gate.Proposal;
import dev.toolgate.gate.ProposalClosedException;
import dev.toolgate.gate.ProposalToken;
import dev.toolgate.gate.ProposeApplyEngine;
import dev.toolgate.gate.StaleProposalException;
import dev.toolgate.gate.TokenAlreadyUsedException;
import dev.toolgate.gate.TokenExpiredException;
import dev.toolgate.gate.ToolExecutionException;
import dev.toolgate.gate.UnknownProposalException;
import dev.toolgate.gate.UnknownToolException;
import dev.toolgate.json.CanonicalJson;
import dev.toolgate.json.FieldChange;
import dev.toolgate.json.FieldDiff;
import dev.toolgate.json.Json;
import dev.toolgate.json.JsonTruncator;
import dev.toolgate.policy.Disposition;
import dev.toolgate.policy.Dispositions;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeCascade;
import dev.toolgate.policy.ModeOverride;
import dev.toolgate.policy.ModeResolution;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.policy.PolicyView;
import dev.toolgate.policy.ToolReview;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.CallStore.Claim;
import dev.toolgate.spi.CallStore.ClaimResult;
import dev.toolgate.spi.CallStore.Closure;
import dev.toolgate.spi.CallStore.Completion;
import dev.toolgate.spi.CallStore.ProposeResult;
import dev.toolgate.spi.PolicyStore;
import dev.toolgate.tool.DryRunResult;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolContext;
import dev.toolgate.tool.ToolRegistry;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The standard gate. Every path follows the same order: checks that change nothing (tool, access,
 * arguments, duplicate, policy, token); then the admission against the budget; then tool code; then
 * one store write that records the call with its outcome (or the proposal), before anything is
 * returned. Applying is one atomic claim, the execution of the stored payload, and its outcome.
 */
public final class StandardEngine implements ProposeApplyEngine {

    private static final Logger LOG = LoggerFactory.getLogger(StandardEngine.class);
    /** Who records first-seen schema baselines. */
    static final PrincipalRef SYSTEM = new PrincipalRef(PrincipalKind.SERVICE, "toolgate");
    private static final int MAX_INBOX = 1_000;

    private final ToolRegistry registry;
    private final Resolver resolver;
    private final ToolBudget budget;
    private final CallStore calls;
    private final PolicyStore policies;
    private final GateSettings settings;
    private final Events events;
    private final Hygiene hygiene;
    private final ToolRunner runner = new ToolRunner();
    private final SecureRandom random = new SecureRandom();
    private final Approvers approvers;

    public StandardEngine(EngineContext context) {
        this.registry = context.registry();
        this.resolver = context.resolver();
        this.budget = context.budget();
        this.calls = context.store().calls();
        this.policies = context.store().policies();
        this.settings = context.settings();
        this.events = new Events(context.listeners());
        this.hygiene = new Hygiene(settings.redactor(), settings.resultLimitBytes());
        this.approvers = new Approvers(resolver, settings.approverRule());
    }

    /** A call that passed every check that changes nothing. */
    private record Prepared(RegisteredTool tool, JsonNode arguments, String argumentsHash, ModeResolution mode) {
    }

    // ------------------------------------------------------------------------------------------ calls

    @Override
    public CallResult call(CallContext context, String toolName, JsonNode arguments) {
        long start = System.nanoTime();
        Prepared call = prepare(context, toolName, arguments);
        Disposition disposition = Dispositions.decide(call.tool().effect(), call.mode(), context.permissionMode());
        return switch (disposition) {
            case DENY -> deny(context, call, start);
            case RUN -> execute(context, call, start);
            case PROPOSE_AND_WAIT -> propose(context, call, newId(), null, start);
            case PROPOSE_AND_APPLY -> applyAutomatically(context, call, propose(context, call, newId(), null, start), start);
        };
    }

    @Override
    public Proposal propose(CallContext context, String toolName, JsonNode arguments) {
        long start = System.nanoTime();
        Prepared call = prepare(context, toolName, arguments);
        if (call.mode().mode() == Mode.DENY) {
            throw new PolicyDeniedException(deny(context, call, start));
        }
        return propose(context, call, newId(), null, start);
    }

    private Prepared prepare(CallContext context, String toolName, JsonNode arguments) {
        Objects.requireNonNull(context, "context");
        RegisteredTool tool = registry.find(toolName).orElseThrow(() -> new UnknownToolException(toolName));
        authorize(context.principal(), tool);
        JsonNode args = arguments == null || arguments.isMissingNode() ? JsonNodeFactory.instance.objectNode() : arguments;
        String canonical;
        try {
            canonical = CanonicalJson.canonicalize(args);
        } catch (IllegalArgumentException e) {
            throw new ToolValidationException(tool.name(), List.of(ValidationIssue.at("", e.getMessage())));
        }
        byte[] bytes = canonical.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > settings.maxArgumentBytes()) {
            throw new ToolValidationException(tool.name(), List.of(ValidationIssue.at("", "the arguments are "
                    + bytes.length + " bytes; the limit is " + settings.maxArgumentBytes())));
        }
        List<ValidationIssue> issues = tool.validate(args);
        if (!issues.isEmpty()) {
            throw new ToolValidationException(tool.name(), issues);
        }
        String hash = CanonicalJson.sha256Hex(bytes);
        if (context.turn() != null && context.turn().succeeded(tool.name(), hash)) {
            throw new DuplicateCallException(tool.name());
        }
        return new Prepared(tool, args, hash, resolveMode(tool, context.tenantId(), context.automationId()));
    }

    private ModeResolution resolveMode(RegisteredTool tool, String tenantId, String automationId) {
        PolicyView view = policies.view(tool.name(), tenantId, automationId);
        if (tool.tool().dynamic() && view.review().isEmpty()) {
            ToolReview baseline = policies.reviewIfAbsent(
                    new ToolReview(tenantKey(tenantId), tool.name(), tool.schemaFingerprint(), SYSTEM, null));
            view = new PolicyView(view.automationOverride(), view.tenantOverride(), Optional.of(baseline));
        }
        ModeResolution mode = ModeCascade.resolve(tool.effect(), view, tool.schemaFingerprint());
        if (mode.drifted()) {
            LOG.info("Tool {} drifted from the schema reviewed for tenant '{}'; mode {} until an operator re-confirms",
                    tool.name(), tenantKey(tenantId), mode.mode().wireName());
        }
        return mode;
    }

    private Denied deny(CallContext context, Prepared call, long start) {
        CallRecord record = calls.record(draft(context, call, newId(), admit(context.principal()))
                .status(CallStatus.DENIED).decisionReason("policy").build());
        events.publish(record, CallStatus.DENIED, record.principal(), start);
        return new Denied(record.id(), record.toolName(), "policy", call.mode());
    }

    private Executed execute(CallContext context, Prepared call, long start) {
        String id = newId();
        CallRecord.Builder draft = draft(context, call, id, admit(context.principal()));
        ToolContext toolContext = toolContext(id, context, ToolContext.Phase.EXECUTE);
        long toolStart = System.nanoTime();
        JsonNode result;
        try {
            result = runner.run(() -> call.tool().execute(call.arguments(), toolContext), timeout(call.tool()));
        } catch (ToolValidationException e) {
            throw invalid(draft, call, e, toolStart, start);
        } catch (Exception e) {
            throw fail(draft, call, e, toolStart, start);
        }
        JsonTruncator.Truncation safe = hygiene.result(result);
        CallRecord record = calls.record(draft.status(CallStatus.EXECUTED).resultJson(Json.write(safe.value()))
                .durationMillis(millisSince(toolStart)).build());
        events.publish(record, CallStatus.EXECUTED, record.principal(), start);
        rememberSuccess(context, call);
        return new Executed(record.id(), record.toolName(), safe.value(), safe.truncated());
    }

    private Proposal propose(CallContext context, Prepared call, String id, String supersedes, long start) {
        if (context.sessionId() != null && calls.countPending(context.sessionId()) >= settings.maxPendingPerSession()) {
            throw pendingLimit(context.sessionId());
        }
        CallRecord.Builder proposal = draft(context, call, id, admit(context.principal())).supersedes(supersedes);
        ToolContext toolContext = toolContext(id, context, ToolContext.Phase.DRY_RUN);
        long toolStart = System.nanoTime();
        DryRunResult preview;
        try {
            preview = runner.run(() -> call.tool().dryRun(call.arguments(), toolContext), timeout(call.tool()));
        } catch (ToolValidationException e) {
            throw invalid(proposal, call, e, toolStart, start);
        } catch (Exception e) {
            throw fail(proposal, call, e, toolStart, start);
        }
        ProposalToken token = ProposalToken.generate(id, random);
        String summary = settings.redactor().redactText(preview.summary());
        List<FieldChange> diff = hygiene.diff(preview.diff());
        ProposeResult proposed = calls.propose(proposal.status(CallStatus.PROPOSED).summary(summary)
                        .payloadJson(Json.write(preview.payload()))
                        .diffJson(diff.isEmpty() ? null : Json.write(FieldDiff.toJson(diff)))
                        .tokenDigest(token.nonceDigestHex()).durationMillis(millisSince(toolStart)).build(),
                settings.ttlFor(context.sessionKind()), settings.maxPendingPerSession());
        if (proposed.status() == ProposeResult.Status.PENDING_LIMIT) {
            CallRecord refused = calls.record(proposal.status(CallStatus.DENIED).summary(null).payloadJson(null).diffJson(null)
                    .tokenDigest(null).decisionReason("pending_limit").build());
            events.publish(refused, CallStatus.DENIED, refused.principal(), start);
            throw pendingLimit(context.sessionId());
        }
        CallRecord record = proposed.record();
        events.publish(record, CallStatus.PROPOSED, record.principal(), start);
        rememberSuccess(context, call);
        return new Proposal(record.id(), record.toolName(), record.effect(), token.value(), summary, preview.payload(),
                diff, record.expiresAt(), call.mode());
    }

    private Applied applyAutomatically(CallContext context, Prepared call, Proposal proposal, long start) {
        String reason = call.mode().mode() == Mode.ALLOW ? "allow_policy" : "auto_mode";
        // the call was admitted when it was proposed: applying it in the same step is not charged again
        ClaimResult claim = calls.claim(proposal.callId(), new Claim(PrincipalRef.of(context.principal()), null, reason, outcomeWithin(call.tool())), null);
        if (claim.status() != ClaimResult.Status.CLAIMED) {
            throw new IllegalStateException("a proposal just made could not be claimed: " + claim.status());
        }
        return runClaimed(claim.record(), call.tool(), proposal.payload(), context.principal(), context.transport(), true, start);
    }

    // ------------------------------------------------------------------------------------------ apply

    @Override
    public Applied apply(CallContext context, String token) {
        long start = System.nanoTime();
        Checked checked = checkToken(context, token);
        CallRecord record = checked.record();
        JsonNode payload = storedPayload(record, checked.tool());
        ClaimResult claim = calls.claim(record.id(), new Claim(PrincipalRef.of(context.principal()), null, null, outcomeWithin(checked.tool())),
                charge(context.principal()));
        if (claim.status() != ClaimResult.Status.CLAIMED) {
            throw lostClaim(claim, record.id());
        }
        return runClaimed(claim.record(), checked.tool(), payload, context.principal(), context.transport(), false, start);
    }

    @Override
    public PendingProposal inspect(CallContext context, String token) {
        return pendingView(checkToken(context, token).record());
    }

    /** A proposal and its tool, after every check apply makes before claiming. */
    private record Checked(CallRecord record, RegisteredTool tool) {
    }

    private Checked checkToken(CallContext context, String tokenText) {
        Objects.requireNonNull(context, "context");
        ProposalToken token = ProposalToken.parse(tokenText);
        CallRecord record = calls.find(token.callId()).filter(r -> r.tokenDigest() != null)
                .orElseThrow(() -> new UnknownProposalException("No proposal " + token.callId()));
        if (!token.matches(record.tokenDigest())) {
            throw new InvalidTokenException("The token's nonce does not match proposal " + record.id());
        }
        requirePending(record, calls.now());
        RegisteredTool tool = registry.find(record.toolName()).orElseThrow(() -> new UnknownToolException(record.toolName()));
        authorize(context.principal(), tool);
        return new Checked(record, tool);
    }

    /** Throws the lifecycle error that explains why {@code record} cannot be applied at {@code now}. */
    private static void requirePending(CallRecord record, Instant now) {
        switch (record.status()) {
            case PROPOSED -> {
                if (!record.pendingAt(now)) {
                    throw expired(record);
                }
            }
            case EXPIRED -> throw expired(record);
            case APPLYING, APPLIED, FAILED, INTERRUPTED -> throw new TokenAlreadyUsedException("Proposal " + record.id() + " was already applied"
                    + (record.appliedBy() == null ? "" : " by " + record.appliedBy()) + "; a token works once");
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
                    requirePending(claim.record(), calls.now());
                } catch (RuntimeException specific) {
                    yield specific;
                }
                yield new TokenAlreadyUsedException("Proposal " + id + " was already applied; a token works once");
            }
        };
    }

    private JsonNode storedPayload(CallRecord record, RegisteredTool tool) {
        JsonNode payload = Json.parse(record.payloadJson());
        List<ValidationIssue> issues = tool.validate(payload);
        if (!issues.isEmpty()) {
            throw new StaleProposalException(tool.name(), issues);
        }
        return payload;
    }

    /** Executes a claimed proposal's stored payload as {@code executor} and records the outcome. */
    private Applied runClaimed(CallRecord record, RegisteredTool tool, JsonNode payload, Principal executor, String transport,
                               boolean automatic, long start) {
        PrincipalRef actor = PrincipalRef.of(executor);
        ToolContext toolContext = toolContext(record, executor, transport);
        long toolStart = System.nanoTime();
        JsonNode result;
        try {
            result = runner.run(() -> tool.execute(payload, toolContext), timeout(tool));
        } catch (Exception e) {
            throw failApplied(record, e, actor, toolStart, start);
        }
        JsonTruncator.Truncation safe = hygiene.result(result);
        calls.complete(record.id(), new Completion(CallStatus.APPLIED, Json.write(safe.value()), null, millisSince(toolStart)));
        events.publish(record, CallStatus.APPLIED, actor, start);
        List<FieldChange> diff = record.diffJson() == null ? List.of() : FieldDiff.fromJson(Json.parse(record.diffJson()));
        return new Applied(record.id(), record.toolName(), record.summary(), safe.value(), diff, actor, automatic,
                record.supersedes());
    }

    // ------------------------------------------------------------------------------------------ inbox

    @Override
    public InboxResult approve(CallContext approver, String callId, Approval approval) {
        long start = System.nanoTime();
        Objects.requireNonNull(approval, "approval");
        approvers.require(approver);
        CallRecord record = proposalFor(approver, callId);
        if (!record.pendingAt(calls.now())) {
            return notPending(record);
        }
        if (approval.always()) {
            scopeId(approval.scope(), record);
        }
        RegisteredTool tool = registry.find(record.toolName()).orElseThrow(() -> new UnknownToolException(record.toolName()));
        authorize(approver.principal(), tool);
        JsonNode payload = storedPayload(record, tool);
        PrincipalRef actor = PrincipalRef.of(approver.principal());
        ClaimResult claim = calls.claim(record.id(), new Claim(actor, actor, approval.reason(), outcomeWithin(tool)), charge(approver.principal()));
        if (claim.status() != ClaimResult.Status.CLAIMED) {
            return claim.record() == null ? notPending(record) : notPending(claim.record());
        }
        if (approval.always()) {
            allowFromNowOn(approval.scope(), record, tool, actor);
        }
        return new InboxResult.Approved(record.id(),
                runClaimed(claim.record(), tool, payload, approver.principal(), approver.transport(), false, start));
    }

    @Override
    public InboxResult reject(CallContext approver, String callId, String reason) {
        long start = System.nanoTime();
        approvers.require(approver);
        CallRecord record = proposalFor(approver, callId);
        PrincipalRef actor = PrincipalRef.of(approver.principal());
        if (!calls.close(record.id(), new Closure(CallStatus.REJECTED, actor, reason, null))) {
            return notPending(calls.find(record.id()).orElse(record));
        }
        events.publish(record, CallStatus.REJECTED, actor, start);
        return new InboxResult.Rejected(record.id(), reason);
    }

    @Override
    public InboxResult edit(CallContext approver, String callId, JsonNode arguments) {
        long start = System.nanoTime();
        approvers.require(approver);
        CallRecord record = proposalFor(approver, callId);
        if (!record.pendingAt(calls.now())) {
            return notPending(record);
        }
        CallContext editor = new CallContext(approver.principal(), record.tenantId(), record.sessionId(), record.automationId(),
                approver.transport(), PermissionMode.APPROVE, approver.sessionKind(), null);
        Prepared call = prepare(editor, record.toolName(), arguments);
        String replacementId = newId();
        PrincipalRef actor = PrincipalRef.of(approver.principal());
        if (!calls.close(record.id(), new Closure(CallStatus.SUPERSEDED, actor, "edited by operator", replacementId))) {
            return notPending(calls.find(record.id()).orElse(record));
        }
        events.publish(record, CallStatus.SUPERSEDED, actor, start);
        CallResult replacement = call.mode().mode() == Mode.DENY
                ? deny(editor, call, start)
                : propose(editor, call, replacementId, record.id(), start);
        return new InboxResult.Edited(record.id(), replacement);
    }

    @Override
    public List<PendingProposal> pending(CallContext viewer, String sessionId) {
        Objects.requireNonNull(viewer, "viewer");
        CallQuery query = CallQuery.latest(MAX_INBOX).status(CallStatus.PROPOSED);
        if (approvers.isApprover(viewer.principal())) {
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
        Instant now = calls.now();
        return calls.query(query).stream()
                .filter(r -> Objects.equals(r.tenantId(), viewer.tenantId()) && r.pendingAt(now))
                .map(StandardEngine::pendingView)
                .toList();
    }

    @Override
    public void confirmSchema(CallContext approver, String toolName) {
        approvers.require(approver);
        RegisteredTool tool = registry.find(toolName).orElseThrow(() -> new UnknownToolException(toolName));
        authorize(approver.principal(), tool);
        policies.putReview(new ToolReview(tenantKey(approver.tenantId()), tool.name(), tool.schemaFingerprint(),
                PrincipalRef.of(approver.principal()), null));
    }

    @Override
    public int expireDue() {
        int expired = calls.expireDue();
        if (expired > 0) {
            LOG.debug("Expired {} proposal(s)", expired);
        }
        return expired;
    }

    @Override
    public void close() {
        runner.close();
    }

    /** A proposal the approver's tenant may decide on; other tenants' proposals do not exist for them. */
    private CallRecord proposalFor(CallContext approver, String callId) {
        return calls.find(callId)
                .filter(r -> r.tokenDigest() != null && Objects.equals(r.tenantId(), approver.tenantId()))
                .orElseThrow(() -> new UnknownProposalException("No proposal " + callId));
    }

    private InboxResult.NotPending notPending(CallRecord record) {
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
        policies.putOverride(new ModeOverride(scope, scopeId(scope, record), tool.name(), Mode.ALLOW, actor, null));
        policies.putReview(new ToolReview(tenantKey(record.tenantId()), tool.name(), tool.schemaFingerprint(), actor, null));
    }

    private static PendingProposal pendingView(CallRecord r) {
        List<FieldChange> diff = r.diffJson() == null ? List.of() : FieldDiff.fromJson(Json.parse(r.diffJson()));
        return new PendingProposal(r.id(), r.toolName(), r.effect(), r.principal(), r.tenantId(), r.sessionId(), r.summary(),
                Json.parse(r.payloadJson()), diff, r.createdAt(), r.expiresAt(), r.mode(), r.modeSource(), r.supersedes());
    }

    // ------------------------------------------------------------------------------------------ shared steps

    private void authorize(Principal principal, RegisteredTool tool) {
        AccessDecision decision = resolver.decide(principal, tool);
        if (!decision.allowed()) {
            throw new ForbiddenException(decision.describe(tool.name()), tool.name(), decision.missingRules());
        }
    }

    /** A call's record before its outcome: who, what, where, the policy, the hash, the admission time. */
    private CallRecord.Builder draft(CallContext context, Prepared call, String id, Instant admittedAt) {
        return CallRecord.builder()
                .id(id)
                .toolName(call.tool().name())
                .effect(call.tool().effect())
                .principal(PrincipalRef.of(context.principal()))
                .tenantId(context.tenantId())
                .sessionId(context.sessionId())
                .automationId(context.automationId())
                .transport(context.transport())
                .mode(call.mode().mode())
                .modeSource(call.mode().source())
                .argumentsHash(call.argumentsHash())
                .createdAt(admittedAt);
    }

    /** Meters one call of {@code principal}; the admission time, or null when its budget is unlimited. */
    private Instant admit(Principal principal) {
        BudgetCharge charge = charge(principal);
        return charge == null ? null : calls.admit(charge);
    }

    private BudgetCharge charge(Principal principal) {
        BudgetLimit limit = budget.limitFor(principal);
        return limit == null ? null : new BudgetCharge(principal.key(), limit);
    }

    private ToolValidationException invalid(CallRecord.Builder draft, Prepared call, ToolValidationException e, long toolStart,
                                            long start) {
        ToolValidationException named = e.forTool(call.tool().name());
        CallRecord record = calls.record(draft.status(CallStatus.INVALID).error(settings.redactor().redactText(named.getMessage()))
                .durationMillis(millisSince(toolStart)).build());
        events.publish(record, CallStatus.INVALID, record.principal(), start);
        return named;
    }

    /** Records a call whose tool code failed before anything was applied. */
    private ToolExecutionException fail(CallRecord.Builder draft, Prepared call, Exception e, long toolStart, long start) {
        String message = failureMessage(call.tool().name(), e);
        CallRecord record = calls.record(draft.status(CallStatus.FAILED).error(message).durationMillis(millisSince(toolStart)).build());
        return failed(record, e, message, record.principal(), start);
    }

    /** Records the failure of an applied proposal's execution. */
    private ToolExecutionException failApplied(CallRecord record, Exception e, PrincipalRef actor, long toolStart, long start) {
        String message = failureMessage(record.toolName(), e);
        calls.complete(record.id(), new Completion(CallStatus.FAILED, null, message, millisSince(toolStart)));
        return failed(record, e, message, actor, start);
    }

    private String failureMessage(String toolName, Exception e) {
        return e instanceof ToolRunner.Timeout ? toolName + " " + e.getMessage() : hygiene.error(e);
    }

    private ToolExecutionException failed(CallRecord record, Exception e, String message, PrincipalRef actor, long start) {
        LOG.warn("Tool {} failed (call {}): {}", record.toolName(), record.id(), message);
        LOG.debug("Failure of call {}", record.id(), e);
        events.publish(record, CallStatus.FAILED, actor, start);
        return new ToolExecutionException(record.id(), record.toolName(), message, e instanceof ToolRunner.Timeout);
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

    private static ToolContext toolContext(String callId, CallContext context, ToolContext.Phase phase) {
        return new ToolContext(callId, context.principal(), context.tenantId(), context.sessionId(), context.automationId(),
                context.transport(), phase);
    }

    /** The context of an applied proposal's execution: the proposal's setting, the executor's rights. */
    private static ToolContext toolContext(CallRecord record, Principal executor, String transport) {
        return new ToolContext(record.id(), executor, record.tenantId(), record.sessionId(), record.automationId(),
                transport, ToolContext.Phase.EXECUTE);
    }

    private Duration outcomeWithin(RegisteredTool tool) {
        return timeout(tool).plus(Duration.ofSeconds(30));
    }

    private Duration timeout(RegisteredTool tool) {
        return tool.timeout().orElse(settings.executionTimeout());
    }

    private static long millisSince(long nanos) {
        return Duration.ofNanos(System.nanoTime() - nanos).toMillis();
    }

    private static String tenantKey(String tenantId) {
        return tenantId == null ? "" : tenantId;
    }

    private static String newId() {
        return UUID.randomUUID().toString();
    }
}
