package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.json.Json;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Resources, templates, subscriptions, prompts and completion through the SDK's own client over
 * Streamable HTTP, for carol (holds ticket.write: sees the secret entries) and bob (does not).
 */
class McpCatalogHttpTest {

    private final Map<String, Principal> tokens = new ConcurrentHashMap<>(Fixtures.TOKENS);
    private final CatalogFixtures.RevocableResolver resolver = new CatalogFixtures.RevocableResolver();
    private final List<McpSyncClient> clients = new ArrayList<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private CatalogFixtures fixtures;
    private ServedMcp server;

    @BeforeEach
    void start() {
        fixtures = new CatalogFixtures(true);
        server = serve(fixtures.catalog);
    }

    /** Serves the gate and catalog (null: none) the way this suite tests; the servlet suite overrides it. */
    ServedMcp serve(Toolgate gate, McpAuthenticator authenticator, McpCatalog catalog) {
        McpHttpBuilder builder = ToolgateMcpServer.http(gate, authenticator);
        return ServedMcp.standalone((catalog == null ? builder : builder.catalog(catalog)).start());
    }

    private ServedMcp serve(McpCatalog catalog) {
        Toolgate gate = CatalogFixtures.gate(resolver);
        ServedMcp started = serve(gate, token -> Optional.ofNullable(tokens.get(token)), catalog);
        closing.add(started);
        closing.add(gate);
        return started;
    }

