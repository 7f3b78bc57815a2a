package dev.toolgate.mcp;

import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.ProposeApplyException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.json.Json;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.tool.Feedback;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How the gate's refusals and failures read over MCP: each as the structured JSON a model can act
 * on, and as a tool result ({@code isError: true}) carrying it. A direct {@code tools/call} answers
 * with the result; a task-augmented one, refused before any task exists, with a JSON-RPC error whose
 * data is the same JSON ({@link TaskDispatch}).
 */
final class CallAnswers {

    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    private CallAnswers() {
    }

    static CallToolResult feedback(Feedback feedback) {
        return result(feedbackJson(feedback), true);
    }

    static ObjectNode feedbackJson(Feedback feedback) {
        ObjectNode json = Json.object();
        json.put("status", "invalid");
        json.setAll(feedback.toJson());
        return json;
    }

    static CallToolResult forbidden(ForbiddenException e) {
        return result(forbiddenJson(e), true);
    }

    static ObjectNode forbiddenJson(ForbiddenException e) {
        ObjectNode json = Json.object();
        json.put("status", "forbidden");
        json.put("kind", "forbidden");
        json.put("code", e.code());
        json.put("toolName", e.toolName());
        ArrayNode missing = json.putArray("missingRules");
        e.missingRules().stream().sorted().forEach(missing::add);
        json.put("message", e.getMessage());
        return json;
    }

    static CallToolResult gateError(ProposeApplyException e) {
        return result(gateErrorJson(e), true);
    }

    static ObjectNode gateErrorJson(ProposeApplyException e) {
        ObjectNode json = Json.object();
        json.put("status", "error");
        json.put("kind", "gate");
        json.put("code", e.code());
        json.put("message", e.getMessage());
        return json;
    }

    static CallToolResult executionFailed(ToolExecutionException e) {
        return result(executionFailedJson(e), true);
    }

    static ObjectNode executionFailedJson(ToolExecutionException e) {
        ObjectNode json = Json.object();
        json.put("status", "failed");
        json.put("kind", "execution");
        json.put("callId", e.callId());
        json.put("toolName", e.toolName());
        json.put("timedOut", e.timedOut());
        json.put("message", e.getMessage());
        return json;
    }

    /** Structured content plus one text block holding the same JSON. */
    static CallToolResult result(ObjectNode json, boolean isError) {
        return CallToolResult.builder()
                .structuredContent(Json.mapper().convertValue(json, MAP))
                .addTextContent(Json.write(json))
                .isError(isError)
                .build();
    }

    /** Over budget: JSON-RPC error {@value ToolgateMcpServer#RATE_LIMITED} saying when to retry. */
    static McpError rateLimited(BudgetExceededException e) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("retryAfterSeconds", e.retryAfterSeconds());
        data.put("retryAfterMillis", Math.max(1, e.retryAfter().toMillis()));
        if (e.limit() != null) {
            data.put("limit", e.limit().calls());
            data.put("windowSeconds", e.limit().window().toSeconds());
        }
        return McpError.builder(ToolgateMcpServer.RATE_LIMITED)
                .message("Rate limited: too many tool calls; retry after " + e.retryAfterSeconds() + " s")
                .data(data)
                .build();
    }

    /**
     * The store is unavailable, as a tool result a model can relay ({@code isError: true}, status
     * {@code unavailable}): for stdio, where no HTTP status can carry it.
     */
    static CallToolResult storeUnavailable(StoreUnavailableException e) {
        return result(storeUnavailableJson(e), true);
    }

    static ObjectNode storeUnavailableJson(StoreUnavailableException e) {
        ObjectNode json = e.toJson();
        return json;
    }

    /**
     * The store is unavailable: JSON-RPC error {@value ToolgateMcpServer#STORE_UNAVAILABLE} saying when to
     * retry (HTTP 503, with {@code Retry-After} when retryable, on Streamable HTTP). The message says
     * nothing of the database but its kind of fault.
     */
    static McpError storeUnavailableError(StoreUnavailableException e) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("fault", e.fault().name());
        data.put("retryable", e.retryable());
        e.retryAfter().ifPresent(after -> {
            data.put("retryAfterSeconds", e.retryAfterSeconds());
            data.put("retryAfterMillis", Math.max(1, after.toMillis()));
        });
        return McpError.builder(ToolgateMcpServer.STORE_UNAVAILABLE)
                .message("Store unavailable: " + e.advice())
                .data(data)
                .build();
    }

    /** The structured content as a map, for a result the SDK writes. */
    static Map<String, Object> asMap(ObjectNode json) {
        return Json.mapper().convertValue(json, MAP);
    }
}
