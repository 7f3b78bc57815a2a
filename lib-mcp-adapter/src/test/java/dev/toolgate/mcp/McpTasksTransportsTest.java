package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The same tasks on the servlet endpoint (in Jetty) and over stdio as on the standalone HTTP server:
 * the capability, the tools' task support, a task made, read, decided by an operator and cancelled.
 */
class McpTasksTransportsTest {

    private final Fixtures.Tickets tickets = new Fixtures.Tickets();
    private Toolgate gate;

    @BeforeEach
    void open() {
        gate = Toolgate.builder().discoverTools(false).discoverComponents(false).budget(ToolBudget.unlimited())
                .sweepInterval(Duration.ZERO).provider(Fixtures.ticketTools(tickets)).build();
    }

    @AfterEach
    void close() {
        gate.close();
    }

    /** What either transport answers a request with. */
    interface Rpc {
        JsonNode request(String method, String params) throws Exception;
    }

    private void checkTasks(JsonNode initialized, Rpc carol) throws Exception {
        assertThat(initialized.at("/result/capabilities/tasks/requests/tools/call").isObject()).isTrue();
        JsonNode tools = carol.request("tools/list", "{}").at("/result/tools");
        assertThat(tools.findValues("taskSupport")).hasSize(2); // ticket.create and ticket.delete
        JsonNode created = carol.request("tools/call",
                "{\"name\":\"ticket.create\",\"arguments\":{\"title\":\"Lamp\"},\"task\":{}}").at("/result/task");
        String taskId = created.get("taskId").asString();
        assertThat(created.get("status").asString()).isEqualTo("input_required");
        gate.approve(CallContext.of(Fixtures.ALICE), taskId.substring("call:".length()), Approval.once());
        JsonNode result = carol.request("tasks/result", "{\"taskId\":\"" + taskId + "\"}").get("result");
        assertThat(result.at("/structuredContent/decision").asString()).isEqualTo("applied");
        assertThat(tickets.byId).containsValue("Lamp");

        String second = carol.request("tools/call", "{\"name\":\"ticket.delete\",\"arguments\":{\"id\":\"T-1\"},\"task\":{}}")
                .at("/result/task/taskId").asString();
        assertThat(carol.request("tasks/cancel", "{\"taskId\":\"" + second + "\"}").at("/result/status").asString())
                .isEqualTo("cancelled");
        assertThat(gate.findCall(second.substring("call:".length())).orElseThrow().status()).isEqualTo(CallStatus.REJECTED);
        assertThat(carol.request("tasks/list", "{}").at("/result/tasks")).hasSize(2);
        assertThat(tickets.byId).containsKey("T-1");
        // an ordinary call still goes to the SDK, and an ordinary call's text mentioning "task" too
        assertThat(carol.request("tools/call", "{\"name\":\"ticket.list\",\"arguments\":{\"titleContains\":\"task\"}}")
                .at("/result/isError").asBoolean()).isFalse();
    }

    @Test
    void theServletEndpointServesTasks() throws Exception {
        ServedMcp served = ServedMcp.jetty(ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(
                token -> Optional.ofNullable(Fixtures.TOKENS.get(token)))).build());
        try (TaskRpc carol = new TaskRpc(served.port(), "carol-token")) {
            checkTasks(carol.initialized(), carol::request);
        } finally {
            served.close();
        }
    }

    @Test
    void stdioServesTasks() throws Exception {
        PipedOutputStream toServer = new PipedOutputStream();
        PipedInputStream serverIn = new PipedInputStream(toServer, 1 << 16);
        PipedInputStream fromServer = new PipedInputStream(1 << 16);
        PipedOutputStream serverOut = new PipedOutputStream(fromServer);
        ToolgateMcpServer server = ToolgateMcpServer.stdio(gate, Fixtures.CAROL).streams(serverIn, serverOut).start();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(fromServer, StandardCharsets.UTF_8))) {
            int[] ids = {1};
            Rpc rpc = (method, params) -> {
                int id = ++ids[0];
                send(toServer, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}");
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    JsonNode message = Json.parse(line);
                    if (message.path("id").asInt(-1) == id) {
                        return message;
                    }
                }
                throw new AssertionError("no answer to " + method);
            };
            send(toServer, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                    + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
            JsonNode initialized = Json.parse(lines.readLine());
            send(toServer, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            checkTasks(initialized, rpc);
        } finally {
            toServer.close();
            server.close();
        }
    }

    @Test
    void overStdioTheUserConsentsThroughElicitationWhileTheResultWaits() throws Exception {
        PipedOutputStream toServer = new PipedOutputStream();
        PipedInputStream serverIn = new PipedInputStream(toServer, 1 << 16);
        PipedInputStream fromServer = new PipedInputStream(1 << 16);
        PipedOutputStream serverOut = new PipedOutputStream(fromServer);
        ToolgateMcpServer server = ToolgateMcpServer.stdio(gate, Fixtures.CAROL).streams(serverIn, serverOut)
                .taskResultWait(Duration.ofSeconds(10), 2).start();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(fromServer, StandardCharsets.UTF_8))) {
            send(toServer, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                    + "\"capabilities\":{\"elicitation\":{}},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
            lines.readLine();
            send(toServer, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            int id = 10;
            for (String action : new String[] {"accept", "decline"}) {
                send(toServer, "{\"jsonrpc\":\"2.0\",\"id\":" + (++id) + ",\"method\":\"tools/call\",\"params\":{\"name\":"
                        + "\"ticket.create\",\"arguments\":{\"title\":\"Lamp " + action + "\"},\"task\":{}}}");
                String taskId = Json.parse(lines.readLine()).at("/result/task/taskId").asString();
                send(toServer, "{\"jsonrpc\":\"2.0\",\"id\":" + (++id) + ",\"method\":\"tasks/result\",\"params\":{\"taskId\":\""
                        + taskId + "\"}}");
                JsonNode ask = Json.parse(lines.readLine());
                assertThat(ask.get("method").asString()).isEqualTo("elicitation/create");
                assertThat(ask.at("/params/_meta/io.modelcontextprotocol~1related-task/taskId").asString()).isEqualTo(taskId);
                assertThat(ask.at("/params/message").asString()).contains("Open ticket \"Lamp " + action + "\"");
                assertThat(tickets.byId).doesNotContainValue("Lamp " + action); // nothing before the answer
                send(toServer, "{\"jsonrpc\":\"2.0\",\"id\":" + ask.get("id") + ",\"result\":{\"action\":\"" + action + "\"}}");
                JsonNode result = Json.parse(lines.readLine());
                assertThat(result.path("id").asInt()).isEqualTo(id);
                if (action.equals("accept")) {
                    assertThat(result.at("/result/structuredContent/decision").asString()).isEqualTo("applied");
                    assertThat(result.at("/result/structuredContent/decidedBy").asString()).isEqualTo("user");
                    assertThat(tickets.byId).containsValue("Lamp accept");
                } else {
                    assertThat(result.at("/result/isError").asBoolean()).isTrue();
                    assertThat(result.at("/result/structuredContent/reason").asString()).isEqualTo(TaskConsent.DECLINED);
                    assertThat(gate.findCall(taskId.substring("call:".length())).orElseThrow().status())
                            .isEqualTo(CallStatus.REJECTED);
                    assertThat(tickets.byId).doesNotContainValue("Lamp decline");
                }
            }
        } finally {
            toServer.close();
            server.close();
        }
    }

    private static void send(OutputStream out, String line) throws Exception {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
