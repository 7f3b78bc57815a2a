package dev.toolgate.codemode;

import dev.toolgate.Toolgate;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
import dev.toolgate.json.TextCap;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.Tool;
import java.security.SecureRandom;
import java.util.SortedSet;
import java.util.TreeSet;
import tools.jackson.databind.node.ObjectNode;

/** {@value Codemode#TEST}: runs a script with its mutations answered by their dry-runs; nothing changes. */
final class TestTool {

    private static final SecureRandom SEEDS = new SecureRandom();

    private TestTool() {
    }

    static Tool<Codemode.Code, ObjectNode> build(Toolgate gate, Sandbox sandbox, Codemode.Limits limits, String[] rules) {
        return Tool.builder("test", Codemode.Code.class)
                .title("Test a codemode script (changes nothing)")
                .description("Run JavaScript against the tools declared by codemode.describe, with every change answered by "
                        + "its dry-run instead: nothing changes. Reads run for real. Write the body of a function: statements, "
                        + "then return the result. tools.<plugin>.<name>(input) is synchronous; a mutation returns "
                        + "{dryRun: true, summary, payload}. console.log goes to logs. Returns the result or the error "
                        + "(with line:column), the logs, each step, and which steps would wait for approval in codemode.run.")
                .effect(Effect.READ)
                .requires(rules)
                .timeout(limits.timeout().plus(gate.settings().executionTimeout()).plusSeconds(5))
                .execute((in, ctx) -> test(gate, sandbox, limits, Contexts.of(ctx), in.code()))
                .build();
    }

    static ObjectNode test(Toolgate gate, Sandbox sandbox, Codemode.Limits limits, CallContext context, String code) {
        SortedSet<String> tools = new TreeSet<>();
        for (RegisteredTool tool : gate.resolveTools(context.principal())) {
            if (!tool.name().startsWith(Codemode.PLUGIN + ".")) {
                tools.add(tool.name());
            }
        }
        TestCaller caller = new TestCaller(gate, context, tools);
        Logs logs = new Logs(limits.maxLogLines(), line -> { });
        ObjectNode report = Json.object();
        Sandbox.Result result;
        try {
            result = sandbox.run(code == null ? "" : code, new Sandbox.Bindings(caller, tools, SEEDS.nextLong(),
                    System.currentTimeMillis(), logs), limits.sandbox());
        } catch (TestCaller.Refused refused) {
            result = null;
            report.put("status", "error");
            report.put("error", TextCap.forMessage(gate.settings().redactor().redactText(refused.getMessage())));
        }
        if (result instanceof Sandbox.Result.Returned returned) {
            report.put("status", "completed");
            report.set("result", gate.settings().redactor().redact(Json.parse(returned.json())));
        } else if (result instanceof Sandbox.Result.Failed failed) {
            report.put("status", "error");
            report.put("error", TextCap.forMessage(gate.settings().redactor().redactText(failed.error().describe())));
        }
        report.set("logs", Json.toTree(logs.lines().stream().map(gate.settings().redactor()::redactText).toList()));
        report.set("steps", caller.steps());
        report.set("wouldPause", Json.toTree(caller.wouldPause()));
        return report;
    }
}
