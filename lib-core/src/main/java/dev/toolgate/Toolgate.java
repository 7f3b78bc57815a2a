package dev.toolgate;

import dev.toolgate.access.Guarded;
import dev.toolgate.access.Principal;
import dev.toolgate.access.Resolver;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.call.Applied;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallPreview;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Freshness;
import dev.toolgate.call.GateSettings;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.call.Proposal;
import dev.toolgate.gate.ProposeApplyEngine;
import dev.toolgate.conversation.Conversations;
import dev.toolgate.execution.Executions;
import dev.toolgate.call.PurgeResult;
import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.call.UnknownToolException;
import dev.toolgate.source.SourceCatalog;
import dev.toolgate.source.SourceStatus;
import dev.toolgate.call.Retention;
import dev.toolgate.call.SweepResult;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeCascade;
import dev.toolgate.policy.ModeOverride;
import dev.toolgate.policy.ModeResolution;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolDescriptor;
import dev.toolgate.tool.ToolRegistry;
import dev.toolgate.tool.ToolValidationException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import tools.jackson.databind.JsonNode;

/**
 * The one place a host sends its model's tool calls. Toolgate decides which tools a principal sees,
 * runs read tools directly, turns every mutation into a dry-run proposal that runs only after consent
 * (a single-use token, an operator's approval, or a policy's), meters each principal's calls across
 * every instance sharing the store, and records every call in an audit trail with no secrets in it.
 *
 * <pre>{@code
 * Toolgate gate = Toolgate.builder().build();          // plugins and storage found on the classpath
 * CallContext ctx = CallContext.of(Principal.user("carol", "incident.incident.manage")).withSession("c-42");
 * CallResult result = gate.call(ctx, "incident.create", "{\"title\":\"DB down\",\"systemId\":\"db\"}");
 * if (result instanceof Proposal p) {                   // show p.summary() and p.diff(); on consent:
 *     Applied applied = gate.apply(ctx, p.token());
 * }
 * }</pre>
 *
 * <p>Thread-safe. Build one per application and {@link #close()} it on shutdown; it closes the store
 * it opened itself (a store passed to the builder stays the host's to close).
 */
public final class Toolgate implements AutoCloseable {

    private final ToolRegistry registry;
    private final Resolver resolver;
    private final ToolgateStore store;
    private final boolean ownsStore;
    private final ProposeApplyEngine engine;
    private final GateSettings settings;
    private final int maxArgumentBytes;
    private final ScheduledExecutorService sweeper;
    private final Executions executions;
    private final Conversations conversations;
    private final SourceCatalog sources;
    /** What {@link #isOperator} asks the resolver about: the approver rule, named as the inbox. */
    private final Guarded approverGuard;
    /** The inbox's decisions on pending steps of durable executions. */
    private final StepDecisions steps;

    Toolgate(ToolRegistry registry, Resolver resolver, ToolgateStore store, boolean ownsStore,
             ProposeApplyEngine engine, GateSettings settings, Duration sweepInterval, Executions executions,
             SourceCatalog sources) {
        this.executions = executions;
        this.conversations = Conversations.of(store, settings);
        this.sources = sources;
        this.registry = registry;
        this.resolver = resolver;
        this.store = store;
        this.ownsStore = ownsStore;
        this.engine = engine;
        this.settings = settings;
        this.approverGuard = new Inbox("the approval inbox", Set.of(settings.approverRule()));
        this.maxArgumentBytes = settings.maxArgumentBytes();
        this.steps = new StepDecisions(store, engine, executions);
        this.sweeper = SweepSchedule.start(sweepInterval, this::sweep);
    }

    /** What the operator's actions are guarded by: the approver rule. */
    private record Inbox(String name, Set<String> requiredAccessRules) implements Guarded {
    }

    /** Starts a builder. */
    public static ToolgateBuilder builder() {
        return new ToolgateBuilder();
    }

    // ---------------------------------------------------------------------------------------- listing

    /** Descriptors of the tools {@code principal} may see, sorted by name. */
    public List<ToolDescriptor> listTools(Principal principal) {
        return resolveTools(principal).stream().map(RegisteredTool::descriptor).toList();
    }

