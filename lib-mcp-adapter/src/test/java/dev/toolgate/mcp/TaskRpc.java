package dev.toolgate.mcp;

import dev.toolgate.json.Json;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;

/**
 * JSON-RPC over one kept-alive Streamable HTTP connection, for the task requests the SDK's clients do
 * not send: each request's whole response (a JSON body, or the last {@code data:} line of an event
 * stream) as a tree.
 */
final class TaskRpc implements AutoCloseable {

    private final KeptAliveClient http;
    private final AtomicInteger ids = new AtomicInteger(100);
    private final String initializeBody;

    TaskRpc(int port, String token) throws IOException {
        this.http = new KeptAliveClient(port, token).initialize();
        this.initializeBody = http.initializeResponse().body();
    }

    /** The {@code initialize} response. */
    JsonNode initialized() {
        return parse(initializeBody);
    }

    /** One request; the whole JSON-RPC response. */
    JsonNode request(String method, String params) throws IOException {
        int id = ids.incrementAndGet();
        KeptAliveClient.Response response = http.post("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method
                + "\",\"params\":" + params + "}");
        if (response.status() == 400 && response.body().contains("\"error\"")) {
            return parse(response.body()); // the transport refused the message's shape itself
        }
        if (response.status() != 200) {
            throw new IOException("HTTP " + response.status() + ": " + response.body());
        }
        JsonNode json = parse(response.body());
        if (json.path("id").asInt() != id) {
            throw new IOException("answer to another request: " + json);
        }
        return json;
    }

    /** The {@code result} of one request; fails on an error. */
    JsonNode result(String method, String params) throws IOException {
        JsonNode response = request(method, params);
        if (response.has("error")) {
            throw new IOException(method + " failed: " + response.get("error"));
        }
        return response.get("result");
    }

    /** A task-augmented {@code tools/call}. */
    JsonNode callAsTask(String tool, String arguments) throws IOException {
        return request("tools/call", "{\"name\":\"" + tool + "\",\"arguments\":" + arguments + ",\"task\":{\"ttl\":60000}}");
    }

    static JsonNode parse(String body) {
        String json = body.strip();
        if (!json.startsWith("{")) { // an event stream: the last data line holds the answer
            String last = null;
            for (String line : json.split("\n")) {
                if (line.startsWith("data:")) {
                    last = line.substring(5).strip();
                }
            }
            json = last;
        }
        return Json.parse(json);
    }

    @Override
    public void close() throws IOException {
        http.close();
    }
}
