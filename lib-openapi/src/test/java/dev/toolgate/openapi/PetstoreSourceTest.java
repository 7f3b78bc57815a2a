package dev.toolgate.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.json.Json;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.source.SecretResolver;
import dev.toolgate.source.SourceStatus;
import dev.toolgate.source.ToolSource;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolValidationException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The Swagger Petstore's own OpenAPI 3.0 document served by a real local HTTP server: every operation
 * becomes a tool with the effect of its method, reads run directly, writes are proposed with the
 * method, URL and body, and applying sends exactly the stored payload once.
 */
class PetstoreSourceTest {

    static final Principal CAROL = Principal.user("carol", "pets.use");
    static final Principal OLGA = Principal.user("olga", "toolgate.approvals.manage", "*");
    static final String TOKEN = "pk_live_" + "51Hc0ffee9d2b7a4e8f1";

    private final List<AutoCloseable> closing = new ArrayList<>();
    private ApiServer api;

    @BeforeEach
    void startApi() throws IOException {
        api = ApiServer.start();
        closing.add(api);
        api.document("/openapi.yaml", resource("openapi/petstore-3.0.yaml"), "application/yaml");
        api.on("GET", "/api/v3/pet/\\d+", s -> s.rawPath().endsWith("/404")
                ? ApiServer.Answer.json(404, "{\"message\":\"Pet not found\"}")
                : ApiServer.Answer.json(200, "{\"id\":" + s.rawPath().replaceAll(".*/", "")
                        + ",\"name\":\"doggie\",\"status\":\"available\",\"apiKey\":\"" + TOKEN + "\"}"));
        api.on("GET", "/api/v3/pet/findByStatus", s -> ApiServer.Answer.json(200, "[{\"id\":1,\"name\":\"rex\"}]"));
        api.on("POST", "/api/v3/pet", s -> ApiServer.Answer.json(200, s.bodyText()));
        api.on("DELETE", "/api/v3/pet/\\d+", s -> ApiServer.Answer.text(200, "text/plain", "Pet deleted"));
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    static byte[] resource(String name) throws IOException {
        try (InputStream in = PetstoreSourceTest.class.getClassLoader().getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    OpenApiSource.Builder petstore() {
        return OpenApiSource.builder("petstore").documentUrl(api.url("/openapi.yaml")).server(api.url("/api/v3"))
                .bearerSecret("petstore-token").requires("pets.use");
    }

    Toolgate gate(ToolSource... sources) {
        var builder = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .sweepInterval(Duration.ZERO).policyCacheTtl(Duration.ZERO)
                .secrets(SecretResolver.of(Map.of("petstore-token", TOKEN)))
                .sourceTimings(Duration.ofMinutes(5), Duration.ofSeconds(10), Duration.ofSeconds(10));
        for (ToolSource source : sources) {
            builder.source(source);
        }
        Toolgate gate = builder.build();
        closing.add(gate);
        return gate;
    }

    static CallContext ctx(Principal principal) {
        return CallContext.of(principal).withSession("s-1").withTenant("acme");
    }

    @Test
    void everyOperationBecomesAToolWithTheEffectOfItsMethod() {
        Toolgate gate = gate(petstore().build());
        Map<String, Effect> effects = gate.registry().tools().stream()
                .collect(Collectors.toMap(RegisteredTool::name, RegisteredTool::effect, (a, b) -> a, TreeMap::new));
        assertThat(effects).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                Map.entry("openapi:petstore.updatePet", Effect.MUTATE),
                Map.entry("openapi:petstore.addPet", Effect.MUTATE),
                Map.entry("openapi:petstore.findPetsByStatus", Effect.READ),
                Map.entry("openapi:petstore.findPetsByTags", Effect.READ),
                Map.entry("openapi:petstore.getPetById", Effect.READ),
                Map.entry("openapi:petstore.updatePetWithForm", Effect.MUTATE),
                Map.entry("openapi:petstore.deletePet", Effect.DESTRUCTIVE),
                Map.entry("openapi:petstore.uploadFile", Effect.MUTATE),
                Map.entry("openapi:petstore.getInventory", Effect.READ),
                Map.entry("openapi:petstore.placeOrder", Effect.MUTATE),
                Map.entry("openapi:petstore.getOrderById", Effect.READ),
                Map.entry("openapi:petstore.deleteOrder", Effect.DESTRUCTIVE),
                Map.entry("openapi:petstore.createUser", Effect.MUTATE),
                Map.entry("openapi:petstore.createUsersWithListInput", Effect.MUTATE),
                Map.entry("openapi:petstore.loginUser", Effect.READ),
                Map.entry("openapi:petstore.logoutUser", Effect.READ),
                Map.entry("openapi:petstore.getUserByName", Effect.READ),
                Map.entry("openapi:petstore.updateUser", Effect.MUTATE),
                Map.entry("openapi:petstore.deleteUser", Effect.DESTRUCTIVE)));
        SourceStatus status = gate.listSources().get(0);
        assertThat(status.state()).isEqualTo(SourceStatus.State.AVAILABLE);
        assertThat(status.tools()).isEqualTo(19);
        assertThat(gate.registry().find("openapi:petstore.getPetById").orElseThrow().requiredAccessRules())
                .containsExactly("pets.use");
    }

    @Test
    void theInputSchemaGroupsParametersByLocationAndReferencesComponentsAsDefs() {
        Toolgate gate = gate(petstore().build());
        JsonNode getPet = gate.registry().find("openapi:petstore.getPetById").orElseThrow().descriptor().inputSchema();
        assertThat(getPet.path("required").toString()).isEqualTo("[\"path\"]");
        assertThat(getPet.path("properties").path("path").path("properties").path("petId").path("type").asString())
                .isEqualTo("integer");
        assertThat(getPet.path("additionalProperties").asBoolean(true)).isFalse();

        JsonNode addPet = gate.registry().find("openapi:petstore.addPet").orElseThrow().descriptor().inputSchema();
        assertThat(addPet.path("properties").path("body").path("$ref").asString()).isEqualTo("#/$defs/Pet");
        assertThat(addPet.path("$defs").propertyNames()).contains("Pet", "Category", "Tag");
        assertThat(addPet.path("required").toString()).contains("body");

        JsonNode deletePet = gate.registry().find("openapi:petstore.deletePet").orElseThrow().descriptor().inputSchema();
        assertThat(deletePet.path("properties").path("header").path("properties").has("api_key"))
                .as("an API's own header parameter is offered").isTrue();
        assertThat(gate.registry().find("openapi:petstore.getPetById").orElseThrow().descriptor().description())
                .contains("Find pet by ID").contains("Calls GET /pet/{petId}.");
    }

    @Test
    void aReadRunsDirectlyWithTheHostsCredentialWhichNeverReachesTheModelOrTheAudit() {
        Toolgate gate = gate(petstore().build());
        Executed executed = (Executed) gate.call(ctx(CAROL), "openapi:petstore.getPetById", "{\"path\":{\"petId\":7}}");
        assertThat(executed.result().path("status").asInt()).isEqualTo(200);
        assertThat(executed.result().path("body").path("name").asString()).isEqualTo("doggie");
        assertThat(executed.result().toString()).doesNotContain(TOKEN);
        assertThat(gate.findCall(executed.callId()).orElseThrow().resultJson()).doesNotContain(TOKEN);

        ApiServer.Seen request = api.apiRequests().get(0);
        assertThat(request.method()).isEqualTo("GET");
        assertThat(request.rawPath()).isEqualTo("/api/v3/pet/7");
        assertThat(request.header("Authorization")).isEqualTo("Bearer " + TOKEN);
        assertThat(request.header("Accept")).startsWith("application/json");
    }

    @Test
    void queryArraysExplodeAsTheDocumentSays() {
        Toolgate gate = gate(petstore().build());
        Executed executed = (Executed) gate.call(ctx(CAROL), "openapi:petstore.findPetsByStatus",
                "{\"query\":{\"status\":\"sold\"}}");
        assertThat(executed.result().path("body").get(0).path("name").asString()).isEqualTo("rex");
        assertThat(api.apiRequests().get(0).rawQuery()).isEqualTo("status=sold");
    }

    @Test
    void aPostIsProposedWithMethodUrlAndBodyAndApplyingSendsExactlyTheStoredPayloadOnce() {
        Toolgate gate = gate(petstore().build());
        String arguments = "{\"body\":{\"id\":10,\"name\":\"doggie\",\"photoUrls\":[\"https://example.com/d.png\"],"
                + "\"category\":{\"id\":1,\"name\":\"Dogs\"},\"status\":\"available\"}}";
        CallResult result = gate.call(ctx(CAROL), "openapi:petstore.addPet", arguments);
        assertThat(result).isInstanceOf(Proposal.class);
        Proposal proposal = (Proposal) result;
        assertThat(proposal.summary()).contains("POST " + api.url("/api/v3/pet")).contains("JSON body");
        assertThat(proposal.summary()).doesNotContain(TOKEN);
        assertThat(api.apiRequests()).as("nothing is sent before consent").isEmpty();

        Applied applied = gate.apply(ctx(CAROL), proposal.token());
        assertThat(gate.findCall(applied.callId()).orElseThrow().status()).isEqualTo(CallStatus.APPLIED);
        assertThat(api.apiRequests()).hasSize(1);
        ApiServer.Seen sent = api.apiRequests().get(0);
        assertThat(sent.method()).isEqualTo("POST");
        assertThat(sent.rawPath()).isEqualTo("/api/v3/pet");
        assertThat(sent.header("Content-Type")).isEqualTo("application/json");
        String stored = gate.findCall(applied.callId()).orElseThrow().payloadJson();
        assertThat(Json.parse(sent.bodyText())).isEqualTo(Json.parse(stored).path("body"));
        assertThat(Json.parse(sent.bodyText())).isEqualTo(Json.parse(arguments).path("body"));

        assertThatThrownBy(() -> gate.apply(ctx(CAROL), proposal.token())).as("a token works once")
                .isInstanceOf(RuntimeException.class);
        assertThat(api.apiRequests()).as("and nothing more was sent").hasSize(1);
    }

    @Test
    void aDeleteIsDestructiveAndWaitsForAPersonEvenUnderAllow() {
        Toolgate gate = gate(petstore().build());
        gate.setMode(ctx(OLGA), OverrideScope.TENANT, "openapi:petstore.deletePet", Mode.ALLOW);
        CallResult result = gate.call(ctx(CAROL), "openapi:petstore.deletePet",
                "{\"path\":{\"petId\":5},\"header\":{\"api_key\":\"k-1\"}}");
        assertThat(result).isInstanceOf(Proposal.class);
        assertThat(((Proposal) result).summary()).contains("DELETE " + api.url("/api/v3/pet/5"));
        assertThat(api.apiRequests()).isEmpty();
        Applied applied = gate.apply(ctx(OLGA), ((Proposal) result).token());
        assertThat(applied.result().path("body").asString()).isEqualTo("Pet deleted");
        assertThat(api.apiRequests()).singleElement().satisfies(s -> {
            assertThat(s.method()).isEqualTo("DELETE");
            assertThat(s.header("api_key")).isEqualTo("k-1");
        });
    }

    @Test
    void anHttpErrorFailsTheCallWithItsStatusAndTheStartOfTheBody() {
        Toolgate gate = gate(petstore().build());
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "openapi:petstore.getPetById", "{\"path\":{\"petId\":404}}"))
                .isInstanceOf(ToolExecutionException.class).hasMessageContaining("HTTP 404").hasMessageContaining("Pet not found");
    }

    @Test
    void argumentsAgainstTheSchemaAreRefusedBeforeAnyRequest() {
        Toolgate gate = gate(petstore().build());
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "openapi:petstore.getPetById", "{\"path\":{\"petId\":\"seven\"}}"))
                .isInstanceOf(ToolValidationException.class);
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "openapi:petstore.getPetById", "{}"))
                .isInstanceOf(ToolValidationException.class);
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "openapi:petstore.getPetById",
                "{\"path\":{\"petId\":1},\"header\":{\"Authorization\":\"Bearer mine\"}}"))
                .as("no header the operation does not declare").isInstanceOf(ToolValidationException.class);
        assertThat(api.apiRequests()).isEmpty();
    }

    @Test
    void anUnreachableApiIsTypedAsUnavailable() throws Exception {
        Toolgate gate = gate(OpenApiSource.builder("petstore").documentResource("openapi/petstore-3.0.yaml")
                .server(java.net.URI.create("http://127.0.0.1:" + freePort() + "/api/v3")).build());
        assertThatThrownBy(() -> gate.call(ctx(Principal.user("carol", "*")), "openapi:petstore.getPetById",
                "{\"path\":{\"petId\":1}}")).isInstanceOf(SourceUnavailableException.class);
    }

    @Test
    void aPrincipalWithoutTheRuleDoesNotSeeTheTools() {
        Toolgate gate = gate(petstore().build());
        assertThat(gate.listTools(Principal.user("mallory", "other.use"))).isEmpty();
        assertThat(gate.listTools(CAROL)).hasSize(19);
    }

    @Test
    void theHostsBaseUrlIsConfigurationAndInstancesReachingTheApiAtOtherAddressesShareOneReview() {
        String here = gate(petstore().build()).registry().find("openapi:petstore.addPet").orElseThrow().schemaFingerprint();
        String there = gate(OpenApiSource.builder("petstore").documentUrl(api.url("/openapi.yaml"))
                .server(java.net.URI.create("http://localhost:" + api.port() + "/api/v3")).bearerSecret("petstore-token")
                .requires("pets.use").build()).registry().find("openapi:petstore.addPet").orElseThrow().schemaFingerprint();
        assertThat(there).isEqualTo(here);
    }

    static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