    /**
     * The registered tools {@code principal} may see, sorted by name. Tools of a source whose listing
     * is older than its cache TTL are listed again in the background; this call does not wait.
     */
    public List<RegisteredTool> resolveTools(Principal principal) {
        Objects.requireNonNull(principal, "principal");
        sources.refreshStale();
        return resolver.resolveTools(principal, registry.tools());
    }

    /**
     * The tools the context's principal may see, each with the mode policy gives it in this context
     * (tenant and automation overrides, drift). Reads the policy store once per tool; for operator
     * screens and catalogs rather than every model turn.
     */
    public List<CatalogEntry> catalog(CallContext context) {
        List<CatalogEntry> entries = new ArrayList<>();
        for (RegisteredTool tool : resolveTools(context.principal())) {
            ModeResolution mode = ModeCascade.resolve(tool.effect(),
                    store.policies().view(tool.name(), context.tenantId(), context.automationId()), tool.schemaFingerprint());
            entries.add(new CatalogEntry(tool.descriptor(), mode));
        }
        return List.copyOf(entries);
    }

    /**
     * The actions guide for a context's principal: a Markdown page listing every tool the principal may
     * use, grouped by plugin and tool source, each with its effect, its mode in this context and the
     * mode's source, its description and a compact summary of its input; sources that cannot be
     * reached are listed as unavailable. Written for a model's system prompt or a sandbox file. The
     * same tools and policy always give the same page.
     */
    public String guide(CallContext context) {
        List<Guide.Entry> entries = new ArrayList<>();
        for (CatalogEntry entry : catalog(context)) {
            String group = registry.find(entry.descriptor().name()).map(RegisteredTool::pluginId)
                    .orElse(entry.descriptor().name());
            entries.add(new Guide.Entry(group, entry.descriptor(), entry.mode()));
        }
        return Guide.render(context.principal().kind().name().toLowerCase(java.util.Locale.ROOT) + ":"
                + context.principal().id(), entries, sources.statuses());
    }

    /** The actions guide for a principal with no tenant or automation; see {@link #guide(CallContext)}. */
    public String guide(Principal principal) {
        return guide(CallContext.of(principal));
    }

    /** The state of every tool source: reachable or not, how many tools, when last listed, why not. */
    public List<SourceStatus> listSources() {
        return sources.statuses();
    }

    /**
     * Lists every tool source now (in parallel, each bounded by its listing timeout) and returns their
     * states. Changed tools are swapped in the registry, and MCP clients hear {@code tools/list_changed}.
     */
    public List<SourceStatus> refreshSources() {
        return sources.refresh();
    }

    /**
     * Lists one tool source now.
     *
     * @throws IllegalArgumentException if there is no source with this id
     */
    public SourceStatus refreshSource(String sourceId) {
        return sources.refresh(sourceId);
    }

    /**
     * A tool with the mode it has in one context.
     *
     * @param descriptor the tool
     * @param mode       its mode, source and drift state
     */
    public record CatalogEntry(ToolDescriptor descriptor, ModeResolution mode) {
    }

    // ---------------------------------------------------------------------------------------- calls

    /**
     * A model's tool call with JSON text arguments (null or blank means no arguments).
     *
     * @throws ToolValidationException if the text is not one JSON object or is larger than the limit
     * @see ProposeApplyEngine#call
     */
    public CallResult call(CallContext context, String toolName, String argumentsJson) {
        return call(context, toolName, parseArguments(toolName, argumentsJson));
    }

    /**
     * A model's tool call; see {@link ProposeApplyEngine#call}.
     *
     * @throws SourceUnavailableException for a tool of a source that is down and has never listed it
     */
    public CallResult call(CallContext context, String toolName, JsonNode arguments) {
        return orSourceUnavailable(toolName, () -> engine.call(context, toolName, arguments));
    }

    /** What a call would do, without doing it; see {@link ProposeApplyEngine#preview}. */
    public CallPreview preview(CallContext context, String toolName, JsonNode arguments) {
        return orSourceUnavailable(toolName, () -> engine.preview(context, toolName, arguments));
    }

    /** Proposes a call whatever the permission mode; see {@link ProposeApplyEngine#propose}. */
    public Proposal propose(CallContext context, String toolName, String argumentsJson) {
        return orSourceUnavailable(toolName, () -> engine.propose(context, toolName, parseArguments(toolName, argumentsJson)));
    }