    @AfterEach
    void stop() throws Exception {
        clients.forEach(McpSyncClient::closeGracefully);
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    private McpSyncClient client(String token) {
        return client(token, spec -> spec);
    }

    private McpSyncClient client(String token, UnaryOperator<io.modelcontextprotocol.client.McpClient.SyncSpec> spec) {
        McpSyncClient client = Fixtures.http(server.endpoint(), token, spec);
        clients.add(client);
        return client;
    }

    private static McpSchema.ReadResourceResult read(McpSyncClient client, String uri) {
        return client.readResource(new McpSchema.ReadResourceRequest(uri));
    }

    private static McpSchema.JSONRPCResponse.JSONRPCError readError(McpSyncClient client, String uri) {
        return catchThrowableOfType(McpError.class, () -> read(client, uri)).getJsonRpcError();
    }

    private static String text(McpSchema.ReadResourceResult result) {
        return ((McpSchema.TextResourceContents) result.contents().get(0)).text();
    }

    // ------------------------------------------------------------------------------------ lists and reads

    @Test
    void listsOnlyWhatTheResolverAllowsEachPrincipal() {
        McpSyncClient carol = client("carol-token");
        McpSyncClient bob = client("bob-token");
        McpSyncClient robot = client("robot-token"); // a service principal: the standard resolver allows it nothing

        List<String> everyone = List.of("test://static-text", "test://static-binary", "test://broken", "test://empty");
        assertThat(carol.listResources().resources()).extracting(McpSchema.Resource::uri)
                .containsExactly("test://static-text", "test://static-binary", "test://watched-resource", "test://broken",
                        "test://empty", "docs://secret/plan");
        assertThat(bob.listResources().resources()).extracting(McpSchema.Resource::uri)
                .containsExactly("test://static-text", "test://static-binary", "test://watched-resource", "test://broken", "test://empty");
        assertThat(robot.listResources().resources()).isEmpty();
        assertThat(everyone).isSubsetOf(bob.listResources().resources().stream().map(McpSchema.Resource::uri).toList());

        assertThat(carol.listResourceTemplates().resourceTemplates()).extracting(McpSchema.ResourceTemplate::uriTemplate)
                .containsExactly("test://template/{id}/data", "docs://secret/{name}");
        assertThat(bob.listResourceTemplates().resourceTemplates()).extracting(McpSchema.ResourceTemplate::uriTemplate)
                .containsExactly("test://template/{id}/data");

        assertThat(carol.listPrompts().prompts()).extracting(McpSchema.Prompt::name).contains("secret_prompt").hasSize(6);
        assertThat(bob.listPrompts().prompts()).extracting(McpSchema.Prompt::name).containsExactly("test_simple_prompt",
                "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "broken_prompt");
        McpSchema.Prompt withArgs = bob.listPrompts().prompts().get(1);
        assertThat(withArgs.description()).isEqualTo("A prompt with arguments");
        assertThat(withArgs.arguments()).extracting(McpSchema.PromptArgument::name, McpSchema.PromptArgument::required)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("arg1", true), org.assertj.core.groups.Tuple.tuple("arg2", true));
        McpSchema.Resource first = bob.listResources().resources().get(0);
        assertThat(first.name()).isEqualTo("static-text");
        assertThat(first.title()).isEqualTo("Static text");
        assertThat(first.mimeType()).isEqualTo("text/plain");
    }

    @Test
    void readsTheConformanceFixturesExactly() {
        McpSyncClient bob = client("bob-token");

        McpSchema.TextResourceContents text = (McpSchema.TextResourceContents) read(bob, "test://static-text").contents().get(0);
        assertThat(text.uri()).isEqualTo("test://static-text");
        assertThat(text.mimeType()).isEqualTo("text/plain");
        assertThat(text.text()).isEqualTo(CatalogFixtures.STATIC_TEXT);

        McpSchema.BlobResourceContents blob = (McpSchema.BlobResourceContents) read(bob, "test://static-binary").contents().get(0);
        assertThat(blob.mimeType()).isEqualTo("image/png");
        assertThat(Base64.getDecoder().decode(blob.blob())).isEqualTo(CatalogFixtures.PNG);

        McpSchema.TextResourceContents data = (McpSchema.TextResourceContents) read(bob, "test://template/123/data").contents().get(0);
        assertThat(data.uri()).isEqualTo("test://template/123/data");
        assertThat(data.mimeType()).isEqualTo("application/json");
        assertThat(Json.parse(data.text())).isEqualTo(Json.parse("{\"id\":\"123\",\"templateTest\":true,\"data\":\"Data for ID: 123\"}"));

        // the reader runs with the principal of the request
        assertThat(text(read(bob, "test://watched-resource"))).isEqualTo("watched by bob");
        assertThat(text(read(client("carol-token"), "test://watched-resource"))).isEqualTo("watched by carol");
    }

    @Test
    void hiddenEntriesAnswerExactlyAsUnknownOnesByteForByte() throws Exception {
        ServedMcp without = serve(new CatalogFixtures(false).catalog); // the same catalog, secrets never registered
        List<String> requests = List.of(
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/read\",\"params\":{\"uri\":\"docs://secret/plan\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/read\",\"params\":{\"uri\":\"docs://secret/budget\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"docs://secret/plan\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/unsubscribe\",\"params\":{\"uri\":\"docs://secret/plan\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"prompts/get\",\"params\":{\"name\":\"secret_prompt\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"prompts/get\",\"params\":{\"name\":\"secret_prompt\",\"arguments\":{\"topic\":\"x\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"prompts/get\",\"params\":{\"name\":\"secret_prompt\",\"arguments\":{\"nope\":\"x\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/prompt\","
                        + "\"name\":\"secret_prompt\"},\"argument\":{\"name\":\"topic\",\"value\":\"c\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/prompt\","
                        + "\"name\":\"secret_prompt\"},\"argument\":{\"name\":\"nope\",\"value\":\"c\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/resource\","
                        + "\"uri\":\"docs://secret/{name}\"},\"argument\":{\"name\":\"name\",\"value\":\"p\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/list\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/templates/list\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"prompts/list\"}");
        try (KeptAliveClient hidden = new KeptAliveClient(server.port(), "bob-token").initialize();
             KeptAliveClient absent = new KeptAliveClient(without.port(), "bob-token").initialize();
             KeptAliveClient allowed = new KeptAliveClient(server.port(), "carol-token").initialize()) {
            for (String request : requests) {
                KeptAliveClient.Response seen = hidden.post(request);
                KeptAliveClient.Response expected = absent.post(request);
                assertThat(seen.status()).as(request).isEqualTo(expected.status());
                assertThat(seen.body()).as(request).isEqualTo(expected.body());
                assertThat(seen.body()).doesNotContain("launch", "classified", "budget\"]");
            }
            // and the same requests do reach the entries for a principal allowed to see them
            assertThat(allowed.post(requests.get(0)).body()).contains(CatalogFixtures.SECRET);
            assertThat(allowed.post(requests.get(7)).body()).contains("classified-launch");
            assertThat(allowed.post(requests.get(9)).body()).contains("budget");
        }
        McpSchema.JSONRPCResponse.JSONRPCError unknown = readError(client("bob-token"), "docs://secret/plan");
        assertThat(unknown.code()).isEqualTo(-32002);
        assertThat(unknown.message()).isEqualTo("Resource not found");
    }

    @Test
    void templateVariablesAreDataAndCannotSelectAnotherResource() {
        McpSyncClient bob = client("bob-token");
        Map<String, String> decoded = new java.util.LinkedHashMap<>();
        decoded.put("test://template/..%2F..%2Fetc%2Fpasswd/data", "../../etc/passwd");
        decoded.put("test://template/%2F/data", "/");
        decoded.put("test://template/..%5Csecret/data", "..\\secret");
        decoded.put("test://template/%2E%2E/data", "..");
        decoded.put("test://template/..;/data", "..;");
        decoded.put("test://template/%00/data", "\u0000");
        decoded.put("test://template/%E2%80%AEtxt.exe/data", "\u202Etxt.exe");
        decoded.put("test://template/日本語/data", "日本語");
        decoded.put("test://template/%F0%9F%98%80/data", "\uD83D\uDE00");
        decoded.put("test://template/docs:%2F%2Fsecret%2Fplan/data", "docs://secret/plan");
        decoded.put("test://template/{id}/data", "{id}");
        decoded.put("test://template/%25/data", "%");
        for (Map.Entry<String, String> entry : decoded.entrySet()) {
            fixtures.templateReads.clear();
            String content = text(read(bob, entry.getKey()));
            assertThat(fixtures.templateReads).as(entry.getKey()).containsExactly(Map.of("id", entry.getValue()));
            assertThat(Json.parse(content).get("id").asString()).as(entry.getKey()).isEqualTo(entry.getValue());
            assertThat(content).doesNotContain(CatalogFixtures.SECRET);
        }

        fixtures.templateReads.clear();
        List<String> unknown = List.of(
                "test://template/a/b/data",                     // a variable never spans a segment
                "test://template//data",                        // nor is empty
                "test://template/../static-text",
                "test://template/1/data/../../static-text",
                "test://template/1/data?x=1",
                "test://template/1/data#frag",
                "test://template/%ZZ/data",                     // malformed escape
                "test://template/%4/data",
                "test://template/%C3%28/data",                  // not UTF-8
                "test://template/%ED%A0%80/data",               // an encoded surrogate
                "TEST://template/1/data",
                "test://template/1/DATA",
                " test://template/1/data",
                "test://static-text/",
                "test://static-text%00",
                "docs://secret/plan",                           // hidden from bob: as unknown
                "docs://secret/%2E%2E%2Fplan");
        for (String uri : unknown) {
            McpSchema.JSONRPCResponse.JSONRPCError error = readError(bob, uri);
            assertThat(error.code()).as(uri).isEqualTo(-32002);
            assertThat(error.message()).as(uri).isEqualTo("Resource not found");
            assertThat(error.data()).as(uri).isEqualTo(Map.of("uri", uri));
        }
        assertThat(fixtures.templateReads).isEmpty();

        String huge = "test://template/" + "A".repeat(McpResource.MAX_URI_LENGTH) + "/data";
        McpSchema.JSONRPCResponse.JSONRPCError tooLong = readError(bob, huge);
        assertThat(tooLong.code()).isEqualTo(-32602);
        assertThat(tooLong.message()).isEqualTo("Invalid params: uri is longer than 4096 characters");
        assertThat(fixtures.templateReads).isEmpty();
        String large = "test://template/" + "%C3%A9".repeat(600) + "/data";
        assertThat(Json.parse(text(read(bob, large))).get("id").asString()).isEqualTo("é".repeat(600));
    }

    @Test
    void failingReadersAndRenderersGetACleanInternalError() {
        McpSyncClient bob = client("bob-token");
        McpSchema.JSONRPCResponse.JSONRPCError read = readError(bob, "test://broken");
        assertThat(read.code()).isEqualTo(-32603);
        assertThat(read.message()).isEqualTo("Internal error: the resource could not be read");
        assertThat(String.valueOf(read.data())).doesNotContain("hunter2", "jdbc", "IllegalState");

        McpSchema.JSONRPCResponse.JSONRPCError prompt = catchThrowableOfType(McpError.class,
                () -> bob.getPrompt(new McpSchema.GetPromptRequest("broken_prompt", Map.of()))).getJsonRpcError();
        assertThat(prompt.code()).isEqualTo(-32603);
        assertThat(prompt.message()).isEqualTo("Internal error: the prompt could not be rendered");
        assertThat(String.valueOf(prompt.data())).doesNotContain("hunter2");

        // a reader that finds nothing makes the uri unknown
        assertThat(readError(bob, "test://empty"))
                .isEqualTo(new McpSchema.JSONRPCResponse.JSONRPCError(-32002, "Resource not found", Map.of("uri", "test://empty")));
        // and the server keeps serving
        assertThat(text(read(bob, "test://static-text"))).isEqualTo(CatalogFixtures.STATIC_TEXT);
    }

    // ------------------------------------------------------------------------------------ prompts and completion

    @Test
    void getsPromptsWithArgumentsAndEveryContentKind() {
        McpSyncClient bob = client("bob-token");
        McpSchema.GetPromptResult simple = bob.getPrompt(new McpSchema.GetPromptRequest("test_simple_prompt", Map.of()));
        assertThat(simple.messages()).hasSize(1);
        assertThat(simple.messages().get(0).role()).isEqualTo(McpSchema.Role.USER);
        assertThat(((McpSchema.TextContent) simple.messages().get(0).content()).text()).isEqualTo("This is a simple prompt for testing.");

        McpSchema.GetPromptResult withArgs = bob.getPrompt(new McpSchema.GetPromptRequest("test_prompt_with_arguments",
                Map.of("arg1", "hello", "arg2", "world")));
        assertThat(((McpSchema.TextContent) withArgs.messages().get(0).content()).text())
                .isEqualTo("Prompt with arguments: arg1='hello', arg2='world'");

        McpSchema.GetPromptResult embedded = bob.getPrompt(new McpSchema.GetPromptRequest("test_prompt_with_embedded_resource",
                Map.of("resourceUri", "test://example-resource")));
        McpSchema.EmbeddedResource resource = (McpSchema.EmbeddedResource) embedded.messages().get(0).content();
        assertThat(resource.resource().uri()).isEqualTo("test://example-resource");
        assertThat(((McpSchema.TextResourceContents) resource.resource()).text()).isEqualTo("Embedded resource content for testing.");
        assertThat(embedded.messages()).hasSize(2);

        List<McpSchema.PromptMessage> withImage = bob.getPrompt(
                new McpSchema.GetPromptRequest("test_prompt_with_image", Map.of())).messages();
        McpSchema.ImageContent image = (McpSchema.ImageContent) withImage.get(0).content();
        assertThat(image.mimeType()).isEqualTo("image/png");
        assertThat(Base64.getDecoder().decode(image.data())).isEqualTo(CatalogFixtures.PNG);
        assertThat(withImage.get(2).role()).isEqualTo(McpSchema.Role.ASSISTANT);
        assertThat(withImage.get(2).content()).isInstanceOfSatisfying(McpSchema.ResourceLink.class,
                link -> assertThat(link.uri()).isEqualTo("test://static-text"));
    }

    @Test
    void missingOrUndeclaredPromptArgumentsGetAClearInvalidParamsError() {
        McpSyncClient bob = client("bob-token");
        McpSchema.JSONRPCResponse.JSONRPCError missing = catchThrowableOfType(McpError.class, () -> bob.getPrompt(
                new McpSchema.GetPromptRequest("test_prompt_with_arguments", Map.of("arg1", "hello")))).getJsonRpcError();
        assertThat(missing.code()).isEqualTo(-32602);
        assertThat(missing.message()).isEqualTo("Invalid params: prompt test_prompt_with_arguments needs the argument(s) arg2");
        assertThat(missing.data()).isEqualTo(Map.of("missing", List.of("arg2")));

        McpSchema.JSONRPCResponse.JSONRPCError undeclared = catchThrowableOfType(McpError.class, () -> bob.getPrompt(
                new McpSchema.GetPromptRequest("test_simple_prompt", Map.of("evil", "x")))).getJsonRpcError();
        assertThat(undeclared.code()).isEqualTo(-32602);
        assertThat(undeclared.message()).startsWith("Invalid params: prompt test_simple_prompt has no argument(s) evil");

        McpSchema.JSONRPCResponse.JSONRPCError unknown = catchThrowableOfType(McpError.class, () -> bob.getPrompt(
                new McpSchema.GetPromptRequest("no_such_prompt", Map.of()))).getJsonRpcError();
        assertThat(unknown.code()).isEqualTo(-32602);
        assertThat(unknown.message()).isEqualTo("Invalid params: unknown prompt");
    }

    @Test
    void completesVisibleArgumentsOnlyAndCapsTheValues() {
        McpSyncClient bob = client("bob-token");
        McpSchema.CompleteResult prompt = bob.completeCompletion(new McpSchema.CompleteRequest(
                new McpSchema.PromptReference("test_prompt_with_arguments"), new McpSchema.CompleteRequest.CompleteArgument("arg1", "par")));
        assertThat(prompt.completion().values()).containsExactly("paris", "park");
        assertThat(prompt.completion().hasMore()).isFalse();

        McpSchema.CompleteResult template = bob.completeCompletion(new McpSchema.CompleteRequest(
                new McpSchema.ResourceReference("test://template/{id}/data"), new McpSchema.CompleteRequest.CompleteArgument("id", "x")));
        assertThat(template.completion().values()).hasSize(100).startsWith("x0", "x1");
        assertThat(template.completion().total()).isEqualTo(150);
        assertThat(template.completion().hasMore()).isTrue();

        McpSchema.CompleteResult noCompleter = bob.completeCompletion(new McpSchema.CompleteRequest(
                new McpSchema.PromptReference("test_prompt_with_arguments"), new McpSchema.CompleteRequest.CompleteArgument("arg2", "w")));
        assertThat(noCompleter.completion().values()).isEmpty();

        McpSchema.JSONRPCResponse.JSONRPCError hidden = catchThrowableOfType(McpError.class, () -> bob.completeCompletion(
                new McpSchema.CompleteRequest(new McpSchema.PromptReference("secret_prompt"),
                        new McpSchema.CompleteRequest.CompleteArgument("topic", "c")))).getJsonRpcError();
        McpSchema.JSONRPCResponse.JSONRPCError unknown = catchThrowableOfType(McpError.class, () -> bob.completeCompletion(
                new McpSchema.CompleteRequest(new McpSchema.PromptReference("secret_prompt2"),
                        new McpSchema.CompleteRequest.CompleteArgument("topic", "c")))).getJsonRpcError();
        assertThat(hidden.code()).isEqualTo(unknown.code()).isEqualTo(-32602);
        assertThat(hidden.message()).isEqualTo(unknown.message()).isEqualTo("Invalid params: unknown prompt");
        assertThat(client("carol-token").completeCompletion(new McpSchema.CompleteRequest(new McpSchema.PromptReference("secret_prompt"),
                new McpSchema.CompleteRequest.CompleteArgument("topic", "c"))).completion().values()).containsExactly("classified-launch");
    }

    // ------------------------------------------------------------------------------------ subscriptions

    @Test
    void subscribersGetUpdatesUntilTheyUnsubscribe() throws Exception {
        List<String> updates = new CopyOnWriteArrayList<>();
        CountDownLatch first = new CountDownLatch(1);
        McpSyncClient bob = client("bob-token", spec -> spec.resourcesUpdateConsumer(contents -> {
            contents.forEach(c -> updates.add(c.uri()));
            first.countDown();
        }));
        awaitOpenStreams(1);

        bob.subscribeResource(new McpSchema.SubscribeRequest("test://watched-resource"));
        assertThat(server.catalogSubscriptions()).isEqualTo(1);
        fixtures.catalog.resourceUpdated("test://static-text"); // not subscribed: nothing
        fixtures.catalog.resourceUpdated("test://watched-resource");
        assertThat(first.await(10, TimeUnit.SECONDS)).as("update received").isTrue();
        assertThat(updates).containsExactly("test://watched-resource");
        bob.unsubscribeResource(new McpSchema.UnsubscribeRequest("test://watched-resource"));
        assertThat(server.catalogSubscriptions()).isZero();

        // what the server sends, exactly: updates go out in order, so once the control (static-text)
        // arrives, an update of watched-resource sent before it would have arrived too
        try (RawEvents raw = new RawEvents(server.endpoint(), "bob-token")) {
            raw.post(subscribe(2, "test://watched-resource"));
            raw.post(subscribe(3, "test://static-text"));
            fixtures.catalog.resourceUpdated("test://watched-resource");
            fixtures.catalog.resourceUpdated("test://static-text");
            List<tools.jackson.databind.JsonNode> seen = raw.readUntil(m -> RawEvents.updated(m, "test://static-text"));
            assertThat(seen.stream().filter(m -> RawEvents.updated(m, "test://watched-resource"))).hasSize(1);

            raw.post("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/unsubscribe\",\"params\":{\"uri\":\"test://watched-resource\"}}");
            fixtures.catalog.resourceUpdated("test://watched-resource");
            fixtures.catalog.resourceUpdated("test://static-text");
            seen = raw.readUntil(m -> RawEvents.updated(m, "test://static-text"));
            assertThat(seen.stream().filter(m -> RawEvents.updated(m, "test://watched-resource"))).isEmpty();
        }
    }

    private static String subscribe(int id, String uri) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"" + uri + "\"}}";
    }

