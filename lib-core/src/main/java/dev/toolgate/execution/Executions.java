package dev.toolgate.execution;

import dev.toolgate.access.AccessDecision;
import dev.toolgate.access.Guarded;
import dev.toolgate.access.Principal;
import dev.toolgate.access.PrincipalDirectory;
import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.access.Resolver;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionQuery;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.GateSettings;
import dev.toolgate.gate.ProposeApplyEngine;
import dev.toolgate.call.RevertResult;
import dev.toolgate.call.SeparationOfDutiesException;
import dev.toolgate.json.Json;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolRegistry;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Durable executions: multi-step runs of registered {@link Program}s whose every tool call is a
 * governed, logged step. A step that needs consent pauses the run; {@link #approve} replays it from
 * its log on any instance and goes on; {@link #reject} ends it; {@link #rollback} undoes its applied
 * steps, newest first. Get it from {@code Toolgate.executions()}.
 *
 * <p>Every lifecycle call names its execution, and works on any instance sharing the store. Each
 * step goes through the gate exactly as a single call does (resolver, schema, policy, budget, audit
 * record linked to the run and step), and runs at most once across instances and crashes: a mutation
 * step is claimed durably before it runs, every step is logged once, and a step served from the log
 * on a replay runs nothing and is not charged again. Thread-safe.
 */
public final class Executions {

    private static final Logger LOG = LoggerFactory.getLogger(Executions.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,100}");
    private static final int MAX_LISTED = 1_000;
    static final int SWEEP_BATCH = 100;
    private static final Set<ExecutionStatus> PAUSED = EnumSet.of(ExecutionStatus.PAUSED);
    private static final Set<ExecutionStatus> ROLLBACKABLE = EnumSet.of(ExecutionStatus.PAUSED, ExecutionStatus.COMPLETED,
            ExecutionStatus.FAILED, ExecutionStatus.REJECTED, ExecutionStatus.EXPIRED, ExecutionStatus.INTERRUPTED,
            ExecutionStatus.ROLLED_BACK);

    private final Wiring wiring;
    private final Guarded approverRule;

    private Executions(Wiring wiring) {
        this.wiring = wiring;
        Set<String> rules = Set.of(wiring.settings().approverRule());
        this.approverRule = new Guarded() {
            @Override
            public String name() {
                return "the approval inbox";
            }

            @Override
            public Set<String> requiredAccessRules() {
                return rules;
            }
        };
    }

    /**
     * The parts of a gate the runtime works with; {@code Toolgate}'s builder assembles them.
     *
     * @param engine    the gate's engine, which governs and logs every step
     * @param store     the store (its call store keeps the steps, its execution store the runs)
     * @param registry  the tools
     * @param resolver  the access predicate (who is an operator)
     * @param settings  the gate's settings
     * @param mapper    the JSON mapper for arguments and results
     * @param programs  the registered programs, by name
     * @param directory how to find a run's principal as it is now, or null to use its rules at start
     */
    public record Parts(ProposeApplyEngine engine, ToolgateStore store, ToolRegistry registry, Resolver resolver,
                        GateSettings settings, JsonMapper mapper, Map<String, Program> programs,
                        PrincipalDirectory directory) {
        /** Checks the parts and the programs' names. */
        public Parts {
            Objects.requireNonNull(engine, "engine");
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(registry, "registry");
            Objects.requireNonNull(resolver, "resolver");
            Objects.requireNonNull(settings, "settings");
            Objects.requireNonNull(mapper, "mapper");
            programs = Map.copyOf(programs);
            programs.keySet().forEach(name -> {
                if (!NAME.matcher(name).matches()) {
                    throw new IllegalArgumentException("a program's name is 1-100 characters of A-Za-z0-9_.-, got '" + name + "'");
                }
            });
        }
    }

    /** The runtime over a gate's parts (the builder calls this; hosts use {@code Toolgate.executions()}). */
    public static Executions of(Parts parts) {
        return new Executions(new Wiring(parts.engine(), parts.store().calls(), parts.store().executions(), parts.registry(),
                parts.resolver(), parts.settings(), parts.mapper(), parts.programs(), parts.directory()));
    }

    /**
     * The JSON Schema of {@code program}'s input ({@link Program#inputSchema()}); empty if it takes any
     * object.
     *
     * @throws UnknownProgramException no program of that name is registered
     */
    public Optional<ObjectNode> inputSchema(String program) {
        Program found = program == null ? null : wiring.programs().get(program);
        if (found == null) {
            throw new UnknownProgramException(String.valueOf(program));
        }
        return found.inputSchema();
    }

    /** The names of the registered programs, sorted. */
    public List<String> programs() {
        return wiring.programs().keySet().stream().sorted().toList();
    }

    // ------------------------------------------------------------------------------------------ start

    /**
     * Starts a run of {@code program} for the context's principal, in its tenant and session (and
     * AUTO permission mode if the context has it), and runs it until it completes, fails or pauses.
     * The context's {@linkplain CallContext#channel() client channel} hears each step as progress
     * ({@code "step 2: incident.create"}, replayed steps included); an approval's context does the same
     * for the attempt it runs. The run's steps are unattended and get no channel, except the step an
     * approval applies, which runs for its approver as any apply does.
     *
     * @param input the program's input (null for an empty object), at most the gate's argument limit
     * @throws UnknownProgramException  no program of that name is registered
     * @throws ToolValidationException  the input is too large or not JSON that can be stored
     * @throws ForbiddenException       a service principal cannot drive tools
     */
    public ExecutionOutcome start(CallContext context, String program, JsonNode input) {
        Objects.requireNonNull(context, "context");
        if (program == null || !wiring.programs().containsKey(program)) {
            throw new UnknownProgramException(String.valueOf(program));
        }
        if (context.principal().kind() == PrincipalKind.SERVICE) {
            throw new ForbiddenException("Forbidden: " + program + " (service principals never drive tools)", null, Set.of());
        }
        String json = ProgramInputs.check(program, wiring.programs().get(program), input, wiring.settings().maxArgumentBytes());
        ExecutionRecord run = wiring.runs().create(new ExecutionRecord(UUID.randomUUID().toString(), program,
                PrincipalRef.of(context.principal()), context.principal().accessRules(), context.tenantId(),
                context.sessionId(), context.automationId(), context.transport(),
                context.permissionMode() == dev.toolgate.policy.PermissionMode.AUTO, json, ExecutionStatus.RUNNING, 1,
                null, null, null, null, null, null, null, List.of()));
        return new Attempt(wiring, run, context.principal(), null, null, context.channel()).execute();
    }

    /** {@link #start(CallContext, String, JsonNode)} with JSON text input (null or blank for none). */
    public ExecutionOutcome start(CallContext context, String program, String inputJson) {
        JsonNode input;
        try {
            input = inputJson == null || inputJson.isBlank() ? null : Json.parse(inputJson);
        } catch (RuntimeException e) {
            throw new ToolValidationException(String.valueOf(program), List.of(ValidationIssue.at("", "malformed JSON: "
                    + e.getMessage())));
        }
        return start(context, program, input);
    }

    // ------------------------------------------------------------------------------------------ lifecycle

    /**
     * Approves the pending step of a paused run and replays it: the steps in its log are answered from
     * the log, the approved step runs once (applied by {@code approver}, who needs its tool's rules),
     * and the run goes on to completion or its next pause. Of any number of concurrent approvals,
     * across instances, exactly one replays. A run that is not paused is a safe no-op: the outcome
     * says where it is, and nothing changes.
     *
     * <p>This form approves whatever step the run is paused at when the call arrives; a screen that
     * shows one step should use {@link #approve(CallContext, String, int)}.
     *
     * @throws UnknownExecutionException   no such run in the approver's tenant
     * @throws ForbiddenException          the approver is neither the run's principal nor an operator,
     *                                     or lacks the step's tool rules
     * @throws SeparationOfDutiesException the run's principal approves its own step and the gate
     *                                     requires a distinct approver
     */
    public ExecutionOutcome approve(CallContext approver, String executionId) {
        return approve(approver, executionId, null);
    }

    /**
     * {@link #approve(CallContext, String)} of step {@code seq} only: if the run is paused at another
     * step (the approved one went through meanwhile and the run paused again), nothing happens and the
     * outcome says the run is not paused at that step. Approval screens use this form, so a click on
     * one card never approves a step its operator has not seen.
     */
    public ExecutionOutcome approve(CallContext approver, String executionId, int seq) {
        return approve(approver, executionId, Integer.valueOf(seq));
    }

    private ExecutionOutcome approve(CallContext approver, String executionId, Integer seq) {
        Objects.requireNonNull(approver, "approver");
        ExecutionRecord run = runFor(approver, executionId);
        requireDecider(approver, run);
        if (run.status() != ExecutionStatus.PAUSED || (seq != null && !seq.equals(run.pendingSeq()))) {
            return new ExecutionOutcome.NotPaused(run.id(), run.status());
        }
        CallRecord step = wiring.calls().find(run.pendingCallId()).orElse(null);
        if (step == null || !step.pendingAt(wiring.calls().now())) {
            return new ExecutionOutcome.NotPaused(run.id(), run.status());
        }
        RegisteredTool tool = wiring.registry().find(step.toolName()).orElse(null);
        if (tool != null) {
            AccessDecision decision = wiring.resolver().decide(approver.principal(), tool);
            if (!decision.allowed()) {
                throw new ForbiddenException(decision.describe(tool.name()), tool.name(), decision.missingRules());
            }
        }
        if (wiring.settings().requireDistinctApprover() && step.principal().equals(PrincipalRef.of(approver.principal()))) {
            throw new SeparationOfDutiesException("Separation of duties: " + step.principal() + " proposed " + step.toolName()
                    + " (step " + step.stepSeq() + " of execution " + run.id() + "); another operator must approve it",
                    step.toolName());
        }
        if (!wiring.programs().containsKey(run.program())) {
            throw new UnknownProgramException(run.program());
        }
        Optional<Principal> principal = run.principal().equals(PrincipalRef.of(approver.principal()))
                ? Optional.of(approver.principal()) : lookup(run);
        if (principal.isEmpty()) {
            String why = "the run's principal " + run.principal() + " no longer exists";
            if (wiring.engine().rejectStep(approver, run.pendingCallId(), why)) {
                wiring.runs().close(run.id(), PAUSED, ExecutionStatus.FAILED, why);
            }
            return new ExecutionOutcome.Failed(run.id(), why, List.of());
        }
        Optional<ExecutionRecord> resumed = wiring.runs().resume(run.id(), run.pendingCallId());
        if (resumed.isEmpty()) {
            return new ExecutionOutcome.NotPaused(run.id(), current(run.id()));
        }
        return new Attempt(wiring, resumed.get(), principal.get(), run.pendingCallId(), approver,
                approver == null ? null : approver.channel()).execute();
    }

    /**
     * Rejects the pending step {@code seq} of a paused run, which ends the run ({@code rejected}).
     * Earlier steps stay applied; {@link #rollback} undoes them.
     *
     * @return false if that step was no longer pending (approved, rejected or expired meanwhile,
     *         perhaps elsewhere): check before telling anyone the run was rejected
     * @throws UnknownExecutionException no such run in the actor's tenant
     * @throws ForbiddenException        the actor is neither the run's principal nor an operator
     */
    public boolean reject(CallContext actor, String executionId, int seq, String reason) {
        Objects.requireNonNull(actor, "actor");
        ExecutionRecord run = runFor(actor, executionId);
        requireDecider(actor, run);
        if (run.status() != ExecutionStatus.PAUSED || run.pendingSeq() == null || run.pendingSeq() != seq) {
            return false;
        }
        if (!wiring.engine().rejectStep(actor, run.pendingCallId(), reason)) {
            return false;
        }
        String why = "step " + seq + " rejected by " + PrincipalRef.of(actor.principal())
                + (reason == null || reason.isBlank() ? "" : ": " + reason);
        wiring.runs().close(run.id(), PAUSED, ExecutionStatus.REJECTED, wiring.settings().redactor().redactText(why));
        return true;
    }

    /**
     * Rolls a run back: every applied step whose tool has a revert is reverted, newest first (reads
     * and tools without a revert are skipped), and then reads {@code reverted}; a failed revert is
     * recorded and the rest go on. A paused
     * run's pending step is rejected first. Idempotent: a second rollback reverts nothing. A running
     * run is refused (roll it back once it pauses or ends).
     *
     * @throws UnknownExecutionException no such run in the actor's tenant
     * @throws ForbiddenException        the actor is neither the run's principal nor an operator
     */
    public RollbackResult rollback(CallContext actor, String executionId) {
        Objects.requireNonNull(actor, "actor");
        ExecutionRecord run = runFor(actor, executionId);
        requireDecider(actor, run);
        if (run.status() == ExecutionStatus.RUNNING) {
            return new RollbackResult(run.id(), run.status(), List.of(),
                    "the run is running; roll it back once it pauses or ends");
        }
        if (run.status() == ExecutionStatus.PAUSED && run.pendingCallId() != null) {
            wiring.engine().rejectStep(actor, run.pendingCallId(), "rolled back");
        }
        List<CallRecord> applied = steps(run.id()).stream()
                // reverted ones too: a second rollback reports them as already reverted and runs nothing
                .filter(s -> (s.status() == CallStatus.APPLIED || s.status() == CallStatus.REVERTED) && s.effect().mutates())
                .sorted(Comparator.comparing(CallRecord::stepSeq).reversed())
                .toList();
        List<RevertResult> results = new ArrayList<>();
        for (CallRecord step : applied) {
            RevertResult result;
            try {
                result = wiring.engine().revert(actor, step.id());
            } catch (ForbiddenException e) {
                result = new RevertResult(step.id(), RevertResult.Outcome.FAILED, null, e.getMessage());
            }
            results.add(result);
        }
        wiring.runs().close(run.id(), ROLLBACKABLE, ExecutionStatus.ROLLED_BACK, null);
        return new RollbackResult(run.id(), current(run.id()), results, null);
    }

    // ------------------------------------------------------------------------------------------ queries

    /**
     * The pending steps of paused runs the viewer may decide on, newest first: an operator sees every
     * run of the tenant, anyone else their own runs.
     */
    public List<PendingAction> pending(CallContext viewer) {
        Objects.requireNonNull(viewer, "viewer");
        ExecutionQuery query = ExecutionQuery.latest(MAX_LISTED).status(ExecutionStatus.PAUSED).tenant(viewer.tenantId());
        if (!isOperator(viewer.principal())) {
            query = query.principal(viewer.principal().key());
        }
        Instant now = wiring.calls().now();
        List<PendingAction> pending = new ArrayList<>();
        for (ExecutionRecord run : wiring.runs().query(query)) {
            if (!Objects.equals(run.tenantId(), viewer.tenantId()) || run.pendingCallId() == null) {
                continue;
            }
            wiring.calls().find(run.pendingCallId()).filter(step -> step.pendingAt(now))
                    .ifPresent(step -> pending.add(Handle.pendingAction(wiring, step)));
        }
        return pending;
    }

    /** One run. */
    public Optional<ExecutionRecord> find(String executionId) {
        return wiring.runs().find(executionId);
    }

    /** Runs matching the query, newest first. */
    public List<ExecutionRecord> executions(ExecutionQuery query) {
        return wiring.runs().query(Objects.requireNonNull(query, "query"));
    }

    /** A run's steps, in order: its durable log. */
    public List<CallRecord> steps(String executionId) {
        return wiring.calls().query(CallQuery.latest(CallQuery.MAX_LIMIT).execution(Objects.requireNonNull(executionId)));
    }

    // ------------------------------------------------------------------------------------------ sweeping

    /**
     * The sweeper's part: paused runs whose pending step expired (or was closed) end so; runs whose
     * instance stopped between steps are taken over and replayed from their log; a run with a step in
     * doubt ends interrupted. Safe on every instance at once.
     *
     * @return how many runs this sweep settled or took over
     */
    public int sweep() {
        return ExecutionSweep.sweep(wiring, this::lookup);
    }

    /**
     * Deletes, to completion, finished runs (every status but running and paused) that finished before
     * {@code before}. Their steps are call records, purged with the calls.
     *
     * @return how many runs were deleted
     */
    public int purge(Instant before) {
        Objects.requireNonNull(before, "before");
        int total = 0;
        for (int deleted = SWEEP_BATCH * 5; deleted >= SWEEP_BATCH * 5; ) {
            deleted = wiring.runs().purge(before, SWEEP_BATCH * 5);
            total += deleted;
        }
        return total;
    }

    /** How long a running run may show no activity before it counts as stalled. */
    Duration quietPeriod() {
        return ExecutionSweep.quietPeriod(wiring);
    }

    // ------------------------------------------------------------------------------------------ shared

    private ExecutionRecord runFor(CallContext viewer, String executionId) {
        return wiring.runs().find(executionId).filter(r -> Objects.equals(r.tenantId(), viewer.tenantId()))
                .orElseThrow(() -> new UnknownExecutionException(String.valueOf(executionId)));
    }

    private ExecutionStatus current(String executionId) {
        return wiring.runs().find(executionId).map(ExecutionRecord::status).orElse(ExecutionStatus.FAILED);
    }

    private boolean isOperator(Principal principal) {
        return wiring.resolver().isAllowed(principal, approverRule);
    }

    /** The run's own principal or an operator may decide on it. */
    private void requireDecider(CallContext actor, ExecutionRecord run) {
        if (run.principal().equals(PrincipalRef.of(actor.principal())) || isOperator(actor.principal())) {
            return;
        }
        AccessDecision decision = wiring.resolver().decide(actor.principal(), approverRule);
        throw new ForbiddenException(decision.describe("execution " + run.id()), null, decision.missingRules());
    }

    private Optional<Principal> lookup(ExecutionRecord run) {
        if (wiring.directory() == null) {
            return Optional.of(snapshot(run));
        }
        return wiring.directory().find(run.principal());
    }

    private static Principal snapshot(ExecutionRecord run) {
        return new Principal(run.principal().kind(), run.principal().id(), run.principalRules(), Map.of());
    }
}
