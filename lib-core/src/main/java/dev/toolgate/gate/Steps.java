package dev.toolgate.gate;

import dev.toolgate.call.CallContext;
import dev.toolgate.call.GateSettings;
import dev.toolgate.access.Principal;
import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.access.Resolver;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.PolicyStore;
import dev.toolgate.tool.ClientChannel;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolContext;
import dev.toolgate.tool.ToolRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every verb of the standard engine shares: the registry, the stores, the listeners and notices,
 * the tool runner, a call's draft record and its tool context and timeouts. The steps a call takes have
 * their own classes, each named for its concept: {@link Preparation} (the checks that change nothing),
 * {@link Charges} (the budget), {@link Duties} (separation of duties) and {@link Failures} (recording a
 * failure before it propagates); the verbs ({@link Calls}, {@link Applies}, {@link Inbox}, {@link Reverts},
 * {@link Upkeep}) reach them here.
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
    /** Before anything is recorded: the tool, its access, its arguments, its mode, the turn's duplicates. */
    final Preparation preparation;
    /** Separation of duties: who may not decide on a proposal. */
    final Duties duties;
    /** The budget: a call's admission, a claim's charge. */
    final Charges charges;
    /** Recording a call that failed, and what its caller is thrown. */
    final Failures failures;
    /** The proposals this engine recorded recently, for apply's checks without a read (never their status). */
    final KnownProposals known = new KnownProposals();

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
        this.preparation = new Preparation(registry, resolver, policies, settings);
        this.duties = new Duties(settings);
        this.charges = new Charges(budget, calls, events);
        this.failures = new Failures(calls, settings, events, hygiene);
    }

    /** A call's record before its outcome: who, what, where, the policy, the hash, the admission time. */
    CallRecord.Builder draft(CallContext context, Preparation.Prepared call, String id, Instant admittedAt) {
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
