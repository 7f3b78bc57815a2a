package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.execution.Executions;
import dev.toolgate.execution.PendingAction;
import dev.toolgate.gate.CallContext;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ToolAnnotations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * Durable executions over MCP: one tool per registered program ({@code run.<program>}, its
 * arguments the program's input, its result the run's outcome), and {@value #APPROVE_TOOL}, which
 * approves the pending step of a paused run by its execution id and step, after the user saw it. A
 * DESTRUCTIVE step is first confirmed through elicitation when the client supports it, as the apply
 * tool does.
 */
final class RunTools {

    /** The prefix of a program's tool name. */
    static final String PREFIX = "run.";
    /** The tool that approves a paused run's pending step. */
    static final String APPROVE_TOOL = "toolgate.approve";

    /** Asks the human to confirm a destructive step; null if they accepted, else the refusal to return. */
    @FunctionalInterface
    interface Confirmer {
        CallToolResult confirm(McpSyncServerExchange exchange, String callId, String tool, String summary);
    }

    private final Toolgate toolgate;
    private final Executions executions;

    RunTools(Toolgate toolgate) {
        this.toolgate = toolgate;
        Executions found;
        try {
            found = toolgate.executions();
        } catch (UnsupportedOperationException e) {
            found = null;
        }
        this.executions = found;
    }

    /** The program tools and the approve tool, or none when no program is registered. */
    Map<String, McpSchema.Tool> tools() {
        Map<String, McpSchema.Tool> tools = new LinkedHashMap<>();
        if (executions == null || executions.programs().isEmpty()) {
            return tools;
        }
        for (String program : executions.programs()) {
            Map<String, Object> schema = new LinkedHashMap<>();
            schema.put("type", "object");
            schema.put("description", "The program's input.");
            tools.put(PREFIX + program, McpSchema.Tool.builder(PREFIX + program, schema)
                    .title("Run " + program)
                    .description("Start a run of the program " + program + ": several governed tool calls in a row. Reads "
                            + "run at once; a step that needs consent pauses the run (status paused, with the pending "
                            + "step's summary); after the user agrees, call " + APPROVE_TOOL + " with its executionId and seq.")
                    .annotations(ToolAnnotations.builder().title("Run " + program).readOnlyHint(false).destructiveHint(true)
                            .idempotentHint(false).openWorldHint(false).build())
                    .build());
        }
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("executionId", Map.of("type", "string", "description", "The run's id, from its outcome."));
        properties.put("seq", Map.of("type", "integer", "minimum", 1, "description", "The pending step's number."));
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", properties);
        schema.put("required", List.of("executionId", "seq"));
        schema.put("additionalProperties", false);
        tools.put(APPROVE_TOOL, McpSchema.Tool.builder(APPROVE_TOOL, schema)
                .title("Approve a paused run's step")
                .description("Approve the pending step of a paused run (a run outcome with status paused). Call it only "
                        + "after the user has seen the step's summary and agreed. The run then goes on from where it "
                        + "paused and returns its next outcome.")
                .annotations(ToolAnnotations.builder().title("Approve a paused run's step").readOnlyHint(false)
                        .destructiveHint(true).idempotentHint(false).openWorldHint(false).build())
                .build());
        return tools;
    }

    /** True if {@code name} is one of these tools. */
    boolean handles(String name) {
        return executions != null && (name.equals(APPROVE_TOOL)
                || (name.startsWith(PREFIX) && executions.programs().contains(name.substring(PREFIX.length()))));
    }

    /** Starts a run, or approves a step; gate errors are the caller's to map. */
    CallToolResult call(McpSyncServerExchange exchange, CallContext context, String name, Map<String, Object> arguments,
                        Confirmer confirmer) {
        if (name.equals(APPROVE_TOOL)) {
            return approve(exchange, context, arguments, confirmer);
        }
        ExecutionOutcome outcome = executions.start(context, name.substring(PREFIX.length()),
                arguments == null ? null : Json.toTree(arguments));
        return result(outcome);
    }

    private CallToolResult approve(McpSyncServerExchange exchange, CallContext context, Map<String, Object> arguments,
                                   Confirmer confirmer) {
        List<ValidationIssue> issues = new ArrayList<>();
        Object id = arguments == null ? null : arguments.get("executionId");
        Object seq = arguments == null ? null : arguments.get("seq");
        if (!(id instanceof String)) {
            issues.add(ValidationIssue.at("/executionId", "is required: the run's id, a string"));
        }
        if (!(seq instanceof Number number) || number.intValue() < 1 || number.doubleValue() != number.intValue()) {
            issues.add(ValidationIssue.at("/seq", "is required: the pending step's number, an integer from 1"));
        }
        if (arguments != null) {
            arguments.keySet().stream().filter(k -> !k.equals("executionId") && !k.equals("seq")).sorted()
                    .forEach(k -> issues.add(ValidationIssue.at("/" + k, "is not allowed")));
        }
        if (!issues.isEmpty()) {
            throw new ToolValidationException(APPROVE_TOOL, issues);
        }
        String executionId = (String) id;
        int step = ((Number) seq).intValue();
        Optional<PendingAction> pending = executions.pending(context).stream()
                .filter(a -> a.executionId().equals(executionId) && a.seq() == step).findFirst();
        if (pending.isPresent() && isDestructive(pending.get().tool())) {
            CallToolResult refusal = confirmer.confirm(exchange, pending.get().callId(), pending.get().tool(),
                    pending.get().summary());
            if (refusal != null) {
                return refusal;
            }
        }
        return result(executions.approve(context, executionId, step));
    }

    private boolean isDestructive(String tool) {
        return toolgate.registry().find(tool).map(t -> t.effect() == Effect.DESTRUCTIVE).orElse(false);
    }

    private static CallToolResult result(ExecutionOutcome outcome) {
        ObjectNode json = outcome.toJson();
        if (outcome instanceof ExecutionOutcome.Paused) {
            json.put("approveTool", APPROVE_TOOL);
            json.put("next", "The run is paused; nothing of the pending step has happened. Show the user its summary; "
                    + "only after they agree, call " + APPROVE_TOOL + " with the executionId and the step's seq.");
        }
        boolean error = outcome instanceof ExecutionOutcome.Failed || outcome instanceof ExecutionOutcome.NotPaused;
        return CallToolResult.builder()
                .structuredContent(Json.mapper().convertValue(json, Map.class))
                .addTextContent(Json.write(json))
                .isError(error)
                .build();
    }
}
