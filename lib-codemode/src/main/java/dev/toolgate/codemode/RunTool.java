package dev.toolgate.codemode;

import dev.toolgate.Toolgate;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolValidationException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@value Codemode#RUN}: starts the script as a durable execution. The tool has a standing approval:
 * its own call is dry-run (the summary names the tools the script calls), recorded and applied at
 * once, and each call the script makes gets its own consent; the run's own rollback undoes what
 * the script applied.
 */
final class RunTool {

    private RunTool() {
    }

    static Tool<Codemode.Code, ObjectNode> build(Toolgate gate, Codemode.Limits limits, String[] rules) {
        return Tool.builder("run", Codemode.Code.class)
                .title("Run a codemode script")
                .description("Run JavaScript against the tools declared by codemode.describe (test it first with codemode.test). "
                        + "Write the body of a function: statements, then return the result; tools.<plugin>.<name>(input) is "
                        + "synchronous and returns plain JSON. Reads run at once. A change that needs consent pauses the run: "
                        + "the outcome has status paused, the executionId and the pending step's summary; nothing of that "
                        + "step has happened. After the user agrees, an approval runs the script again from the start, "
                        + "answering finished steps from the run's log, so keep the script deterministic. Errors come back "
                        + "as status error with line:column. Catch DeniedError, ValidationError or ToolError to go on.")
                .effect(Effect.MUTATE)
                .standingApproval()
                .requires(rules)
                .timeout(limits.timeout().plus(gate.settings().executionTimeout()).plusSeconds(5))
                .dryRun((in, ctx) -> {
                    check(in, limits);
                    List<String> names = gate.resolveTools(ctx.principal()).stream().map(RegisteredTool::name)
                            .filter(n -> !n.startsWith(Codemode.PLUGIN + ".")).toList();
                    return Preview.of(Scan.summary(in.code(), names));
                })
                .execute((in, ctx) -> {
                    check(in, limits);
                    ExecutionOutcome outcome = gate.executions().start(Contexts.of(ctx), Codemode.RUN,
                            CodemodeProgram.input(in.code(), limits));
                    return outcome(outcome);
                })
                .build();
    }

    private static void check(Codemode.Code in, Codemode.Limits limits) {
        if (in.code() == null || in.code().isBlank()) {
            throw new ToolValidationException("/code", "is empty: write the body of a function, e.g. "
                    + "const x = tools.a.b({}); return x;");
        }
        int bytes = in.code().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > limits.maxSourceBytes()) {
            throw new ToolValidationException("/code", "is " + bytes + " bytes; the limit is " + limits.maxSourceBytes());
        }
    }

    /** The outcome as the model reads it; a paused one says what to do next. */
    static ObjectNode outcome(ExecutionOutcome outcome) {
        ObjectNode json = outcome.toJson();
        if (outcome instanceof ExecutionOutcome.Failed) {
            json.put("status", "error"); // codemode's word for it: the script did not complete
        }
        if (outcome instanceof ExecutionOutcome.Paused) {
            json.put("next", "The run is paused; nothing of the pending step has happened. Show the user its summary; "
                    + "an operator approves or rejects it (over MCP: toolgate.approve or toolgate.reject with the "
                    + "executionId and the step's seq), and the script then goes on from where it stopped.");
        }
        return json;
    }
}