    /** An unknown tool of a source that is down is that source's unavailability, not a wrong name. */
    private <T> T orSourceUnavailable(String toolName, java.util.function.Supplier<T> action) {
        try {
            return action.get();
        } catch (UnknownToolException e) {
            throw sources.unavailable(toolName).map(RuntimeException.class::cast).orElse(e);
        }
    }

    /** Applies a proposal by its token; see {@link ProposeApplyEngine#apply}. */
    public Applied apply(CallContext context, String token) {
        return engine.apply(context, token);
    }

    /** What a token would apply, checked as apply checks it; see {@link ProposeApplyEngine#inspect}. */
    public PendingProposal inspect(CallContext context, String token) {
        return engine.inspect(context, token);
    }

    // ---------------------------------------------------------------------------------------- inbox

    /** Pending proposals the viewer may see; see {@link ProposeApplyEngine#pending}. */
    public List<PendingProposal> pending(CallContext viewer, String sessionId) {
        return engine.pending(viewer, sessionId);
    }

    /** Whether a pending proposal's preview still holds; see {@link ProposeApplyEngine#freshness}. */
    public Freshness freshness(CallContext viewer, String callId) {
        return engine.freshness(viewer, callId);
    }

    /**
     * An operator approves a proposal; see {@link ProposeApplyEngine#approve}. A proposal that is the
     * pending step of a durable execution resumes its run ({@link Executions#approve}) and comes back
     * as {@link InboxResult.Resumed}; "approve always" also stores ALLOW for the tool first.
     */
    public InboxResult approve(CallContext approver, String callId, Approval approval) {
        Optional<CallRecord> step = steps.stepProposal(approver, callId);
        return step.isEmpty() ? engine.approve(approver, callId, approval)
                : steps.approve(approver, callId, step.get(), approval);
    }

    /**
     * An operator rejects a proposal; see {@link ProposeApplyEngine#reject}. A proposal that is the
     * pending step of a durable execution ends its run ({@link Executions#reject}).
     */
    public InboxResult reject(CallContext approver, String callId, String reason) {
        Optional<CallRecord> step = steps.stepProposal(approver, callId);
        return step.isEmpty() ? engine.reject(approver, callId, reason) : steps.reject(approver, step.get(), reason);
    }

    /**
     * The proposer withdraws its own pending proposal (an MCP client cancels the task waiting on it, a
     * user declines in the client); see {@link ProposeApplyEngine#withdraw}. No approver rule is needed;
     * another principal's proposal answers as unknown. A pending step of the proposer's own run
     * rejects the step, which ends the run (earlier steps stay applied: rolling back undoes them).
     */
    public InboxResult withdraw(CallContext proposer, String callId, String reason) {
        Optional<CallRecord> step = steps.stepProposal(proposer, callId);
        return step.isEmpty() ? engine.withdraw(proposer, callId, reason) : steps.reject(proposer, step.get(), reason);
    }

    // ---------------------------------------------------------------------------------------- executions

    /**
     * Durable executions: runs of registered programs that pause for consent, resume by replay on any
     * instance, and roll back.
     *
     * @throws UnsupportedOperationException if the store keeps no executions
     */
    public Executions executions() {
        if (executions == null) {
            throw new UnsupportedOperationException(store + " does not store durable executions");
        }
        return executions;
    }

    /**
     * What conversations learn of their proposals: the decisions made on them since their last turn
     * (each told exactly once, across instances) and calls that repeat a pending or declined proposal.
     * Chat adapters use it; see {@link Conversations}.
     */
    public Conversations conversations() {
        return conversations;
    }

    /** An operator edits a proposal's arguments; see {@link ProposeApplyEngine#edit}. */
    public InboxResult edit(CallContext approver, String callId, String argumentsJson) {
        return engine.edit(approver, callId, parseArguments("the edit of " + callId, argumentsJson));
    }

    /** An operator re-confirms a drifted tool's schema; see {@link ProposeApplyEngine#confirmSchema}. */
    public void confirmSchema(CallContext approver, String toolName) {
        engine.confirmSchema(approver, toolName);
    }