    @Test
    void aSubscriberWhoLosesAccessGetsNoUpdates() throws Exception {
        CountDownLatch carolUpdated = new CountDownLatch(2);
        McpSyncClient carol = client("carol-token", spec -> spec.resourcesUpdateConsumer(c -> carolUpdated.countDown()));
        awaitOpenStreams(1);
        carol.subscribeResource(new McpSchema.SubscribeRequest("test://watched-resource"));
        try (RawEvents bob = new RawEvents(server.endpoint(), "bob-token")) {
            assertThat(bob.post(subscribe(2, "test://watched-resource"))).contains("\"result\":{}");
            assertThat(bob.post(subscribe(3, "test://static-text"))).contains("\"result\":{}");
            fixtures.catalog.resourceUpdated("test://watched-resource");
            fixtures.catalog.resourceUpdated("test://static-text");
            assertThat(bob.readUntil(m -> RawEvents.updated(m, "test://static-text"))
                    .stream().filter(m -> RawEvents.updated(m, "test://watched-resource"))).hasSize(1);

            resolver.revoked.add(Fixtures.BOB.key() + "/watched"); // bob loses watched-resource, keeps the rest
            fixtures.catalog.resourceUpdated("test://watched-resource");
            fixtures.catalog.resourceUpdated("test://static-text");
            assertThat(bob.readUntil(m -> RawEvents.updated(m, "test://static-text"))
                    .stream().filter(m -> RawEvents.updated(m, "test://watched-resource"))).isEmpty();
            assertThat(carolUpdated.await(10, TimeUnit.SECONDS)).as("carol still gets updates").isTrue();

            // and a uri bob may no longer see cannot be subscribed to: the same error as an unknown one
            assertThat(bob.post(subscribe(4, "test://watched-resource")))
                    .isEqualTo(bob.post(subscribe(4, "test://never-registered")).replace("never-registered", "watched-resource"))
                    .contains("-32002");
        }
    }

