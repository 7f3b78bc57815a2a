package dev.toolgate.examples;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.codemode.Codemode;
import dev.toolgate.execution.RollbackResult;
import dev.toolgate.call.Applied;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.InboxResult;
import dev.toolgate.json.Json;
import java.io.PrintStream;
import java.util.Map;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * The demo's codemode section: carol's model reads the declarations of her tools, tests a short
 * script (nothing changes), runs it (it pauses where consent is needed), alice approves it in the
 * inbox (the script runs again, served from its log) and rolls it back.
 */
final class CodemodeTour {

    static final String SCRIPT = """
            const systems = tools.catalog.listSystems({});
            const billing = systems.find(s => s.id === "billing");
            const incident = tools.incident.create({systemId: billing.id, title: "Invoices stuck in the queue", severity: "HIGH"});
            console.log("opened", incident.dryRun ? "(a dry run)" : incident.id, "for", billing.owner);
            return {incident: incident.id, owner: billing.owner};
            """;

    private final Toolgate gate;
    private final PrintStream out;
    private final Function<Principal, CallContext> as;

    CodemodeTour(Toolgate gate, PrintStream out, Function<Principal, CallContext> as) {
        this.gate = gate;
        this.out = out;
        this.as = as;
    }

    void run() {
        CallContext carol = as.apply(DemoPrincipals.CAROL);
        JsonNode declared = ((Executed) gate.call(carol, Codemode.DESCRIBE, "{}")).result();
        out.println("codemode.describe for carol -> " + declared.get("tools").size() + " tools declared; incident.create reads:");
        java.util.List<String> lines = declared.get("typescript").asString().lines().toList();
        int start = 0;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("    /**")) {
                start = i;
            }
            if (lines.get(i).startsWith("    create(input")) {
                break;
            }
        }
        for (int i = start; i < lines.size(); i++) { // the doc comment, then the member up to its closing line
            out.println("  " + lines.get(i));
            if (i > start && lines.get(i).matches(" {4}\\S.*;$|^ {4}}.*;$")) {
                break;
            }
        }

        out.println("the script carol's model wrote:");
        SCRIPT.lines().forEach(line -> out.println("  | " + line));
        JsonNode test = ((Executed) gate.call(carol, Codemode.TEST, Json.toTree(Map.of("code", SCRIPT)))).result();
        out.println("codemode.test runs the script with mutations answered by their dry-runs -> " + test.get("status").asString()
                + (test.has("error") ? ": " + test.get("error").asString() : ""));
        for (JsonNode step : test.get("steps")) {
            out.printf("  step %d  %-20s %-12s %s%n", step.get("seq").asInt(), step.get("tool").asString(),
                    step.get("outcome").asString(), step.path("summary").asString(""));
        }
        out.println("  logs: " + test.get("logs"));

        JsonNode outcome = ((Applied) gate.call(carol, Codemode.RUN, Json.toTree(Map.of("code", SCRIPT)))).result();
        JsonNode pending = outcome.get("pending").get(0);
        String run = outcome.get("executionId").asString();
        out.printf("codemode.run -> %s at step %d (%s): %s%n", outcome.get("status").asString(), pending.get("seq").asInt(),
                pending.get("tool").asString(), pending.get("summary").asString());

        InboxResult approved = gate.approve(as.apply(DemoPrincipals.ALICE), pending.get("callId").asString(), Approval.once());
        out.println("alice approves in the inbox -> the script runs again, step 1 from the log, and is "
                + ((InboxResult.Resumed) approved).outcome());
        ExecutionRecord record = gate.executions().find(run).orElseThrow();
        out.println("  result: " + record.resultJson() + "  logs: " + record.logs());

        RollbackResult rollback = gate.executions().rollback(as.apply(DemoPrincipals.ALICE), run);
        out.println("alice rolls the script's run back -> " + rollback.reverted() + " step reverted; the run is "
                + rollback.status().wireName());
    }
}
