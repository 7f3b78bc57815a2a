package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.execution.Executions;
import dev.toolgate.execution.PendingAction;
import dev.toolgate.execution.RollbackResult;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.RevertResult;
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
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The decisions on a durable run over MCP, made after the user saw the run's outcome:
 * {@value #APPROVE} (the pending step of a paused run), {@value #REJECT} (it, which ends the run) and
 * {@value #ROLLBACK} (revert what a run applied, newest first). Who may decide is the execution
 * runtime's rule: the run's principal or an operator. A DESTRUCTIVE step is first confirmed through
 * elicitation when the client supports it, as the apply tool does.
 */
final class RunDecisions {

    static final String APPROVE = "toolgate.approve";
    static final String REJECT = "toolgate.reject";
    static final String ROLLBACK = "toolgate.rollback";
    static final Set<String> NAMES = Set.of(APPROVE, REJECT, ROLLBACK);

    private final Toolgate toolgate;
    private final Executions executions;

    private final java.util.function.BiFunction<McpSyncServerExchange, ExecutionOutcome, CallToolResult> outcomes;

    RunDecisions(Toolgate toolgate, Executions executions,
                 java.util.function.BiFunction<McpSyncServerExchange, ExecutionOutcome, CallToolResult> outcomes) {
        this.toolgate = toolgate;
        this.outcomes = outcomes;
        this.executions = executions;
    }

    /** The three tools, in the order a client shows them. */
    Map<String, McpSchema.Tool> tools() {
        Map<String, McpSchema.Tool> tools = new LinkedHashMap<>();
        tools.put(APPROVE, tool(APPROVE, "Approve a paused run's step", step(false),
                "Approve the pending step of a paused run (an outcome with status paused). Call it only after the user "
                        + "has seen the step's summary and agreed. The run then goes on from where it paused and returns "
                        + "its next outcome.", false));
        tools.put(REJECT, tool(REJECT, "Reject a paused run's step", step(true),
                "Reject the pending step of a paused run when the user does not agree. Nothing of that step happens and "
                        + "the run ends as rejected; what earlier steps applied stays until " + ROLLBACK + " undoes it.",
                false));
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("executionId", Map.of("type", "string", "description", "The run's id, from its outcome."));
        tools.put(ROLLBACK, tool(ROLLBACK, "Roll a run back", object(properties, List.of("executionId")),
                "Undo what a paused or finished run applied: every applied step whose tool can be reverted is reverted, "
                        + "newest first; a pending step is rejected first. Safe to repeat: a second rollback reverts "
                        + "nothing. Call it only when the user asked to undo the run.", true));
        return tools;
    }

    /** Decides; gate errors are the caller's to map. */
    CallToolResult call(McpSyncServerExchange exchange, CallContext context, String name, Map<String, Object> arguments,
                        RunTools.Confirmer confirmer) {
        return switch (name) {
            case APPROVE -> approve(exchange, context, arguments, confirmer);
            case REJECT -> reject(context, arguments);
            case ROLLBACK -> rollback(context, arguments);
            default -> throw new IllegalArgumentException("not a decision tool: " + name);
        };
    }

    private CallToolResult approve(McpSyncServerExchange exchange, CallContext context, Map<String, Object> arguments,
                                   RunTools.Confirmer confirmer) {
        Arguments args = Arguments.check(APPROVE, arguments, true, false);
        Optional<PendingAction> pending = executions.pending(context).stream()
                .filter(a -> a.executionId().equals(args.executionId) && a.seq() == args.seq).findFirst();
        if (pending.isPresent() && isDestructive(pending.get().tool())) {
            CallToolResult refusal = confirmer.confirm(exchange, pending.get().callId(), pending.get().tool(),
                    pending.get().summary());
            if (refusal != null) {
                return refusal;
            }
        }
        return outcomes.apply(exchange, executions.approve(context, args.executionId, args.seq));
    }

    private CallToolResult reject(CallContext context, Map<String, Object> arguments) {
        Arguments args = Arguments.check(REJECT, arguments, true, true);
        boolean rejected = executions.reject(context, args.executionId, args.seq, args.reason);
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("executionId", args.executionId);
        json.put("seq", args.seq);
        json.put("rejected", rejected);
        executions.find(args.executionId).ifPresent(run -> json.put("status", run.status().wireName()));
        if (!rejected) {
            json.put("message", "step " + args.seq + " was no longer pending (approved, rejected or expired meanwhile); "
                    + "nothing was changed");
        }
        return result(json, !rejected);
    }

    private CallToolResult rollback(CallContext context, Map<String, Object> arguments) {
        Arguments args = Arguments.check(ROLLBACK, arguments, false, false);
        RollbackResult rollback = executions.rollback(context, args.executionId);
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("executionId", rollback.executionId());
        json.put("status", rollback.status().wireName());
        json.put("reverted", rollback.reverted());
        ArrayNode reverts = json.putArray("reverts");
        for (RevertResult revert : rollback.reverts()) {
            ObjectNode one = reverts.addObject();
            one.put("callId", revert.callId());
            one.put("outcome", revert.outcome().name().toLowerCase(Locale.ROOT));
            if (revert.message() != null) {
                one.put("message", revert.message());
            }
        }
        if (rollback.refusal() != null) {
            json.put("refusal", rollback.refusal());
        }
        return result(json, rollback.refusal() != null);
    }

    private boolean isDestructive(String tool) {
        return isDestructive(toolgate, tool);
    }

    /** True if {@code tool} is registered on {@code toolgate} and DESTRUCTIVE. */
    static boolean isDestructive(Toolgate toolgate, String tool) {
        return toolgate.registry().find(tool).map(t -> t.effect() == Effect.DESTRUCTIVE).orElse(false);
    }

    private static CallToolResult result(ObjectNode json, boolean error) {
        return CallToolResult.builder()
                .structuredContent(Json.mapper().convertValue(json, Map.class))
                .addTextContent(Json.write(json))
                .isError(error)
                .build();
    }

    private static McpSchema.Tool tool(String name, String title, Map<String, Object> schema, String description,
                                       boolean destructive) {
        return McpSchema.Tool.builder(name, schema).title(title).description(description)
                .annotations(ToolAnnotations.builder().title(title).readOnlyHint(false).destructiveHint(destructive)
                        .idempotentHint(false).openWorldHint(false).build())
                .build();
    }

    private static Map<String, Object> step(boolean withReason) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("executionId", Map.of("type", "string", "description", "The run's id, from its outcome."));
        properties.put("seq", Map.of("type", "integer", "minimum", 1, "description", "The pending step's number."));
        if (withReason) {
            properties.put("reason", Map.of("type", "string", "maxLength", Arguments.MAX_REASON,
                    "description", "Why, in the user's words; kept with the run."));
        }
        return object(properties, List.of("executionId", "seq"));
    }

    private static Map<String, Object> object(Map<String, Object> properties, List<String> required) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", properties);
        schema.put("required", required);
        schema.put("additionalProperties", false);
        return schema;
    }

    /** A decision's arguments, checked: every problem is reported at its path, and nothing runs. */
    private record Arguments(String executionId, int seq, String reason) {
        static final int MAX_REASON = 500;

        static Arguments check(String tool, Map<String, Object> arguments, boolean withSeq, boolean withReason) {
            List<ValidationIssue> issues = new ArrayList<>();
            Map<String, Object> args = arguments == null ? Map.of() : arguments;
            Object id = args.get("executionId");
            if (!(id instanceof String text) || text.isBlank()) {
                issues.add(ValidationIssue.at("/executionId", "is required: the run's id, a string"));
            }
            Object seq = args.get("seq");
            if (withSeq && (!(seq instanceof Number number) || number.doubleValue() < 1
                    || number.doubleValue() != Math.floor(number.doubleValue()) || number.doubleValue() > Integer.MAX_VALUE)) {
                issues.add(ValidationIssue.at("/seq", "is required: the pending step's number, an integer from 1"));
            }
            Object reason = args.get("reason");
            if (withReason && reason != null && (!(reason instanceof String text) || text.length() > MAX_REASON)) {
                issues.add(ValidationIssue.at("/reason", "is a string of at most " + MAX_REASON + " characters"));
            }
            Set<String> allowed = withReason ? Set.of("executionId", "seq", "reason")
                    : withSeq ? Set.of("executionId", "seq") : Set.of("executionId");
            args.keySet().stream().filter(k -> !allowed.contains(k)).sorted()
                    .forEach(k -> issues.add(ValidationIssue.at("/" + k, "is not allowed")));
            if (!issues.isEmpty()) {
                throw new ToolValidationException(tool, issues);
            }
            return new Arguments((String) id, withSeq ? ((Number) seq).intValue() : 0, (String) reason);
        }
    }
}