    @Test
    void aPrincipalWhoseRulesShrinkGetsNoUpdatesAfterItsNextRequest() throws Exception {
        try (RawEvents bob = new RawEvents(server.endpoint(), "bob-token")) {
            bob.post(subscribe(2, "test://watched-resource"));
            bob.post(subscribe(3, "test://static-text"));
            tokens.put("bob-token", Principal.user("bob")); // the identity provider dropped ticket.read
            assertThat(bob.post("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/list\"}"))
                    .doesNotContain("test://watched-resource").contains("test://static-text");
            fixtures.catalog.resourceUpdated("test://watched-resource");
            fixtures.catalog.resourceUpdated("test://static-text");
            assertThat(bob.readUntil(m -> RawEvents.updated(m, "test://static-text"))
                    .stream().filter(m -> RawEvents.updated(m, "test://watched-resource"))).isEmpty();
        }
    }

    @Test
    void aFailingResolverHidesTheEntry() {
        McpSyncClient bob = client("bob-token");
        resolver.revoked.add("throw/static-text");
        resolver.revoked.add("throw/test_simple_prompt");
        assertThat(bob.listResources().resources()).extracting(McpSchema.Resource::uri)
                .doesNotContain("test://static-text").contains("test://static-binary");
        assertThat(readError(bob, "test://static-text"))
                .isEqualTo(new McpSchema.JSONRPCResponse.JSONRPCError(-32002, "Resource not found", Map.of("uri", "test://static-text")));
        assertThat(bob.listPrompts().prompts()).extracting(McpSchema.Prompt::name).doesNotContain("test_simple_prompt");
        assertThat(catchThrowableOfType(McpError.class, () -> bob.getPrompt(new McpSchema.GetPromptRequest("test_simple_prompt",
                Map.of()))).getJsonRpcError().message()).isEqualTo("Invalid params: unknown prompt");
    }

