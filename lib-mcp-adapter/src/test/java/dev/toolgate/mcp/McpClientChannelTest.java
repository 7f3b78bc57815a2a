package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.json.Json;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A tool talking back to its MCP client through {@code ToolContext.channel()}: progress, log messages,
 * sampling and elicitation, with the SDK's own client over Streamable HTTP (in process) and over stdio
 * (the server a subprocess), each honouring what the client asked for and declared.
 */
class McpClientChannelTest {

    enum Transport { HTTP, STDIO }

    private final List<McpSchema.ProgressNotification> progress = new CopyOnWriteArrayList<>();
    private final List<McpSchema.LoggingMessageNotification> logs = new CopyOnWriteArrayList<>();
    private final List<McpSchema.CreateMessageRequest> sampled = new CopyOnWriteArrayList<>();
    private final List<McpSchema.ElicitFormRequest> elicited = new CopyOnWriteArrayList<>();
    private final List<ElicitResult> answers = new CopyOnWriteArrayList<>();
    private final List<McpSyncClient> clients = new ArrayList<>();
    private Toolgate gate;
    private ServedMcp server;
    private Duration serverRequestTimeout = Duration.ofMinutes(1);
    private volatile long clientDelayMillis;

    @AfterEach
    void stop() {
        clients.forEach(McpSyncClient::closeGracefully);
        if (server != null) {
            server.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    /** Serves the gate over Streamable HTTP the way this suite tests; the servlet suite overrides it. */
    ServedMcp serve(Toolgate gate, McpAuthenticator authenticator, Duration requestTimeout) {
        return ServedMcp.standalone(ToolgateMcpServer.http(gate, authenticator).requestTimeout(requestTimeout).start());
    }

    /** A client that records notifications and answers sampling and elicitation when {@code capable}. */
    private McpSyncClient client(Transport transport, boolean capable) {
        UnaryOperator<McpClient.SyncSpec> spec = s -> {
            s.loggingConsumer(logs::add).progressConsumer(progress::add);
            if (capable) {
                s.capabilities(McpSchema.ClientCapabilities.builder().sampling().elicitation().build())
                        .sampling(request -> {
                            sampled.add(request);
                            return McpSchema.CreateMessageResult.builder().role(McpSchema.Role.ASSISTANT)
                                    .content(new McpSchema.TextContent("This is a test response from the client"))
                                    .model("test-model").stopReason(McpSchema.CreateMessageResult.StopReason.END_TURN).build();
                        })
                        .elicitation(request -> {
                            elicited.add(request);
                            sleep(clientDelayMillis);
                            return answers.isEmpty() ? new ElicitResult(ElicitResult.Action.CANCEL, null) : answers.remove(0);
                        });
            }
            return s;
        };
        McpSyncClient client;
        if (transport == Transport.HTTP) {
            if (server == null) {
                gate = MediaTools.gate();
                server = serve(gate, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)), serverRequestTimeout);
            }
            client = Fixtures.http(server.endpoint(), "alice-token", spec);
        } else {
            ServerParameters parameters = ServerParameters.builder(Path.of(System.getProperty("java.home"), "bin", "java").toString())
                    .args("-cp", System.getProperty("java.class.path"), MediaStdioServer.class.getName()).build();
            client = spec.apply(McpClient.sync(new StdioClientTransport(parameters, McpJsonDefaults.getMapper()))
                    .requestTimeout(Duration.ofSeconds(30)).initializationTimeout(Duration.ofSeconds(30))).build();
            client.initialize();
        }
        clients.add(client);
        return client;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static CallToolResult call(McpSyncClient client, String tool, Map<String, Object> arguments, Object progressToken) {
        McpSchema.CallToolRequest.Builder request = McpSchema.CallToolRequest.builder().name(tool).arguments(arguments);
        if (progressToken != null) {
            request.progressToken(progressToken);
        }
        return client.callTool(request.build());
    }

    private static String text(CallToolResult result) {
        assertThat(result.isError()).as("%s", result).isFalse();
        return ((McpSchema.TextContent) result.content().get(0)).text();
    }

    private static void awaitSize(List<?> list, int size) throws InterruptedException {
        for (int i = 0; i < 100 && list.size() < size; i++) {
            Thread.sleep(20);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void progressArrivesWithTheClientsTokenAndNotWithoutOne(Transport transport) throws InterruptedException {
        McpSyncClient client = client(transport, false);
        assertThat(text(call(client, "media.progress", Map.of(), "progress-test-1"))).isEqualTo("progress done");
        awaitSize(progress, 3);
        // in order on the wire; the SDK's clients may hand notifications over out of order
        assertThat(progress).extracting(McpSchema.ProgressNotification::progress).containsExactlyInAnyOrder(0.0, 50.0, 100.0);
        assertThat(progress).allSatisfy(p -> {
            assertThat(p.progressToken()).isEqualTo("progress-test-1");
            assertThat(p.total()).isEqualTo(100.0);
        });
        assertThat(progress).extracting(McpSchema.ProgressNotification::message).containsExactlyInAnyOrder("start", "half", "done");

        progress.clear();
        assertThat(text(call(client, "media.progress", Map.of(), 7))).isEqualTo("progress done");
        awaitSize(progress, 3);
        assertThat(progress).hasSize(3).allSatisfy(p -> assertThat(((Number) p.progressToken()).intValue()).isEqualTo(7));

        progress.clear();
        assertThat(text(call(client, "media.progress", Map.of(), null))).isEqualTo("progress done");
        Thread.sleep(200);
        assertThat(progress).as("no token, no progress").isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void logMessagesFollowTheClientsLevel(Transport transport) throws InterruptedException {
        McpSyncClient client = client(transport, false);
        client.setLoggingLevel(McpSchema.LoggingLevel.DEBUG);
        assertThat(text(call(client, "media.logging", Map.of(), null))).isEqualTo("logged");
        awaitSize(logs, 4);
        // the server writes them in order (checked on the raw stdio stream); the SDK's clients may hand
        // notifications that arrive back to back to their consumers out of order
        assertThat(logs).extracting(McpSchema.LoggingMessageNotification::data).containsExactlyInAnyOrder(
                "Tool execution started", "a debug detail", "Tool processing data", "{\"step\":3}");
        assertThat(logs).extracting(McpSchema.LoggingMessageNotification::logger).containsOnly("media");

        logs.clear();
        client.setLoggingLevel(McpSchema.LoggingLevel.WARNING);
        assertThat(text(call(client, "media.logging", Map.of(), null))).isEqualTo("logged");
        Thread.sleep(200);
        assertThat(logs).as("nothing at or above warning").isEmpty();

        client.setLoggingLevel(McpSchema.LoggingLevel.INFO);
        assertThat(text(call(client, "media.logging", Map.of(), null))).isEqualTo("logged");
        awaitSize(logs, 3);
        Thread.sleep(100);
        assertThat(logs).extracting(McpSchema.LoggingMessageNotification::level).containsOnly(McpSchema.LoggingLevel.INFO).hasSize(3);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void samplingRoundTripsThroughTheClientsModel(Transport transport) {
        McpSyncClient client = client(transport, true);
        assertThat(text(call(client, "media.sample", Map.of("prompt", "Test prompt for sampling"), null)))
                .isEqualTo("LLM response: This is a test response from the client (test-model, endTurn)");
        assertThat(sampled).hasSize(1);
        McpSchema.CreateMessageRequest request = sampled.get(0);
        assertThat(request.maxTokens()).isEqualTo(100);
        assertThat(request.messages()).hasSize(1);
        assertThat(request.messages().get(0).role()).isEqualTo(McpSchema.Role.USER);
        assertThat(((McpSchema.TextContent) request.messages().get(0).content()).text()).isEqualTo("Test prompt for sampling");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void elicitationRoundTripsAcceptDeclineAndCancel(Transport transport) {
        McpSyncClient client = client(transport, true);
        answers.add(new ElicitResult(ElicitResult.Action.ACCEPT, Map.of("username", "testuser", "email", "test@example.com")));
        answers.add(new ElicitResult(ElicitResult.Action.DECLINE, null));
        answers.add(new ElicitResult(ElicitResult.Action.CANCEL, null));
        Map<String, Object> arguments = Map.of("message", "Please provide your information");
        assertThat(text(call(client, "media.elicit", arguments, null)))
                .startsWith("User response: action=ACCEPT, content={").contains("\"username\":\"testuser\"", "\"email\":\"test@example.com\"");
        assertThat(text(call(client, "media.elicit", arguments, null))).isEqualTo("User response: action=DECLINE, content=null");
        assertThat(text(call(client, "media.elicit", arguments, null))).isEqualTo("User response: action=CANCEL, content=null");
        assertThat(elicited).hasSize(3);
        McpSchema.ElicitFormRequest request = elicited.get(0);
        assertThat(request.message()).isEqualTo("Please provide your information");
        assertThat(request.requestedSchema()).containsEntry("type", "object").containsEntry("required", List.of("username", "email"));
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> properties = (Map<String, Map<String, Object>>) request.requestedSchema().get("properties");
        assertThat(properties.get("status")).containsEntry("enum", List.of("active", "inactive")).containsEntry("default", "active");
        assertThat(properties.get("age")).containsEntry("default", 30);
    }

    @Test
    void anyRequestedSchemaReachesTheClientExactlyEnumsAndDefaultsIncluded() {
        McpSyncClient client = client(Transport.HTTP, true);
        answers.add(new ElicitResult(ElicitResult.Action.ACCEPT, Map.of("untitledSingle", "option1", "untitledMulti", List.of("option1"))));
        String text = text(call(client, "media.enums", Map.of(), null));
        assertThat(text).startsWith("Elicitation completed: action=accept, content=");
        assertThat(Json.parse(text.substring(text.indexOf('{'))))
                .isEqualTo(Json.parse("{\"untitledSingle\":\"option1\",\"untitledMulti\":[\"option1\"]}"));
        assertThat(Json.toTree(elicited.get(0).requestedSchema())).isEqualTo(MediaTools.ENUMS);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aClientWithoutTheCapabilitiesIsNeverAskedAndTheToolDecides(Transport transport) {
        McpSyncClient client = client(transport, false);
        assertThat(text(call(client, "media.sample", Map.of("prompt", "hi"), null)))
                .isEqualTo("unsupported: the MCP client did not declare the sampling capability");
        assertThat(text(call(client, "media.elicit", Map.of("message", "hi"), null)))
                .isEqualTo("unsupported: the MCP client did not declare the elicitation capability");
        assertThat(sampled).isEmpty();
        assertThat(elicited).isEmpty();
    }

    @Test
    void aClientThatNeverAnswersFailsTheRequestAtTheTimeoutNotTheCall() {
        serverRequestTimeout = Duration.ofSeconds(1);
        clientDelayMillis = 4_000;
        McpSyncClient client = client(Transport.HTTP, true);
        long start = System.nanoTime();
        CallToolResult result = call(client, "media.sample", Map.of("prompt", "warm-up"), null);
        assertThat(text(result)).startsWith("LLM response:");
        CallToolResult unanswered = call(client, "media.rename", Map.of("name", "x"), null);
        @SuppressWarnings("unchecked")
        Map<String, Object> proposal = (Map<String, Object>) unanswered.structuredContent();
        CallToolResult applied = call(client, ToolgateMcpServer.APPLY_TOOL, Map.of("token", proposal.get("token")), null);
        assertThat(applied.isError()).isTrue();
        @SuppressWarnings("unchecked")
        Map<String, Object> failure = (Map<String, Object>) applied.structuredContent();
        assertThat(failure).containsEntry("status", "failed");
        assertThat((String) failure.get("message")).as("no Java class name reaches the model")
                .doesNotContain("ClientInteractionException").contains("did not answer the elicitation request within the server's request timeout (1000 ms)");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    void progressThatDoesNotIncreaseOrIsNotANumberIsDropped() throws InterruptedException {
        McpSyncClient client = client(Transport.HTTP, false);
        assertThat(text(call(client, "media.backwards", Map.of(), "b"))).isEqualTo("went backwards");
        awaitSize(progress, 2);
        Thread.sleep(200);
        assertThat(progress).extracting(McpSchema.ProgressNotification::progress).containsExactlyInAnyOrder(5.0, 7.0);
    }

    @Test
    void aFloodFromAToolIsCappedAndTheCallStillAnswers() throws InterruptedException {
        McpSyncClient client = client(Transport.HTTP, false);
        client.setLoggingLevel(McpSchema.LoggingLevel.DEBUG);
        assertThat(text(call(client, "media.flood", Map.of(), "flood"))).isEqualTo("flooded");
        Thread.sleep(300);
        assertThat(progress.size()).isBetween(1, McpClientChannel.MAX_NOTIFICATIONS);
        assertThat(logs).hasSize(McpClientChannel.MAX_NOTIFICATIONS);
        assertThat(logs).allSatisfy(log -> assertThat(log.data().length()).isLessThanOrEqualTo(McpClientChannel.MAX_LOG_CHARS + 3));
        // sent increasing and thinned out (at most one per 10 ms); HTTP may reorder what the client hands over
        assertThat(progress).extracting(McpSchema.ProgressNotification::progress).doesNotHaveDuplicates();
        assertThat(progress).allSatisfy(p -> assertThat(p.progressToken()).isEqualTo("flood"));
        // thinned out, not lost: the last update the tool made reaches the client before the result
        assertThat(progress).extracting(McpSchema.ProgressNotification::progress).contains(200_000.0);
    }

    @Test
    void aDryRunCannotTalkToTheUserButTheExecutionCan() throws InterruptedException {
        McpSyncClient client = client(Transport.HTTP, true);
        client.setLoggingLevel(McpSchema.LoggingLevel.DEBUG);
        CallToolResult proposed = call(client, "media.rename", Map.of("name", "new"), "dry");
        assertThat(proposed.isError()).isFalse();
        @SuppressWarnings("unchecked")
        Map<String, Object> proposal = (Map<String, Object>) proposed.structuredContent();
        assertThat(proposal).containsEntry("status", "awaiting_user")
                .containsEntry("summary", "Rename to new (dry-run could not ask: a dry-run must not talk to the user before consent)");
        Thread.sleep(200);
        assertThat(elicited).isEmpty();
        assertThat(progress).isEmpty();
        assertThat(logs).isEmpty();

        answers.add(new ElicitResult(ElicitResult.Action.ACCEPT, Map.of()));
        CallToolResult applied = call(client, ToolgateMcpServer.APPLY_TOOL, Map.of("token", proposal.get("token")), null);
        assertThat(text(applied)).isEqualTo("renamed after ACCEPT");
        assertThat(applied.meta()).containsEntry(McpContent.STATUS_META, "applied");
        assertThat(elicited).extracting(McpSchema.ElicitFormRequest::message).containsExactly("Rename to new?");
    }
}
