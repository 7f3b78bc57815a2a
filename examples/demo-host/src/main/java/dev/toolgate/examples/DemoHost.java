package dev.toolgate.examples;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.micrometer.ToolgateObservability;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import dev.toolgate.codemode.Codemode;
import dev.toolgate.access.AccessDecision;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.execution.PendingAction;
import dev.toolgate.execution.RollbackResult;
import dev.toolgate.call.Applied;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Freshness;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ProposeApplyException;
import dev.toolgate.call.RevertResult;
import dev.toolgate.json.FieldChange;
import dev.toolgate.json.Json;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolDescriptor;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The runnable demo: a host that embeds Toolgate, with the {@code incident} and {@code catalog}
 * plugins found on the classpath through {@code META-INF/services}. It walks through what Toolgate
 * does for a host, printing each step.
 *
 * <pre>
 * ./mvnw -ntp -pl examples/demo-host -am compile exec:java                    # H2 file in ~/.toolgate
 * ./mvnw -ntp -pl examples/demo-host -am compile exec:java -Dexec.args="--db jdbc:postgresql://127.0.0.1:5432/test?user=postgres"
 * ./mvnw -ntp -pl examples/demo-host -am compile exec:java -Dexec.args="--db memory"
 * </pre>
 */
public final class DemoHost {

    private final PrintStream out;
    private final Toolgate gate;
    private final StatusPageApi statusPage;
    private final String session = "demo-" + UUID.randomUUID().toString().substring(0, 8);

    private DemoHost(PrintStream out, Toolgate gate, StatusPageApi statusPage) {
        this.out = out;
        this.gate = gate;
        this.statusPage = statusPage;
    }

    public static void main(String[] args) {
        quietLibraryLogs();
        run(args, System.out);
    }

    /**
     * The walkthrough prints every step itself; the libraries' own log lines (among them warnings for the
     * refusals it provokes on purpose) would only interleave with it. Under {@code exec:java} they go to
     * Maven's logger, which the quick start no longer silences with {@code -q}, so they are set to errors
     * only here, before the first logger exists, unless the command line chose a level.
     */
    private static void quietLibraryLogs() {
        for (String logger : new String[] {"dev.toolgate", "com.zaxxer.hikari"}) {
            String key = "org.slf4j.simpleLogger.log." + logger;
            if (System.getProperty(key) == null) {
                System.setProperty(key, "error");
            }
        }
    }

    /** Runs the demo, printing to {@code out}. */
    public static void run(String[] args, PrintStream out) {
        // the status page API the OpenAPI source calls: started first, stopped after the gate is closed
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (StatusPageApi statusPage = StatusPageApi.start();
             Toolgate gate = observed(SourcesTour.addSources(DemoPrincipals.configure(Toolgate.builder(), args), statusPage),
                     meters)) {
            // its program was found through ServiceLoader. The demo's scripts may run 30 s (the default is 5):
            // the first script in a JVM also pays for the gate's cold path (the sandbox starts its JavaScript
            // engine before a first script, outside its limit), which on a small or busy machine takes seconds
            gate.registry().register(Codemode.tools(gate, Codemode.Limits.DEFAULT.withTimeout(java.time.Duration.ofSeconds(30))));
            GroundingTour.register(gate);
            DemoHost demo = new DemoHost(out, gate, statusPage);
            demo.tour();
            demo.metrics(meters);
        }
    }

    /** Builds the gate with metrics (toolgate-micrometer) on {@code meters}. */
    private static Toolgate observed(ToolgateBuilder builder, SimpleMeterRegistry meters) {
        return ToolgateObservability.install(builder, ObservationRegistry.create(), meters).bind(builder.build());
    }