    @Test
    void subscriptionsAreBoundedPerSessionAndEndWithTheSession() throws Exception {
        McpCatalog small = new CatalogFixtures(false).catalog.maxSubscriptionsPerSession(3);
        server = serve(small);
        McpSyncClient bob = client("bob-token");
        for (int i = 0; i < 3; i++) {
            bob.subscribeResource(new McpSchema.SubscribeRequest("test://template/" + i + "/data"));
        }
        bob.subscribeResource(new McpSchema.SubscribeRequest("test://template/0/data")); // a repeat is not a new one
        McpSchema.JSONRPCResponse.JSONRPCError full = catchThrowableOfType(McpError.class, () -> bob.subscribeResource(
                new McpSchema.SubscribeRequest("test://template/3/data"))).getJsonRpcError();
        assertThat(full.code()).isEqualTo(-32602);
        assertThat(full.message()).isEqualTo("Invalid params: too many subscriptions: a session may hold at most 3; unsubscribe from one first");
        assertThat(server.catalogSubscriptions()).isEqualTo(3);

        McpSyncClient carol = client("carol-token");
        carol.subscribeResource(new McpSchema.SubscribeRequest("test://static-text"));
        assertThat(server.catalogSubscriptions()).isEqualTo(4);
        clients.remove(bob);
        bob.closeGracefully(); // DELETE ends the session
        for (int i = 0; i < 100 && server.openSessions() > 1; i++) {
            Thread.sleep(20);
        }
        assertThat(server.catalogSubscriptions()).isEqualTo(1);
    }