    /**
     * True if the principal holds the approver rule ({@link GateSettings#approverRule()}), so it may
     * decide proposals (approve, reject, edit), settle calls in doubt and set modes. Asks the gate's
     * {@link #resolver()}, as every operator action does.
     */
    public boolean isOperator(Principal principal) {
        Objects.requireNonNull(principal, "principal");
        return resolver.isAllowed(principal, approverGuard);
    }

    /** Calls in doubt (their outcome never arrived) for an operator; see {@link ProposeApplyEngine#interrupted}. */
    public List<CallRecord> interrupted(CallContext operator) {
        return engine.interrupted(operator);
    }

    /** An operator settles an interrupted call; see {@link ProposeApplyEngine#resolve}. */
    public InboxResult resolve(CallContext operator, String callId, boolean applied, String note) {
        return engine.resolve(operator, callId, applied, note);
    }

    // ---------------------------------------------------------------------------------------- policy

    /**
     * An operator stores a mode for a tool at a scope: the automation or tenant of {@code approver}'s
     * context. Requires the approver rule. The tool's current schema becomes the reviewed one.
     */
    public void setMode(CallContext approver, OverrideScope scope, String toolName, Mode mode) {
        engine.setMode(approver, scope, toolName, mode);
    }

    /** Removes a stored mode; the cascade falls through to the next scope. Requires the approver rule. */
    public boolean clearMode(CallContext approver, OverrideScope scope, String toolName) {
        return engine.clearMode(approver, scope, toolName);
    }

    /** The modes stored at one scope. */
    public List<ModeOverride> modes(OverrideScope scope, String scopeId) {
        return store.policies().overrides(scope, scopeId);
    }

    // ---------------------------------------------------------------------------------------- audit

    /** One audit record. */
    public Optional<CallRecord> findCall(String callId) {
        return store.calls().find(callId);
    }

    /**
     * The record a call finally became: follows operators' edits from a proposal to the proposal
     * that replaced it, so a model can be told what actually ran.
     */
    public Optional<CallRecord> outcomeOf(String callId) {
        Optional<CallRecord> current = findCall(callId);
        for (int hops = 0; hops < 100 && current.isPresent() && current.get().supersededBy() != null; hops++) {
            current = findCall(current.get().supersededBy());
        }
        return current;
    }

    /** Audit records matching a query, newest first. */
    public List<CallRecord> findCalls(CallQuery query) {
        return store.calls().query(query);
    }

    /**
     * Sweeps now (the builder also schedules this every {@code sweepInterval}): expires proposals past
     * their time, reports claimed calls whose outcome never arrived as interrupted, and purges a few
     * batches of what the retention no longer keeps. See {@link ProposeApplyEngine#sweep}.
     */
    public SweepResult sweep() {
        SweepResult result = engine.sweep();
        if (executions != null) {
            executions.sweep();
        }
        return result;
    }

    /**
     * Deletes what closed before {@code before}, for hosts that schedule retention themselves (set
     * {@code retention(Retention.keepForever())} to stop the sweeper's own purging); see
     * {@link ProposeApplyEngine#purge}.
     */
    public PurgeResult purge(Instant before) {
        PurgeResult purged = engine.purge(before);
        return executions == null ? purged : purged.withFinishedExecutions(executions.purge(before));
    }

    /** Tells the gate a session (conversation) ended, so its bookkeeping goes; see {@link ProposeApplyEngine#endSession}. */
    public boolean endSession(String sessionId) {
        return engine.endSession(sessionId);
    }

    // ---------------------------------------------------------------------------------------- parts

    /** The registry, for registering tools at runtime. */
    public ToolRegistry registry() {
        return registry;
    }

    /** The access predicate. */
    public Resolver resolver() {
        return resolver;
    }

    /** The gate's settings. */
    public GateSettings settings() {
        return settings;
    }

    /** Stops the sweeper and the tool threads, and closes the store if Toolgate opened it. */
    @Override
    public void close() {
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
        sources.close();
        engine.close();
        if (ownsStore) {
            store.close();
        }
    }

    private JsonNode parseArguments(String toolName, String json) {
        return Arguments.parse(toolName, json, maxArgumentBytes);
    }
}
