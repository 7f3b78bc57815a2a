package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.execution.Executions;
import dev.toolgate.execution.PendingAction;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
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
 * arguments the program's input, its result the run's outcome), and the {@link RunDecisions} on
 * paused and finished runs ({@code toolgate.approve}, {@code toolgate.reject},
 * {@code toolgate.rollback}). A program fronted by a registered tool of the same name (codemode's
 * {@code codemode.run}, say) gets no tool of its own: the tool starts it.
 */
final class RunTools {

    private static final tools.jackson.core.type.TypeReference<Map<String, Object>> MAP = new tools.jackson.core.type.TypeReference<>() {
    };

    /** The prefix of a program's tool name. */
    static final String PREFIX = "run.";

    /** Asks the human to confirm a destructive step; null if they accepted, else the refusal to return. */
    @FunctionalInterface
    interface Confirmer {
        CallToolResult confirm(McpSyncServerExchange exchange, String callId, String tool, String summary);
    }

    private final Toolgate toolgate;
    private final Executions executions;
    private final RunDecisions decisions;
    private final ClientConsent consent;

    RunTools(Toolgate toolgate, ClientConsent consent) {
        this.toolgate = toolgate;
        this.consent = consent;
        this.executions = executionsOf(toolgate);
        this.decisions = executions == null ? null : new RunDecisions(toolgate, executions, this::result);
    }

    /** The gate's durable executions, or null when its store keeps none. */
    static Executions executionsOf(Toolgate toolgate) {
        try {
            return toolgate.executions();
        } catch (UnsupportedOperationException e) {
            return null;
        }
    }

    /** The program tools and the decision tools, or none when no program is registered. */
    Map<String, McpSchema.Tool> tools() {
        Map<String, McpSchema.Tool> tools = new LinkedHashMap<>();
        if (executions == null || executions.programs().isEmpty()) {
            return tools;
        }
        for (String program : served()) {
            Map<String, Object> schema = executions.inputSchema(program)
                    .map(json -> Json.mapper().convertValue(json, MAP)).orElseGet(LinkedHashMap::new);
            schema.putIfAbsent("type", "object");
            schema.putIfAbsent("description", "The program's input.");
            tools.put(PREFIX + program, McpSchema.Tool.builder(PREFIX + program, schema)
                    .title("Run " + program)
                    .description("Start a run of the program " + program + ": several governed tool calls in a row. Reads "
                            + "run at once; a step that needs consent pauses the run (status paused, with the pending "
                            + "step's summary); after the user agrees, call " + RunDecisions.APPROVE
                            + " with its executionId and seq.")
                    .annotations(ToolAnnotations.builder().title("Run " + program).readOnlyHint(false).destructiveHint(true)
                            .idempotentHint(false).openWorldHint(false).build())
                    .build());
        }
        if (consent.clientDecides()) {
            tools.putAll(decisions.tools());
        }
        return tools;
    }

    /** The programs served as {@code run.<program>}: those no registered tool fronts. */
    private List<String> served() {
        return executions.programs().stream().filter(p -> toolgate.registry().find(p).isEmpty()).toList();
    }

    /** True if {@code name} is one of these tools. */
    boolean handles(String name) {
        return executions != null && !executions.programs().isEmpty() && ((isDecision(name) && consent.clientDecides())
                || (name.startsWith(PREFIX) && served().contains(name.substring(PREFIX.length()))));
    }

    /** True if {@code tool} is registered and DESTRUCTIVE. */
    boolean isDestructive(String tool) {
        return RunDecisions.isDestructive(toolgate, tool);
    }

    /** True if the registered tool {@code toolName} fronts a program of the same name: its call starts a run. */
    boolean startsRuns(String toolName) {
        return executions != null && executions.programs().contains(toolName);
    }

    /** True if {@code name} is a decision tool: listed, like the apply tool, only to who may mutate. */
    static boolean isDecision(String name) {
        return RunDecisions.NAMES.contains(name);
    }

    /** Starts a run, or decides on one; gate errors are the caller's to map. */
    CallToolResult call(McpSyncServerExchange exchange, CallContext context, String name, Map<String, Object> arguments,
                        Confirmer confirmer) {
        if (isDecision(name)) {
            return decisions.call(exchange, context, name, arguments, confirmer);
        }
        ExecutionOutcome outcome = executions.start(context, name.substring(PREFIX.length()),
                arguments == null ? null : Json.toTree(arguments));
        return result(exchange, outcome);
    }

    /** A run's outcome as a tool result; a paused one says who must act and how. */
    CallToolResult result(McpSyncServerExchange exchange, ExecutionOutcome outcome) {
        ObjectNode json = consent.outcome(outcome, exchange, this::isDestructive);
        boolean error = outcome instanceof ExecutionOutcome.Failed || outcome instanceof ExecutionOutcome.NotPaused;
        return CallToolResult.builder()
                .structuredContent(Json.mapper().convertValue(json, Map.class))
                .addTextContent(Json.write(json))
                .isError(error)
                .build();
    }
}