    @Test
    void addingAndRemovingEntriesSendsListChanged() throws Exception {
        CountDownLatch resources = new CountDownLatch(1);
        CountDownLatch prompts = new CountDownLatch(1);
        List<List<String>> seen = new CopyOnWriteArrayList<>();
        client("bob-token", spec -> spec
                .resourcesChangeConsumer(list -> {
                    seen.add(list.stream().map(McpSchema.Resource::uri).toList());
                    resources.countDown();
                })
                .promptsChangeConsumer(list -> prompts.countDown()));
        awaitOpenStreams(1);
        fixtures.catalog.add(McpResource.builder("test://new", "new").reader(r -> List.of(McpContents.text(r.uri(), null, "n"))).build());
        assertThat(resources.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seen.get(0)).contains("test://new").doesNotContain("docs://secret/plan");
        assertThat(fixtures.catalog.removePrompt("test_simple_prompt")).isTrue();
        assertThat(prompts.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void advertisesOnlyTheCapabilitiesOfWhatIsRegistered() throws Exception {
        McpSchema.ServerCapabilities full = client("bob-token").getServerCapabilities();
        assertThat(full.resources().subscribe()).isTrue();
        assertThat(full.resources().listChanged()).isTrue();
        assertThat(full.prompts().listChanged()).isTrue();
        assertThat(full.completions()).isNotNull();
        assertThat(full.tools()).isNotNull();

        server = serve(McpCatalog.create().add(McpPrompt.builder("p").renderer(r -> List.of()).build()));
        McpSyncClient promptsOnly = client("bob-token");
        assertThat(promptsOnly.getServerCapabilities().resources()).isNull();
        assertThat(promptsOnly.getServerCapabilities().completions()).isNull();
        assertThat(promptsOnly.getServerCapabilities().prompts()).isNotNull();
        try (KeptAliveClient raw = new KeptAliveClient(server.port(), "bob-token").initialize()) {
            // the SDK's client refuses by itself; a raw request reaches the SDK, which knows no such method
            assertThat(raw.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/list\"}").body()).contains("-32601");
            assertThat(raw.post("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/list\"}").body()).contains("\"p\"");
        }

        Toolgate gate = CatalogFixtures.gate(resolver);
        closing.add(gate);
        server = serve(gate, token -> Optional.ofNullable(tokens.get(token)), null);
        closing.add(server);
        McpSchema.ServerCapabilities none = client("bob-token").getServerCapabilities();
        assertThat(none.resources()).isNull();
        assertThat(none.prompts()).isNull();
        assertThat(none.completions()).isNull();
    }

    private void awaitOpenStreams(int streams) throws InterruptedException {
        for (int i = 0; i < 200 && server.openStreams() < streams; i++) {
            Thread.sleep(25);
        }
        assertThat(server.openStreams()).isGreaterThanOrEqualTo(streams);
    }
}