    private void metrics(MeterRegistry meters) {
        heading("12. The metrics of this walkthrough (toolgate-micrometer; Prometheus, OTLP ... read the same meters)");
        java.util.Map<String, Double> calls = new java.util.TreeMap<>();
        for (Counter counter : meters.find(ToolgateObservability.CALLS).counters()) {
            String key = String.format("%-40s %-12s %-17s %s", counter.getId().getTag("tool"), counter.getId().getTag("status"),
                    counter.getId().getTag("mode"), counter.getId().getTag("mode.source"));
            calls.merge(key, counter.count(), Double::sum);
        }
        out.printf("%s (tool, status, mode, mode source):%n", ToolgateObservability.CALLS);
        calls.forEach((key, count) -> out.printf("  %s %3.0f%n", key, count));
        long timed = 0;
        double slowest = 0;
        for (Timer timer : meters.find(ToolgateObservability.CALL_DURATION).timers()) {
            timed += timer.count();
            slowest = Math.max(slowest, timer.max(java.util.concurrent.TimeUnit.MILLISECONDS));
        }
        out.printf("%s: %d outcomes timed, the slowest %.0f ms%n", ToolgateObservability.CALL_DURATION, timed, slowest);
        long decisions = meters.find(ToolgateObservability.APPROVAL_LATENCY).timers().stream().mapToLong(Timer::count).sum();
        out.printf("%s: %d decisions on proposals that waited%n", ToolgateObservability.APPROVAL_LATENCY, decisions);
        out.printf("%s now: %.0f%n", ToolgateObservability.PENDING_PROPOSALS,
                meters.find(ToolgateObservability.PENDING_PROPOSALS).gauge().value());
        out.printf("%s now: %.0f%n", ToolgateObservability.PAUSED_RUNS,
                meters.find(ToolgateObservability.PAUSED_RUNS).gauge().value());
    }

    private CallContext as(Principal principal) {
        return CallContext.of(principal).withTenant("acme").withSession(session).withTransport("demo");
    }

    private void tour() {
        heading("Toolgate demo (store: " + DemoPrincipals.storeDescription() + ", session " + session + ")");
        whoSeesWhat();
        schemaOfOneTool();
        aReadCall();
        proposeAndApply();
        confirmCardAndOperatorApproval();
        autoMode();
        durableRun();
        codemode();
        sources();
        grounding();
        auditTrail();
    }

    private void whoSeesWhat() {
        heading("1. Which tools each principal is offered, and why the others are hidden");
        int width = gate.registry().tools().stream().mapToInt(tool -> tool.name().length()).max().orElse(1);
        for (Principal principal : DemoPrincipals.all()) {
            out.printf("%s %s%n", principal.key(), principal.accessRules());
            for (RegisteredTool tool : gate.registry().tools()) {
                AccessDecision decision = gate.resolver().decide(principal, tool);
                out.printf("   %s %-" + width + "s %s%n", decision.allowed() ? "sees  " : "hidden", tool.name(),
                        decision.allowed() ? tool.effect().wireName() : "(" + reason(decision) + ")");
            }
        }
    }

    private static String reason(AccessDecision decision) {
        return switch (decision.reason()) {
            case MISSING_RULES -> "missing " + String.join(", ", decision.missingRules());
            case SERVICE_PRINCIPAL -> "service principals never drive tools";
            case ALLOWED -> "";
        };
    }

    private void schemaOfOneTool() {
        heading("2. What the model is given for incident.create (the one serializer)");
        ToolDescriptor descriptor = gate.registry().find("incident.create").orElseThrow().descriptor();
        out.println(descriptor.toJson().toPrettyString());
    }

    private void aReadCall() {
        heading("3. bob calls catalog.listSystems: a read runs directly");
        Executed result = (Executed) gate.call(as(DemoPrincipals.BOB), "catalog.listSystems", "{}");
        out.println(result.result().toPrettyString());
    }

    private void proposeAndApply() {
        heading("4. carol asks for incident.create: a dry-run and a proposal, nothing created yet");
        String draft = "{\"systemId\":\"db\",\"title\":\"Primary DB refusing connections\",\"severity\":\"CRITICAL\"}";
        Proposal proposal = (Proposal) gate.call(as(DemoPrincipals.CAROL), "incident.create", draft);
        out.println("status:  " + proposal.status());
        out.println("summary: " + proposal.summary());
        out.println("payload: " + Json.write(proposal.payload()));
        out.println("token:   " + proposal.token().substring(0, 24) + "... (single use, expires " + proposal.expiresAt() + ")");

        out.println();
        out.println("carol consents and applies the token (only the stored payload runs):");
        Applied applied = gate.apply(as(DemoPrincipals.CAROL), proposal.token());
        out.println("  applied -> " + Json.write(applied.result()));

        out.println("carol applies the same token again:");
        refused(() -> gate.apply(as(DemoPrincipals.CAROL), proposal.token()));

        out.println("bob is not offered incident.create, and cannot propose it either:");
        out.println("  bob's tools: " + gate.listTools(DemoPrincipals.BOB).stream().map(ToolDescriptor::name).toList());
        refused(() -> gate.call(as(DemoPrincipals.BOB), "incident.create", draft));

        out.println("a draft naming a system that does not exist is feedback for the model, not an operator error:");
        try {
            gate.call(as(DemoPrincipals.CAROL), "incident.create", "{\"systemId\":\"Database\",\"title\":\"DB down\",\"severity\":\"HIGH\"}");
        } catch (dev.toolgate.tool.ToolValidationException e) {
            out.println("  feedback: " + e.feedback().issues());
        }
    }

