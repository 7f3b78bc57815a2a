package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The user's consent to a task on the servlet endpoint (in Jetty), as a client lives it: its GET stream
 * open, a {@code tasks/result} waiting, the question arriving on the GET stream tied to the task, the
 * answer POSTed; accept applies, decline withdraws. A client that declared no elicitation is never asked.
 */
class McpTasksServletConsentTest {

    private final Fixtures.Tickets tickets = new Fixtures.Tickets();
    private final HttpClient http = HttpClient.newHttpClient();
    private Toolgate gate;
    private ServedMcp served;

    @BeforeEach
    void open() {
        gate = Toolgate.builder().discoverTools(false).discoverComponents(false).budget(ToolBudget.unlimited())
                .sweepInterval(Duration.ZERO).provider(Fixtures.ticketTools(tickets)).build();
        served = ServedMcp.jetty(ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(
                token -> Optional.ofNullable(Fixtures.TOKENS.get(token)))).taskResultWait(Duration.ofSeconds(3), 4).build());
    }

    @AfterEach
    void close() {
        served.close();
        gate.close();
    }

    private HttpRequest.Builder request(String session) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(served.endpoint()).timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer carol-token").header("Accept", "application/json, text/event-stream");
        return session == null ? builder : builder.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
    }

    private HttpResponse<String> post(String session, String json) throws Exception {
        return http.send(request(session).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private String session(String capabilities) throws Exception {
        HttpResponse<String> init = post(null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-11-25\",\"capabilities\":" + capabilities + ",\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
        String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
        assertThat(post(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode()).isEqualTo(202);
        return session;
    }

    /** The first server request on the session's GET stream. */
    private CompletableFuture<JsonNode> firstRequestOnGetStream(String session) {
        return http.sendAsync(request(session).header("Accept", "text/event-stream").GET().build(),
                HttpResponse.BodyHandlers.ofLines()).thenApply(response -> {
                    try (Stream<String> lines = response.body()) {
                        return lines.filter(line -> line.startsWith("data:") && line.contains("\"method\""))
                                .map(line -> Json.parse(line.substring(5).strip())).findFirst().orElseThrow();
                    }
                });
    }

    private String createTask(String session, String title) throws Exception {
        return TaskRpc.parse(post(session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
                + "\"ticket.create\",\"arguments\":{\"title\":\"" + title + "\"},\"task\":{}}}").body())
                .at("/result/task/taskId").asString();
    }

    private CompletableFuture<JsonNode> result(String session, String taskId) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return TaskRpc.parse(post(session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/result\",\"params\":"
                        + "{\"taskId\":\"" + taskId + "\"}}").body());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void theUserIsAskedOnTheGetStreamAndAcceptingApplies() throws Exception {
        for (String action : new String[] {"accept", "decline"}) {
            String session = session("{\"elicitation\":{}}");
            CompletableFuture<JsonNode> asked = firstRequestOnGetStream(session);
            Thread.sleep(300); // the stream is open before the question
            String taskId = createTask(session, "Lamp " + action);
            CompletableFuture<JsonNode> result = result(session, taskId);

            JsonNode question = asked.get(15, TimeUnit.SECONDS);
            assertThat(question.get("method").asString()).isEqualTo("elicitation/create");
            assertThat(question.at("/params/_meta/io.modelcontextprotocol~1related-task/taskId").asString()).isEqualTo(taskId);
            assertThat(tickets.byId).doesNotContainValue("Lamp " + action);
            assertThat(post(session, "{\"jsonrpc\":\"2.0\",\"id\":" + question.get("id") + ",\"result\":{\"action\":\"" + action
                    + "\"}}").statusCode()).isEqualTo(202);

            JsonNode answer = result.get(15, TimeUnit.SECONDS);
            if (action.equals("accept")) {
                assertThat(answer.at("/result/structuredContent/decision").asString()).isEqualTo("applied");
                assertThat(tickets.byId).containsValue("Lamp accept");
            } else {
                assertThat(answer.at("/result/structuredContent/decision").asString()).isEqualTo("declined");
                assertThat(gate.findCall(taskId.substring("call:".length())).orElseThrow().status()).isEqualTo(CallStatus.REJECTED);
                assertThat(tickets.byId).doesNotContainValue("Lamp decline");
            }
        }
    }

    @Test
    void aClientThatCannotElicitIsNotAskedAndTheTaskWaitsForAnOperator() throws Exception {
        String session = session("{}");
        String taskId = createTask(session, "Lamp");
        JsonNode answer = result(session, taskId).get(15, TimeUnit.SECONDS);
        assertThat(answer.at("/error/code").asInt()).isEqualTo(ToolgateMcpServer.TASK_NOT_FINISHED);
        assertThat(gate.findCall(taskId.substring("call:".length())).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
    }
}
