package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Denied;
import dev.toolgate.call.DuplicateCallException;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ProposeApplyException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.call.UnknownToolException;
import dev.toolgate.json.Json;
import dev.toolgate.tool.ToolValidationException;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Answers the MCP task requests in front of the SDK (which has no tasks), on every transport: a
 * task-augmented {@code tools/call} (its {@code params.task} set) of a tool that may wait, and
 * {@code tasks/get}, {@code tasks/list}, {@code tasks/cancel} and {@code tasks/result}. The transports
 * hand these requests here with the request's principal, as they hand the catalog's to
 * {@link CatalogDispatch}. The tasks themselves are the gate's proposals and runs ({@link McpTasks});
 * waiting for a result ({@link TaskResults}) polls the store, so a decision taken on another instance
 * ends the wait as one taken here.
 *
 * <p>A task-augmented call is made at once, as a direct call would be (the dry-run and the proposal,
 * or the run up to its first pause), and answered with the task ({@code CreateTaskResult}). A call the
 * gate refuses before anything waits (invalid arguments, forbidden, a policy's denial, a repeat) creates
 * no task: it is answered with a JSON-RPC error ({@code -32602}) whose data is the structured feedback a
 * direct call's result would carry; over budget is the usual rate-limit error. A tool that never waits
 * (a read) called as a task is answered {@code -32601}, after the same visibility check as any call, so
 * a hidden tool still reads as unknown.
 */
final class TaskDispatch {

    private static final String IMMEDIATE = "io.modelcontextprotocol/model-immediate-response";

    static final String TASKS_GET = "tasks/get";
    static final String TASKS_LIST = "tasks/list";
    static final String TASKS_CANCEL = "tasks/cancel";
    static final String TASKS_RESULT = "tasks/result";
    /** Why a client's {@code tasks/cancel} withdrew a proposal (the audit trail's decision reason). */
    static final String CANCEL_REASON = "cancelled by the client (tasks/cancel)";

    private final Toolgate toolgate;
    private final ToolBridge bridge;
    private final McpTasks tasks;
    private final TaskResults results;
    private final TaskConsent consent;

    TaskDispatch(Toolgate toolgate, ToolBridge bridge, McpTasks tasks, TaskResults results, TaskConsent consent) {
        this.consent = consent;
        this.toolgate = toolgate;
        this.bridge = bridge;
        this.tasks = tasks;
        this.results = results;
    }

    /** Whether this request is answered here: a task method, or a {@code tools/call} with {@code params.task}. */
    boolean handles(String method, Object params) {
        if (method == null) {
            return false;
        }
        return switch (method) {
            case TASKS_GET, TASKS_LIST, TASKS_CANCEL, TASKS_RESULT -> true;
            case McpSchema.METHOD_TOOLS_CALL -> params instanceof Map<?, ?> map && map.get("task") != null;
            default -> false;
        };
    }

    /** A cheap first look at a request's text: false means it is certainly not a task request. */
    static boolean mayHandle(String method, String text) {
        return method != null && (method.startsWith("tasks/")
                || (method.equals(McpSchema.METHOD_TOOLS_CALL) && text.contains("\"task\"")));
    }

    /** The response to one request of {@code principal} in session {@code sessionId}; never throws. */
    McpSchema.JSONRPCResponse answer(Principal principal, String sessionId, McpSchema.JSONRPCRequest request) {
        return JsonRpc.respond(request, () -> {
            Map<String, Object> params = JsonRpc.params(request.params());
            return switch (request.method()) {
                case McpSchema.METHOD_TOOLS_CALL -> create(principal, sessionId, params);
                case TASKS_GET -> tasks.view(find(principal, params)).toMap();
                case TASKS_LIST -> list(principal, params);
                case TASKS_CANCEL -> cancel(principal, sessionId, params);
                case TASKS_RESULT -> results.await(principal, sessionId, find(principal, params));
                default -> throw McpError.builder(JsonRpc.METHOD_NOT_FOUND).message("Method not found: " + request.method()).build();
            };
        });
    }

    // ------------------------------------------------------------------------------------ tools/call as a task

    private Map<String, Object> create(Principal principal, String sessionId, Map<String, Object> params) {
        Object name = params.get("name");
        if (!(name instanceof String wire)) {
            throw invalid("tools/call needs params.name, a string");
        }
        Object arguments = params.get("arguments");
        if (arguments != null && !(arguments instanceof Map<?, ?>)) {
            throw invalid("params.arguments must be an object");
        }
        if (!(params.get("task") instanceof Map<?, ?>)) {
            throw invalid("params.task must be an object, such as {\"ttl\": 60000}");
        }
        TaskTargets.Target target = bridge.tasks().target(principal, wire);
        if (target == TaskTargets.Target.UNKNOWN) {
            throw ToolBridge.unknownTool(wire);
        }
        if (target == TaskTargets.Target.NOT_A_TASK) {
            throw McpError.builder(JsonRpc.METHOD_NOT_FOUND)
                    .message("Task augmentation is not supported for " + wire + ": it never waits; call it without a task")
                    .build();
        }
        CallContext context = bridge.context(principal, sessionId);
        JsonNode input = arguments == null ? null : Json.toTree(arguments);
        String gateName = bridge.gateName(wire);
        String taskId;
        try {
            taskId = target == TaskTargets.Target.PROGRAM
                    ? McpTasks.RUN_PREFIX + toolgate.executions().start(context, gateName.substring(RunTools.PREFIX.length()), input)
                            .executionId()
                    : taskOf(toolgate.call(context, gateName, input));
        } catch (McpError e) {
            throw e;
        } catch (UnknownToolException e) {
            throw ToolBridge.unknownTool(wire);
        } catch (BudgetExceededException e) {
            throw CallAnswers.rateLimited(e);
        } catch (StoreUnavailableException e) {
            throw CallAnswers.storeUnavailableError(e); // before any task exists: an error on every transport
        } catch (ToolValidationException e) {
            throw refused(e.getMessage(), CallAnswers.feedbackJson((e.toolName() == null ? e.forTool(gateName) : e).feedback()));
        } catch (DuplicateCallException e) {
            throw refused(e.getMessage(), CallAnswers.feedbackJson(e.feedback()));
        } catch (ForbiddenException e) {
            throw refused(e.getMessage(), CallAnswers.forbiddenJson(e));
        } catch (ProposeApplyException e) {
            throw refused(e.getMessage(), CallAnswers.gateErrorJson(e));
        } catch (ToolExecutionException e) {
            ObjectNode data = CallAnswers.executionFailedJson(e);
            throw McpError.builder(JsonRpc.INTERNAL_ERROR).message("Tool execution failed: " + e.getMessage())
                    .data(CallAnswers.asMap(data)).build();
        }
        McpTask task = tasks.view(tasks.find(principal, taskId));
        Map<String, Object> created = new LinkedHashMap<>();
        created.put("task", task.toMap());
        created.put("_meta", Map.of(IMMEDIATE, immediate(wire, task)));
        return created;
    }

    /** The task a governed call became: its proposal, or the run it started. */
    private String taskOf(CallResult result) {
        if (result instanceof Proposal proposal) {
            if (consent != null) {
                consent.hold(proposal); // the user consents through this instance (TaskConsent)
            }
            return McpTasks.CALL_PREFIX + proposal.callId();
        }
        if (result instanceof Applied applied) {
            JsonNode run = applied.result() == null ? null : applied.result().get("executionId");
            return run != null && run.isString() && bridge.tasks().startsRuns(applied.toolName())
                    ? McpTasks.RUN_PREFIX + run.asString() : McpTasks.CALL_PREFIX + applied.callId();
        }
        if (result instanceof Denied denied) {
            throw refused(denied.toJson().path("message").asString("Denied by policy"), denied.toJson());
        }
        throw new IllegalStateException("a tool that may wait answered " + result.getClass().getSimpleName());
    }

    /** What the model is told at once, while the task waits (the spec's model-immediate-response). */
    private static String immediate(String wire, McpTask task) {
        return switch (task.status()) {
            case McpTask.INPUT_REQUIRED -> wire + " is waiting for consent (" + task.statusMessage() + "). Nothing has changed "
                    + "yet; the outcome follows when it is decided. Do not call it again.";
            case McpTask.WORKING -> wire + " is running; the outcome follows.";
            default -> wire + " ended: " + task.statusMessage() + ".";
        };
    }

    private static McpError refused(String message, ObjectNode data) {
        return McpError.builder(JsonRpc.INVALID_PARAMS).message(message == null ? "Refused" : message)
                .data(CallAnswers.asMap(data)).build();
    }

    // ------------------------------------------------------------------------------------ tasks/*

    private McpTasks.Target find(Principal principal, Map<String, Object> params) {
        Object taskId = params.get("taskId");
        if (!(taskId instanceof String id)) {
            throw invalid("params.taskId must be a string");
        }
        try {
            return tasks.find(principal, id);
        } catch (McpTasks.Missing e) {
            throw McpError.builder(JsonRpc.INVALID_PARAMS).message("Failed to retrieve task: " + e.getMessage()).build();
        }
    }

    private Map<String, Object> list(Principal principal, Map<String, Object> params) {
        Object cursor = params.get("cursor");
        if (cursor != null && !(cursor instanceof String)) {
            throw invalid("params.cursor must be a string from a previous page");
        }
        McpTasks.Page page;
        try {
            page = tasks.list(principal, (String) cursor);
        } catch (IllegalArgumentException e) {
            throw invalid("Invalid cursor: pass nextCursor from a previous page, unchanged");
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("tasks", page.tasks().stream().map(McpTask::toMap).toList());
        if (page.nextCursor() != null) {
            result.put("nextCursor", page.nextCursor());
        }
        return result;
    }

    private Map<String, Object> cancel(Principal principal, String sessionId, Map<String, Object> params) {
        McpTasks.Target target = find(principal, params);
        McpTask before = tasks.view(target);
        if (before.terminal()) {
            throw invalid("Cannot cancel task: already in terminal status '" + before.status() + "'");
        }
        String pending = tasks.pendingCallId(target);
        if (pending == null) {
            throw invalid("Cannot cancel task: it is " + before.status() + " (" + before.statusMessage() + "), not waiting "
                    + "for consent; what already ran is not undone by cancelling (a run is undone by rolling it back)");
        }
        toolgate.withdraw(bridge.context(principal, sessionId), pending, CANCEL_REASON);
        McpTask after = tasks.view(find(principal, params));
        if (!after.status().equals(McpTask.CANCELLED)) {
            // decided meanwhile (approved, expired), perhaps on another instance: say what it became
            throw invalid("Cannot cancel task: it was decided meanwhile and is " + after.status() + " ("
                    + after.statusMessage() + ")");
        }
        return after.toMap();
    }

    private static McpError invalid(String message) {
        return McpError.builder(JsonRpc.INVALID_PARAMS).message(message).build();
    }

    /**
     * The stdio hook: takes task requests off the SDK's path and answers each on
     * {@code boundedElastic} (a {@code tasks/result} waits), through the session's serialized transport.
     */
    StdioInput.Route stdioRoute(Principal principal, StdioSerialSends sends, McpJsonMapper mapper) {
        return (checked, text) -> {
            if (!mayHandle(checked.method(), text)) {
                return false;
            }
            McpSchema.JSONRPCRequest request;
            try {
                request = (McpSchema.JSONRPCRequest) McpSchema.deserializeJsonRpcMessage(mapper, text);
            } catch (IOException | RuntimeException e) {
                return false; // the SDK answers what it cannot read either
            }
            if (!handles(request.method(), request.params())) {
                return false;
            }
            Runnable work = () -> sends.send(answer(principal, CatalogDispatch.STDIO_SESSION, request));
            try {
                Schedulers.boundedElastic().schedule(work);
            } catch (RejectedExecutionException e) {
                work.run();
            }
            return true;
        };
    }
}
