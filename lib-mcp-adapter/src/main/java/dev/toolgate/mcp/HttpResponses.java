package dev.toolgate.mcp;

import com.sun.net.httpserver.HttpExchange;
import io.modelcontextprotocol.json.McpJsonMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;

/** Writes the transport's answers: JSON bodies, JSON-RPC errors, bare statuses, SSE events. */
final class HttpResponses {

    static final String APPLICATION_JSON = "application/json";
    static final String TEXT_EVENT_STREAM = "text/event-stream";
    static final String SESSION_HEADER = "Mcp-Session-Id";
    static final String VERSION_HEADER = "MCP-Protocol-Version";

    /** JSON-RPC error codes of the transport (the server-error range of JSON-RPC 2.0). */
    static final int SESSION_NOT_FOUND = -32001;
    static final int UNAUTHORIZED = -32002;
    static final int FORBIDDEN = -32003;
    static final int SERVER_BUSY = -32004;
    static final int TOO_MANY_SESSIONS = -32005;
    static final int EVENTS_GONE = -32006;

    private final McpJsonMapper mapper;

    HttpResponses(McpJsonMapper mapper) {
        this.mapper = mapper;
    }

    McpJsonMapper mapper() {
        return mapper;
    }

    void sendError(HttpExchange exchange, int status, Object id, int code, String message) throws IOException {
        sendJson(exchange, status, JsonRpc.error(id, code, message, null));
    }

    void sendJson(HttpExchange exchange, int status, Object body) throws IOException {
        sendBytes(exchange, status, mapper.writeValueAsBytes(body));
    }

    /** A complete {@code application/json} response. */
    static void sendBytes(HttpExchange exchange, int status, byte[] bytes) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", APPLICATION_JSON);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    static void sendStatus(HttpExchange exchange, int status) throws IOException {
        exchange.sendResponseHeaders(status, -1);
        exchange.close();
    }

    /** One SSE event carrying a JSON-RPC message. */
    static String event(String id, String json) {
        return (id == null ? "" : "id: " + id + "\n") + "event: message\ndata: " + json + "\n\n";
    }

    /** True if an Accept header value admits {@code type} (wildcards count). */
    static boolean accepts(String accept, String type) {
        if (accept == null) {
            return false;
        }
        String major = type.substring(0, type.indexOf('/'));
        for (String range : accept.split(",")) {
            String media = range.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
            if (media.equals(type) || media.equals("*/*") || media.equals(major + "/*")) {
                return true;
            }
        }
        return false;
    }
}