    private void confirmCardAndOperatorApproval() {
        heading("5. A confirm card with a diff, decided by an operator in the inbox");
        String incident = gate.call(as(DemoPrincipals.CAROL), "incident.list", "{}").toJson().at("/result/0/id").asString();
        Proposal update = (Proposal) gate.call(as(DemoPrincipals.CAROL), "incident.update",
                "{\"id\":\"" + incident + "\",\"severity\":\"CRITICAL\",\"status\":\"MITIGATED\"}");
        card(update.summary(), update.diff());
        Proposal rename = (Proposal) gate.call(as(DemoPrincipals.CAROL), "incident.update",
                "{\"id\":\"" + incident + "\",\"title\":\"Orders API degraded\"}");
        out.println("carol's model also proposes a rename of the same incident, from the same state.");

        out.println("alice's inbox (she holds the approver rule):");
        for (PendingProposal pending : gate.pending(as(DemoPrincipals.ALICE), session)) {
            out.printf("  %s  %s  proposed by %s%n", pending.callId(), pending.summary(), pending.proposer());
        }
        InboxResult decision = gate.approve(as(DemoPrincipals.ALICE), update.callId(), Approval.once("severity confirmed by on-call"));
        out.println("alice approves once -> " + Json.write(((InboxResult.Approved) decision).applied().result()));
        out.println("alice approves it again -> " + ((InboxResult.NotPending) gate.approve(as(DemoPrincipals.ALICE),
                update.callId(), Approval.once())).message());
        Freshness rest = gate.freshness(as(DemoPrincipals.ALICE), rename.callId());
        out.println("the rename's card is now out of date (" + rest.changes().size() + " field(s) changed since its preview)");
        out.println("alice approves the rename anyway -> nothing runs: "
                + ((InboxResult.Stale) gate.approve(as(DemoPrincipals.ALICE), rename.callId(), Approval.once())).message());
    }

    private void autoMode() {
        heading("6. AUTO permission mode: mutations apply in one visible step, destructive ones still ask");
        CallContext auto = as(DemoPrincipals.CAROL).withPermissionMode(PermissionMode.AUTO);
        Applied created = (Applied) gate.call(auto, "incident.create",
                "{\"systemId\":\"web\",\"title\":\"Checkout page slow\",\"severity\":\"MEDIUM\"}");
        out.println("incident.create in AUTO -> applied card:");
        card(created.summary(), created.diff());
        out.println("  result: " + Json.write(created.result()));

        String id = created.result().get("id").asString();
        CallResult delete = gate.call(auto, "incident.delete", "{\"id\":\"" + id + "\"}");
        out.println("incident.delete in AUTO -> " + delete.status() + ": " + ((Proposal) delete).summary());
        gate.reject(as(DemoPrincipals.ALICE), delete.callId(), "keep it for the postmortem");
        out.println("alice rejects it; the incident stays.");
    }

