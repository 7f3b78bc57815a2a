package dev.toolgate.gate;

import dev.toolgate.call.CallContext;
import dev.toolgate.call.DuplicateCallException;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.GateSettings;
import dev.toolgate.call.SeparationOfDutiesException;
import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.call.Turn;
import dev.toolgate.call.UnknownToolException;
import dev.toolgate.access.AccessDecision;
import dev.toolgate.access.Principal;
import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.access.Resolver;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.BudgetLimit;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.json.CanonicalJson;
import dev.toolgate.json.TextCap;
import dev.toolgate.policy.ModeCascade;
import dev.toolgate.policy.ModeResolution;
import dev.toolgate.policy.PolicyView;
import dev.toolgate.policy.ToolReview;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.PolicyStore;
import dev.toolgate.spi.StoreFault;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.tool.ClientChannel;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolContext;
import dev.toolgate.tool.ToolRegistry;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The parts every verb of the standard engine shares, and the steps they all take: find and
 * authorize a tool, check arguments, resolve the policy mode, meter, run tool code with its timeout,
 * and record a failure before it propagates.
 */
final class Steps implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StandardEngine.class);
    /** Who records first-seen schema baselines. */
    static final PrincipalRef SYSTEM = new PrincipalRef(PrincipalKind.SERVICE, "toolgate");
    /**
     * How long after a tool's timeout a claimed call's outcome may still arrive before the call reads
     * as interrupted: the runner answers at the timeout, and recording the outcome is one statement. A
     * tool on its caller's thread that ignores the deadline's interrupt can overrun it; its outcome,
     * arriving late, still replaces {@code interrupted}.
     */
    static final Duration OUTCOME_GRACE = Duration.ofSeconds(30);

    final ToolRegistry registry;
    final Resolver resolver;
    final ToolBudget budget;
    final CallStore calls;
    final PolicyStore policies;
    final GateSettings settings;
    final Events events;
    final Notices notices;
    final Hygiene hygiene;
    final Approvers approvers;
    final ToolRunner runner = new ToolRunner();
    /** The proposals this engine recorded recently, for apply's checks without a read (never their status). */
    final KnownProposals known = new KnownProposals();
    /** The drifts this engine has logged at INFO: each once, then at DEBUG (a line per call floods a log). */
    final FirstSeen loggedDrifts = new FirstSeen(10_000);

    Steps(EngineContext context) {
        this.registry = context.registry();
        this.resolver = context.resolver();
        this.budget = context.budget();
        this.calls = context.store().calls();
        this.policies = context.store().policies();
        this.settings = context.settings();
        this.notices = new Notices(context.notifiers(), context.noticeQueueCapacity());
        this.events = new Events(context.listeners(), notices);
        this.hygiene = new Hygiene(settings.redactor(), settings.resultLimitBytes());
        this.approvers = new Approvers(resolver, settings.approverRule());
    }

    /** A call that passed every check that changes nothing. */
    record Prepared(RegisteredTool tool, JsonNode arguments, String argumentsHash, ModeResolution mode) {
    }

    /** The registered tool named {@code name}. */
    RegisteredTool tool(String name) {
        return registry.find(name).orElseThrow(() -> new UnknownToolException(name));
    }

    /** Throws {@link ForbiddenException} naming the missing rules unless {@code principal} may use {@code tool}. */
    void authorize(Principal principal, RegisteredTool tool) {
        AccessDecision decision = resolver.decide(principal, tool);
        if (!decision.allowed()) {
            throw new ForbiddenException(decision.describe(tool.name()), tool.name(), decision.missingRules());
        }
    }

    /**
     * The checks that change nothing: tool, access, arguments (size, schema), the mode, and the turn's
     * duplicates; with a turn in the context, a call that passes is admitted into it and its caller
     * must {@linkplain Admissions#end end} it.
     */
    Prepared prepare(CallContext context, String toolName, JsonNode arguments) {
        Objects.requireNonNull(context, "context");
        RegisteredTool tool = tool(toolName);
        authorize(context.principal(), tool);
        JsonNode args = arguments == null || arguments.isMissingNode() ? JsonNodeFactory.instance.objectNode() : arguments;
        // no arguments ({}), the most common call of a read: canonical form and hash known in advance
        boolean none = args.isObject() && args.isEmpty();
        byte[] bytes = none ? null : canonicalBytes(tool, args);
        List<ValidationIssue> issues = tool.validate(args);
        if (!issues.isEmpty()) {
            throw new ToolValidationException(tool.name(), issues);
        }
        String hash = none ? NO_ARGUMENTS_HASH : CanonicalJson.sha256Hex(bytes);
        ModeResolution mode = resolveMode(tool, context.tenantId(), context.automationId());
        // the last check: a call admitted into the turn ends it (Calls.endInTurn), whatever happens next
        if (context.turn() != null && !Admissions.begin(context.turn(), tool.name(), hash)) {
            throw new DuplicateCallException(tool.name());
        }
        return new Prepared(tool, args, hash, mode);
    }

    /** The hash of no arguments: SHA-256 of their canonical form, {@code {}}. */
    static final String NO_ARGUMENTS_HASH = CanonicalJson.sha256Hex(CanonicalJson.canonicalize(JsonNodeFactory.instance.objectNode())
            .getBytes(StandardCharsets.UTF_8));

    /** The canonical UTF-8 form of {@code args}, within the size limit. */
    private byte[] canonicalBytes(RegisteredTool tool, JsonNode args) {
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
        return bytes;
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
            logDrift(tool, tenantKey(tenantId), mode);
        }
        return mode;
    }

    private void logDrift(RegisteredTool tool, String tenant, ModeResolution mode) {
        if (loggedDrifts.first(tenant, tool.name(), tool.schemaFingerprint())) {
            LOG.info("Tool {} drifted from the schema reviewed for tenant '{}'; mode {} until an operator re-confirms"
                    + " (logged once per tenant and schema)", tool.name(), tenant, mode.mode().wireName());
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("Tool {} still drifted for tenant '{}'; mode {}", tool.name(), tenant, mode.mode().wireName());
        }
    }

    /**
     * Under separation of duties, refuses {@code actor} deciding on (applying, approving, editing)
     * a proposal they made themselves.
     */
    void requireDistinctDecider(CallRecord proposal, Principal actor, String action) {
        String reason = sameDeciderReason(proposal, actor);
        if (reason != null) {
            throw new SeparationOfDutiesException(reason + " (" + action + " refused)", proposal.toolName());
        }
    }

    /** Why {@code viewer} may not decide on {@code proposal} under separation of duties, or null. */
    String sameDeciderReason(CallRecord proposal, Principal viewer) {
        if (!settings.requireDistinctApprover() || !proposal.principal().equals(PrincipalRef.of(viewer))) {
            return null;
        }
        return "Separation of duties: " + proposal.principal() + " proposed " + proposal.toolName() + " (call "
                + proposal.id() + "); another operator must apply or approve it";
    }

    /** A call's record before its outcome: who, what, where, the policy, the hash, the admission time. */
    CallRecord.Builder draft(CallContext context, Prepared call, String id, Instant admittedAt) {
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
    Instant admit(Principal principal) {
        BudgetCharge charge = charge(principal);
        return charge == null ? null : calls.admit(charge);
    }

    /**
     * Claims a proposal for {@code decider}, charging the decider's budget; a budget refusal is told to
     * the listeners before it propagates.
     */
    CallStore.ClaimResult claimCharged(CallRecord record, CallStore.Claim claim, CallContext decider, long start) {
        try {
            return calls.claim(record, claim, charge(decider.principal()));
        } catch (BudgetExceededException e) {
            events.refused(record.toolName(), record.effect(), decider, record.mode(), record.modeSource(), start);
            throw e;
        }
    }

    /** What one call of {@code principal} costs, or null when its budget is unlimited. */
    BudgetCharge charge(Principal principal) {
        BudgetLimit limit = budget.limitFor(principal);
        return limit == null ? null : new BudgetCharge(principal.key(), limit);
    }

    /**
     * Records a call whose dry-run or execution rejected the arguments, with its issues (redacted) as
     * the result, so a replay can raise the same feedback; the exception names the tool.
     */
    ToolValidationException invalid(CallRecord.Builder draft, Prepared call, ToolValidationException e, long toolStart,
                                    long start) {
        ToolValidationException named = e.forTool(call.tool().name());
        tools.jackson.databind.node.ArrayNode issues = tools.jackson.databind.node.JsonNodeFactory.instance.arrayNode();
        for (ValidationIssue issue : named.issues()) {
            issues.addObject().put("path", issue.path())
                    .put("message", TextCap.forMessage(settings.redactor().redactText(issue.message())));
        }
        CallRecord record = calls.record(draft.status(CallStatus.INVALID)
                .error(TextCap.forMessage(settings.redactor().redactText(named.getMessage())))
                .resultJson(dev.toolgate.json.Json.write(issues)).durationMillis(millisSince(toolStart)).build());
        events.publish(record, CallStatus.INVALID, record.principal(), start);
        return named.recordedAs(record.id());
    }

    /**
     * Records a call whose tool code failed before anything was applied, then returns the exception
     * to throw; an {@link Error} is recorded and then rethrown as it is.
     */
    ToolExecutionException fail(CallRecord.Builder draft, Prepared call, Throwable e, long toolStart, long start) {
        String message = failureMessage(call.tool().name(), e);
        CallRecord record;
        try {
            record = calls.record(draft.status(CallStatus.FAILED).error(message).durationMillis(millisSince(toolStart)).build());
        } catch (RuntimeException | Error recording) {
            throw unrecorded(e, recording);
        }
        return failed(record, e, message, record.principal(), start, null);
    }

    /**
     * Records the failure of a claimed proposal's execution, then returns the exception to throw; an
     * {@link Error} is recorded and then rethrown as it is.
     */
    ToolExecutionException failApplied(CallRecord record, Throwable e, PrincipalRef actor, long toolStart, long start,
                                       Instant proposedAt) {
        String message = failureMessage(record.toolName(), e);
        try {
            calls.complete(record.id(), new CallStore.Completion(CallStatus.FAILED, null, message, millisSince(toolStart)));
        } catch (StoreUnavailableException recording) {
            throw unrecorded(e, inDoubt(record, recording));
        } catch (RuntimeException | Error recording) {
            throw unrecorded(e, recording);
        }
        return failed(record, e, message, actor, start, proposedAt);
    }

    String failureMessage(String toolName, Throwable e) {
        return e instanceof ToolRunner.Timeout ? toolName + " " + e.getMessage() : hygiene.error(e);
    }

    private ToolExecutionException failed(CallRecord record, Throwable e, String message, PrincipalRef actor, long start,
                                          Instant proposedAt) {
        LOG.warn("Tool {} failed (call {}): {}", record.toolName(), record.id(), TextCap.forLog(message));
        if (LOG.isDebugEnabled()) { // the stack trace, with every message in it redacted as the audit's is
            LOG.debug("Failure of call {}", record.id(), settings.redactor().redactThrowable(e));
        }
        events.publishDecision(record, CallStatus.FAILED, actor, start, proposedAt);
        if (e instanceof Error error) {
            throw error;
        }
        if (e instanceof SourceUnavailableException unavailable) {
            return new SourceUnavailableException(record.id(), unavailable.toolName(), unavailable.sourceId(), message);
        }
        return new ToolExecutionException(record.id(), record.toolName(), message, e instanceof ToolRunner.Timeout);
    }

    /** The tool's failure could not be recorded either: both travel, the tool's first. */
    /**
     * A claimed call whose tool ran but whose outcome the store could not record: in doubt (the sweep
     * marks it {@code interrupted} for an operator), never to be repeated by the caller.
     */
    static StoreUnavailableException inDoubt(CallRecord record, StoreUnavailableException recording) {
        return new StoreUnavailableException("Call " + record.id() + " of " + record.toolName()
                + " was claimed and its tool ran, but its outcome could not be recorded (" + recording.getMessage()
                + "): it is in doubt until an operator resolves it, and it is never run again",
                recording, StoreFault.IN_DOUBT, null);
    }

    private static RuntimeException unrecorded(Throwable toolFailure, Throwable recording) {
        toolFailure.addSuppressed(recording);
        if (toolFailure instanceof Error error) {
            throw error;
        }
        if (recording instanceof Error error) {
            throw error;
        }
        return (RuntimeException) recording;
    }

    /** Tool code's context for a call that has not been claimed: a dry-run, or a read. */
    static ToolContext toolContext(String callId, CallContext context, ToolContext.Phase phase) {
        return new ToolContext(callId, context.principal(), context.tenantId(), context.sessionId(), context.automationId(),
                context.transport(), phase, context.channel());
    }

    /**
     * The context of a claimed proposal's execution: the proposal's setting, the executor's rights, and
     * the way back to the executor's client.
     */
    static ToolContext toolContext(CallRecord record, Principal executor, String transport, ClientChannel channel) {
        return new ToolContext(record.id(), executor, record.tenantId(), record.sessionId(), record.automationId(),
                transport, ToolContext.Phase.EXECUTE, channel);
    }

    /** Runs code of {@code tool} with its timeout, on the thread the tool asked for if the host allows it. */
    <T> T runTool(RegisteredTool tool, Callable<T> work) throws Exception {
        return runner.run(work, timeout(tool), tool.onCallerThread() && settings.toolsOnCallerThread());
    }

    Duration timeout(RegisteredTool tool) {
        return tool.timeout().orElse(settings.executionTimeout());
    }

    /** How long after its claim a call's outcome is due: the tool's timeout plus {@link #OUTCOME_GRACE}. */
    Duration outcomeWithin(RegisteredTool tool) {
        return timeout(tool).plus(OUTCOME_GRACE);
    }

    static long millisSince(long nanos) {
        return Duration.ofNanos(System.nanoTime() - nanos).toMillis();
    }

    static String tenantKey(String tenantId) {
        return tenantId == null ? "" : tenantId;
    }

    static String newId() {
        return CallIds.next();
    }

    @Override
    public void close() {
        try {
            runner.close();
        } finally {
            notices.close();
        }
    }
}
