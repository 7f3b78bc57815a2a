package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.toolgate.json.Json;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The catalog over stdio, with the server a subprocess, through the SDK's own client and raw lines. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class McpCatalogStdioTest {

    private final List<String> updates = new CopyOnWriteArrayList<>();
    private final List<String> stderr = new CopyOnWriteArrayList<>();
    private McpSyncClient carol;
    private McpSyncClient bob;

    static List<String> command(String principal, String secrets) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), CatalogStdioTestServer.class.getName(), principal, secrets);
    }

    private McpSyncClient launch(String principal, UnaryOperator<McpClient.SyncSpec> customize) {
        List<String> command = command(principal, "secrets");
        StdioClientTransport transport = new StdioClientTransport(
                ServerParameters.builder(command.get(0)).args(command.subList(1, command.size())).build(), McpJsonDefaults.getMapper());
        transport.setStdErrorHandler(stderr::add);
        McpSyncClient client = customize.apply(McpClient.sync(transport)
                .requestTimeout(Duration.ofSeconds(30)).initializationTimeout(Duration.ofSeconds(30))).build();
        client.initialize();
        return client;
    }

    @BeforeAll
    void launchServers() {
        carol = launch("carol", spec -> spec);
        bob = launch("bob", spec -> spec);
    }

    @AfterAll
    void stopServers() {
        if (carol != null) {
            carol.closeGracefully();
        }
        if (bob != null) {
            bob.closeGracefully();
        }
    }

    @Test
    void listsAndReadsPerPrincipal() {
        assertThat(carol.listResources().resources()).extracting(McpSchema.Resource::uri).contains("docs://secret/plan");
        assertThat(bob.listResources().resources()).extracting(McpSchema.Resource::uri)
                .contains("test://static-text", "test://watched-resource").doesNotContain("docs://secret/plan");
        assertThat(bob.listResourceTemplates().resourceTemplates()).extracting(McpSchema.ResourceTemplate::uriTemplate)
                .containsExactly("test://template/{id}/data");
        assertThat(bob.listPrompts().prompts()).extracting(McpSchema.Prompt::name).doesNotContain("secret_prompt").hasSize(5);
        assertThat(bob.getServerCapabilities().resources().subscribe()).isTrue();

        McpSchema.TextResourceContents text = (McpSchema.TextResourceContents) bob.readResource(
                new McpSchema.ReadResourceRequest("test://static-text")).contents().get(0);
        assertThat(text.text()).isEqualTo(CatalogFixtures.STATIC_TEXT);
        McpSchema.TextResourceContents data = (McpSchema.TextResourceContents) bob.readResource(
                new McpSchema.ReadResourceRequest("test://template/..%2Fsecret/data")).contents().get(0);
        assertThat(Json.parse(data.text()).get("id").asString()).isEqualTo("../secret");
        assertThat(((McpSchema.TextResourceContents) carol.readResource(new McpSchema.ReadResourceRequest("docs://secret/plan"))
                .contents().get(0)).text()).isEqualTo(CatalogFixtures.SECRET);

        for (String uri : List.of("docs://secret/plan", "docs://secret/other", "test://template/a/b/data", "test://nothing")) {
            assertThat(catchThrowableOfType(McpError.class, () -> bob.readResource(new McpSchema.ReadResourceRequest(uri)))
                    .getJsonRpcError()).as(uri)
                    .isEqualTo(new McpSchema.JSONRPCResponse.JSONRPCError(-32002, "Resource not found", Map.of("uri", uri)));
        }
        McpSchema.JSONRPCResponse.JSONRPCError broken = catchThrowableOfType(McpError.class,
                () -> bob.readResource(new McpSchema.ReadResourceRequest("test://broken"))).getJsonRpcError();
        assertThat(broken.code()).isEqualTo(-32603);
        assertThat(String.valueOf(broken.message()) + broken.data()).doesNotContain("hunter2");
    }

    @Test
    void promptsAndCompletion() {
        McpSchema.GetPromptResult result = bob.getPrompt(new McpSchema.GetPromptRequest("test_prompt_with_arguments",
                Map.of("arg1", "testValue1", "arg2", "testValue2")));
        assertThat(((McpSchema.TextContent) result.messages().get(0).content()).text())
                .isEqualTo("Prompt with arguments: arg1='testValue1', arg2='testValue2'");
        McpSchema.JSONRPCResponse.JSONRPCError missing = catchThrowableOfType(McpError.class, () -> bob.getPrompt(
                new McpSchema.GetPromptRequest("test_prompt_with_arguments", Map.of()))).getJsonRpcError();
        assertThat(missing.message()).isEqualTo("Invalid params: prompt test_prompt_with_arguments needs the argument(s) arg1, arg2");
        assertThat(catchThrowableOfType(McpError.class, () -> bob.getPrompt(new McpSchema.GetPromptRequest("secret_prompt",
                Map.of("topic", "x")))).getJsonRpcError().message()).isEqualTo("Invalid params: unknown prompt");
        assertThat(carol.getPrompt(new McpSchema.GetPromptRequest("secret_prompt", Map.of("topic", "x"))).messages()).hasSize(1);

        McpSchema.CompleteResult complete = bob.completeCompletion(new McpSchema.CompleteRequest(
                new McpSchema.PromptReference("test_prompt_with_arguments"), new McpSchema.CompleteRequest.CompleteArgument("arg1", "test")));
        assertThat(complete.completion().values()).isEmpty();
        assertThat(bob.completeCompletion(new McpSchema.CompleteRequest(new McpSchema.PromptReference("test_prompt_with_arguments"),
                new McpSchema.CompleteRequest.CompleteArgument("arg1", "pa"))).completion().values()).containsExactly("paris", "park");
    }

    @Test
    void subscribersGetUpdates() throws Exception {
        McpSyncClient watcher = launch("bob", spec -> spec.resourcesUpdateConsumer(contents -> contents.forEach(c -> updates.add(c.uri()))));
        try {
            watcher.subscribeResource(new McpSchema.SubscribeRequest("test://watched-resource"));
            watcher.readResource(new McpSchema.ReadResourceRequest("test://touch"));
            for (int i = 0; i < 200 && updates.isEmpty(); i++) {
                Thread.sleep(25);
            }
            assertThat(updates).as("server log: %s", stderr).containsExactly("test://watched-resource");
        } finally {
            watcher.closeGracefully();
        }
    }

    /**
     * What the server writes, exactly: touch announces watched-resource, then static-text (the
     * control, always subscribed), in order on one stream; so once the control's update is read, an
     * update of watched-resource would have been read before it.
     */
    @Test
    void noUpdatesAfterUnsubscribingOrLosingAccess() throws Exception {
        try (RawStdio bob = new RawStdio("bob", "secrets")) {
            bob.request("resources/subscribe", "{\"uri\":\"test://static-text\"}");
            bob.request("resources/subscribe", "{\"uri\":\"test://watched-resource\"}");
            assertThat(bob.touch()).containsExactly("test://watched-resource", "test://static-text");

            bob.request("resources/unsubscribe", "{\"uri\":\"test://watched-resource\"}");
            assertThat(bob.touch()).containsExactly("test://static-text");

            assertThat(bob.request("resources/subscribe", "{\"uri\":\"test://watched-resource\"}")).contains("\"result\":{}");
            assertThat(bob.touch()).containsExactly("test://watched-resource", "test://static-text");
            bob.request("resources/read", "{\"uri\":\"test://revoke\"}");
            assertThat(bob.touch()).containsExactly("test://static-text");
            assertThat(bob.request("resources/read", "{\"uri\":\"test://watched-resource\"}")).contains("-32002", "Resource not found");
        }
    }

    /** A server subprocess spoken to line by line. */
    private static final class RawStdio implements AutoCloseable {

        private final Process process;
        private final OutputStream in;
        private final BufferedReader out;
        private int id = 1;

        RawStdio(String principal, String secrets) throws Exception {
            process = new ProcessBuilder(command(principal, secrets)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            in = process.getOutputStream();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            write("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                    + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
            assertThat(out.readLine()).contains("\"id\":1");
            write("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        }

        private void write(String line) throws Exception {
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        /** Sends a request and returns its response line (notifications before it are skipped). */
        String request(String method, String params) throws Exception {
            int sent = ++id;
            write("{\"jsonrpc\":\"2.0\",\"id\":" + sent + ",\"method\":\"" + method + "\",\"params\":" + params + "}");
            String line;
            while ((line = out.readLine()) != null) {
                if (Json.parse(line).path("id").asInt(-1) == sent) {
                    return line;
                }
            }
            throw new AssertionError("no answer to " + method);
        }

        /** Reads test://touch; the uris of the updates the server sent, up to the control's. */
        List<String> touch() throws Exception {
            write("{\"jsonrpc\":\"2.0\",\"id\":" + (++id) + ",\"method\":\"resources/read\",\"params\":{\"uri\":\"test://touch\"}}");
            List<String> uris = new ArrayList<>();
            String line;
            while ((line = out.readLine()) != null) {
                var message = Json.parse(line);
                if ("notifications/resources/updated".equals(message.path("method").asString(""))) {
                    uris.add(message.path("params").path("uri").asString());
                    if (uris.get(uris.size() - 1).equals("test://static-text")) {
                        return uris;
                    }
                }
            }
            throw new AssertionError("the server stopped; updates " + uris);
        }

        @Override
        public void close() throws Exception {
            in.close();
            process.waitFor(10, TimeUnit.SECONDS);
            process.destroy();
        }
    }

    @Test
    void hiddenAndUnknownAreTheSameBytesOnStdio() throws Exception {
        List<String> requests = List.of(
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{\"uri\":\"docs://secret/plan\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"docs://secret/x\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/get\",\"params\":{\"name\":\"secret_prompt\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/resource\","
                        + "\"uri\":\"docs://secret/{name}\"},\"argument\":{\"name\":\"name\",\"value\":\"\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/list\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"prompts/list\"}");
        assertThat(raw("bob", "secrets", requests)).isEqualTo(raw("bob", "nosecrets", requests));
        assertThat(String.join("\n", raw("carol", "secrets", requests))).contains(CatalogFixtures.SECRET, "budget");
    }

    /** The response lines of a fresh server to {@code requests}, sent after initialize, in id order. */
    private static List<String> raw(String principal, String secrets, List<String> requests) throws Exception {
        Process process = new ProcessBuilder(command(principal, secrets)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try (OutputStream in = process.getOutputStream();
             BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            in.write(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                    + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}\n"
                    + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            assertThat(out.readLine()).contains("\"id\":1");
            List<String> lines = new ArrayList<>();
            for (String request : requests) { // one at a time: answers may otherwise come in any order
                in.write((request + "\n").getBytes(StandardCharsets.UTF_8));
                in.flush();
                lines.add(out.readLine());
            }
            return lines;
        } finally {
            process.destroy();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