    private void durableRun() {
        heading("7. A durable run: it pauses for consent, resumes by replay after an operator's approval, and rolls back");
        gate.setMode(as(DemoPrincipals.ALICE), OverrideScope.TENANT, "incident.update", Mode.ALLOW);
        out.println("alice pre-approves incident.update in the tenant (a standing ALLOW); incident.create still asks.");
        ExecutionOutcome started = gate.executions().start(as(DemoPrincipals.CAROL), "incident.escalate",
                "{\"systemId\":\"billing\",\"title\":\"Card payments failing\",\"severity\":\"HIGH\"}");
        String run = started.executionId();
        PendingAction waiting = ((ExecutionOutcome.Paused) started).pending().get(0);
        out.printf("carol starts incident.escalate -> %s at step %d: %s%n", started.status(), waiting.seq(), waiting.summary());

        out.println("alice's inbox shows the step beside ordinary proposals:");
        for (PendingProposal pending : gate.pending(as(DemoPrincipals.ALICE), session)) {
            out.printf("  %s  step %d of run %s...  %s%n", pending.callId().substring(0, 8), pending.stepSeq(),
                    pending.executionId().substring(0, 8), pending.summary());
        }
        InboxResult resumed = gate.approve(as(DemoPrincipals.ALICE), waiting.callId(), Approval.once());
        out.println("alice approves -> the run replays (step 1 answered from its log) and is "
                + ((InboxResult.Resumed) resumed).outcome());
        ExecutionRecord record = gate.executions().find(run).orElseThrow();
        out.println("  result: " + record.resultJson() + "  log: " + record.logs());
        Map<String, Integer> seqs = new java.util.HashMap<>();
        for (CallRecord step : gate.executions().steps(run)) {
            seqs.put(step.id(), step.stepSeq());
            out.printf("  step %d  %-20s %-9s by %s%n", step.stepSeq(), step.toolName(), step.status().wireName(),
                    step.appliedBy() == null ? step.principal() : step.appliedBy());
        }

        RollbackResult rollback = gate.executions().rollback(as(DemoPrincipals.ALICE), run);
        out.println("alice rolls the run back (applied steps, newest first):");
        for (RevertResult revert : rollback.reverts()) {
            out.printf("  step %d %s%n", seqs.get(revert.callId()), revert.outcome().name().toLowerCase(java.util.Locale.ROOT));
        }
        String incident = gate.executions().find(run).map(r -> Json.parse(r.resultJson()).get("incident").asString()).orElseThrow();
        String after;
        try {
            gate.call(as(DemoPrincipals.ALICE), "incident.get", "{\"id\":\"" + incident + "\"}");
            after = "still open";
        } catch (dev.toolgate.tool.ToolValidationException e) {
            after = "gone";
        }
        out.println("  " + incident + " after the rollback: " + after + "; the run is " + rollback.status().wireName());
        gate.clearMode(as(DemoPrincipals.ALICE), OverrideScope.TENANT, "incident.update");
    }

    private void codemode() {
        heading("8. Codemode: the model writes a short script against its tools; it pauses for consent like any run");
        new CodemodeTour(gate, out, this::as).run();
    }

    private void sources() {
        heading("9. Tool sources: a database behind the gate, one that cannot be reached, an HTTP API from its OpenAPI "
                + "document, and the actions guide");
        new SourcesTour(gate, out, this::as, statusPage).run();
    }

    private void grounding() {
        heading("10. Grounding: the host's own docs with a signal to stop, and one safe look at a URL");
        new GroundingTour(gate, out, this::as).run();
    }

    private void auditTrail() {
        heading("11. The audit trail of this session (arguments are only hashed; results redacted and capped)");
        List<CallRecord> records = gate.findCalls(CallQuery.latest(100).session(session));
        int width = records.stream().mapToInt(r -> r.toolName().length()).max().orElse(1);
        for (CallRecord r : reversed(records)) {
            out.printf("  %-19s %-10s %-" + width + "s by %-13s mode %-16s args %s...%s%n", r.createdAt().toString().substring(0, 19),
                    r.status().wireName(), r.toolName(), r.principal(), r.mode().wireName(), r.argumentsHash().substring(0, 12),
                    r.appliedBy() == null ? "" : "  applied by " + r.appliedBy());
        }
    }

    private void card(String summary, List<FieldChange> diff) {
        out.println("  +--------------------------------------------------------------");
        out.println("  | " + summary);
        for (FieldChange change : diff) {
            out.printf("  |   %-12s %s -> %s%n", change.path(), change.before() == null ? "(none)" : Json.write(change.before()),
                    change.after() == null ? "(removed)" : Json.write(change.after()));
        }
        out.println("  +--------------------------------------------------------------");
    }

    private void refused(Runnable action) {
        try {
            action.run();
            out.println("  (unexpectedly allowed)");
        } catch (ProposeApplyException e) {
            out.println("  refused [" + e.code() + "]: " + e.getMessage());
        }
    }

    private void heading(String title) {
        out.println();
        out.println("== " + title);
    }

    private static <T> List<T> reversed(List<T> list) {
        List<T> copy = new java.util.ArrayList<>(list);
        java.util.Collections.reverse(copy);
        return copy;
    }
}
