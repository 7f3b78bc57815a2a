package dev.toolgate.mcp;

import dev.toolgate.json.Json;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Checks the shape of one incoming JSON-RPC 2.0 message before the SDK sees it, so malformed input
 * gets a precise JSON-RPC error (and the connection keeps serving) instead of an opaque failure.
 */
final class JsonRpc {

    static final int PARSE_ERROR = -32700;
    static final int INVALID_REQUEST = -32600;
    static final int METHOD_NOT_FOUND = -32601;
    static final int INVALID_PARAMS = -32602;
    static final int INTERNAL_ERROR = -32603;

    /** What kind of message passed the check. */
    enum Kind { REQUEST, NOTIFICATION, RESPONSE }

    /** A message that has the shape of a JSON-RPC 2.0 request, notification or response. */
    record Checked(Kind kind, String method, Object id) {

        boolean isInitialize() {
            return kind == Kind.REQUEST && "initialize".equals(method);
        }
    }

    /** A message that does not; {@link #id()} is the request id when it could be read, else null. */
    static final class Invalid extends Exception {

        private static final long serialVersionUID = 1L;

        private final int code;
        private final transient Object id;

        Invalid(int code, String message, Object id) {
            super(message, null, false, false);
            this.code = code;
            this.id = id;
        }

        int code() {
            return code;
        }

        Object id() {
            return id;
        }

        /** The JSON-RPC error response for this failure. */
        Map<String, Object> response() {
            return error(id, code, getMessage(), null);
        }
    }

    private JsonRpc() {
    }

    /** Checks one message's text. */
    static Checked check(String text) throws Invalid {
        JsonNode node;
        try {
            node = Json.parse(text);
        } catch (JacksonException e) {
            throw new Invalid(PARSE_ERROR, "Parse error: the body is not one well-formed JSON value", null);
        }
        if (node == null || node.isMissingNode()) {
            throw new Invalid(PARSE_ERROR, "Parse error: the body is empty", null);
        }
        if (node.isArray()) {
            throw new Invalid(INVALID_REQUEST, "Invalid Request: batches are not supported; send one JSON-RPC message", null);
        }
        if (!node.isObject()) {
            throw new Invalid(INVALID_REQUEST, "Invalid Request: a JSON-RPC message must be a JSON object", null);
        }
        Object id = null;
        boolean hasId = node.has("id");
        if (hasId) {
            JsonNode idNode = node.get("id");
            if (idNode.isString()) {
                id = idNode.asString();
            } else if (idNode.isIntegralNumber() && idNode.canConvertToLong()) {
                id = idNode.isInt() ? (Object) idNode.asInt() : (Object) idNode.asLong();
            } else {
                throw new Invalid(INVALID_REQUEST, "Invalid Request: id must be a string or an integer", null);
            }
        }
        JsonNode version = node.get("jsonrpc");
        if (version == null || !version.isString() || !"2.0".equals(version.asString())) {
            throw new Invalid(INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\"", id);
        }
        if (node.has("method")) {
            JsonNode method = node.get("method");
            if (!method.isString() || method.asString().isBlank()) {
                throw new Invalid(INVALID_REQUEST, "Invalid Request: method must be a non-empty string", id);
            }
            if (node.has("result") || node.has("error")) {
                throw new Invalid(INVALID_REQUEST, "Invalid Request: a request has no result or error", id);
            }
            if (node.has("params") && !node.get("params").isObject()) {
                throw new Invalid(INVALID_REQUEST, "Invalid Request: params must be an object", id);
            }
            return new Checked(hasId ? Kind.REQUEST : Kind.NOTIFICATION, method.asString(), id);
        }
        if (!hasId) {
            throw new Invalid(INVALID_REQUEST, "Invalid Request: a message needs a method, or an id with a result or error", null);
        }
        boolean hasResult = node.has("result");
        boolean hasError = node.has("error");
        if (hasResult == hasError) {
            throw new Invalid(INVALID_REQUEST, "Invalid Request: a response has exactly one of result and error", id);
        }
        if (hasError) {
            JsonNode error = node.get("error");
            if (!error.isObject() || !error.path("code").isIntegralNumber() || !error.path("message").isString()) {
                throw new Invalid(INVALID_REQUEST, "Invalid Request: error must be an object with an integer code and a message", id);
            }
        }
        return new Checked(Kind.RESPONSE, null, id);
    }

    /** A JSON-RPC error response as a map the SDK's mapper (or any) can write. */
    static Map<String, Object> error(Object id, int code, String message, Object data) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", code);
        error.put("message", message);
        if (data != null) {
            error.put("data", data);
        }
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("jsonrpc", "2.0");
        response.put("id", id);
        response.put("error", error);
        return response;
    }

    /** Whether an {@code initialize} request's text declares the client capability {@code name}; false if unreadable. */
    static boolean declaresCapability(String initializeText, String name) {
        try {
            return dev.toolgate.json.Json.parse(initializeText).path("params").path("capabilities").path(name).isObject();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * The response to a request answered in front of the SDK: {@code body}'s result, an {@link McpError}
     * as its JSON-RPC error, anything else logged (redacted) and answered -32603; never throws.
     */
    static McpSchema.JSONRPCResponse respond(McpSchema.JSONRPCRequest request, java.util.function.Supplier<Object> body) {
        try {
            return new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, request.id(), body.get(), null);
        } catch (McpError e) {
            return new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, request.id(), null, e.getJsonRpcError());
        } catch (RuntimeException | Error e) {
            org.slf4j.LoggerFactory.getLogger(ToolgateMcpServer.class).error("MCP {} failed", request.method(),
                    dev.toolgate.json.Redactor.defaults().redactThrowable(e));
            return new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, request.id(), null,
                    new McpSchema.JSONRPCResponse.JSONRPCError(INTERNAL_ERROR, "Internal error", null));
        }
    }

    /** A request's params as a map ({@code {}} when absent); -32602 when they are not an object. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> params(Object params) {
        if (params == null) {
            return Map.of();
        }
        if (params instanceof Map<?, ?> map) {
            return (Map<String, Object>) map;
        }
        throw McpError.builder(INVALID_PARAMS).message("Invalid params: params must be an object").build();
    }
}
