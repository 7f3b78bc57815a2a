package dev.toolgate.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.UnknownToolException;
import dev.toolgate.json.Json;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeResolution;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.source.SecretResolver;
import dev.toolgate.source.SourceStatus;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.RegisteredTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * A document that changes under a tool a tenant allowed. The OpenAPI source fingerprints each tool's
 * input schema together with its contract ({@code METHOD server+path effect}); when the document
 * served at the same URL changes what an operation does, the tenant's ALLOW turns into
 * REQUIRE_APPROVAL until an operator confirms the new schema, and nothing reaches the API before
 * consent. A change only in wording is no drift.
 *
 * <p>The document is the OAI's petstore-expanded (3.0), served by the local {@link ApiServer} and
 * edited as a tree between listings; {@code addPet} is {@code POST /pets} with a {@code NewPet} body.
 */
class DriftTest {

    static final Principal CAROL = Principal.user("carol", "pets.use");
    static final Principal OLGA = Principal.user("olga", "toolgate.approvals.manage", "*");
    static final String ADD = "openapi:pets.addPet";
    static final String PET = "{\"body\":{\"name\":\"rex\",\"tag\":\"dog\",\"owner\":\"olga\"}}";

    private final List<AutoCloseable> closing = new ArrayList<>();
    private ApiServer api;

    @BeforeEach
    void startApi() throws IOException {
        api = ApiServer.start();
        closing.add(api);
        api.on("POST", "/api/(pets|animals)", s -> ApiServer.Answer.json(200, s.bodyText()));
        api.on("GET", "/api/(pets|animals)", s -> ApiServer.Answer.json(200, "[]"));
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    /** The petstore-expanded document as an editable tree. */
    static ObjectNode original() throws IOException {
        return (ObjectNode) YAMLMapper.builder().build().readTree(PetstoreSourceTest.resource("openapi/petstore-expanded-3.0.yaml"));
    }

    /** Serves {@code document} at {@code /openapi.json} from now on (a later route wins). */
    void serve(JsonNode document) {
        api.document("/openapi.json", Json.write(document).getBytes(StandardCharsets.UTF_8), "application/json");
    }

    OpenApiSource.Builder pets() {
        return OpenApiSource.builder("pets").documentUrl(api.url("/openapi.json")).server(api.url("/api")).requires("pets.use");
    }

    Toolgate gate(OpenApiSource source) {
        Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .sweepInterval(Duration.ZERO).policyCacheTtl(Duration.ZERO)
                .secrets(SecretResolver.of(Map.of()))
                .sourceTimings(Duration.ofMinutes(5), Duration.ofSeconds(10), Duration.ofSeconds(10))
                .source(source).build();
        closing.add(gate);
        return gate;
    }

    static CallContext ctx(Principal principal) {
        return CallContext.of(principal).withSession("s-1").withTenant("acme");
    }

    /** The tenant allows addPet; a POST then runs at once. */
    Toolgate allowed(OpenApiSource source) {
        Toolgate gate = gate(source);
        gate.setMode(ctx(OLGA), OverrideScope.TENANT, ADD, Mode.ALLOW);
        assertThat(mode(gate)).isEqualTo(new ModeResolution(Mode.ALLOW, ModeSource.TENANT_DEFAULT, false));
        ranAtOnce(gate.call(ctx(CAROL), ADD, PET));
        assertThat(api.apiRequests()).singleElement().satisfies(s -> assertThat(s.rawPath()).isEqualTo("/api/pets"));
        api.clear();
        return gate;
    }

    /** The call ran without waiting for anyone: a read executed, or a write applied automatically. */
    static void ranAtOnce(CallResult result) {
        assertThat(result).isInstanceOfAny(Executed.class, Applied.class);
        if (result instanceof Applied applied) {
            assertThat(applied.automatic()).isTrue();
        }
    }

    static ModeResolution mode(Toolgate gate) {
        return gate.catalog(ctx(CAROL)).stream().filter(e -> e.descriptor().name().equals(ADD)).findFirst().orElseThrow().mode();
    }

    static void refresh(Toolgate gate) {
        List<SourceStatus> statuses = gate.refreshSources();
        assertThat(statuses).singleElement().satisfies(s -> {
            assertThat(s.state()).isEqualTo(SourceStatus.State.AVAILABLE);
            assertThat(s.skipped()).isEmpty();
        });
    }

    /**
     * After drift: the call is proposed and nothing is sent; applying sends it to {@code path}; once the
     * operator confirms the schema, the call runs at once again.
     */
    void proposedUntilConfirmed(Toolgate gate, String path, String arguments) {
        assertThat(mode(gate).drifted()).isTrue();
        assertThat(mode(gate).mode()).isEqualTo(Mode.REQUIRE_APPROVAL);

        CallResult result = gate.call(ctx(CAROL), ADD, arguments);
        assertThat(result).as("a drifted ALLOW is a proposal").isInstanceOf(Proposal.class);
        Proposal proposal = (Proposal) result;
        assertThat(proposal.summary()).contains("POST " + api.url(path));
        assertThat(api.apiRequests()).as("nothing is sent before consent").isEmpty();

        Applied applied = gate.apply(ctx(CAROL), proposal.token());
        assertThat(applied.result().path("status").asInt()).isEqualTo(200);
        assertThat(api.apiRequests()).singleElement().satisfies(s -> {
            assertThat(s.method()).isEqualTo("POST");
            assertThat(s.rawPath()).isEqualTo(path);
            assertThat(Json.parse(s.bodyText())).isEqualTo(Json.parse(arguments).path("body"));
        });
        api.clear();
        assertThat(mode(gate).drifted()).as("applying one proposal confirms nothing").isTrue();

        gate.confirmSchema(ctx(OLGA), ADD);
        assertThat(mode(gate).drifted()).isFalse();
        assertThat(mode(gate).mode()).isEqualTo(Mode.ALLOW);
        ranAtOnce(gate.call(ctx(CAROL), ADD, arguments));
        assertThat(api.apiRequests()).singleElement().satisfies(s -> assertThat(s.rawPath()).isEqualTo(path));
    }

    @Test
    void aChangedPathIsDriftAndTheCallIsProposedUntilAnOperatorConfirms() throws IOException {
        ObjectNode document = original();
        serve(document);
        Toolgate gate = allowed(pets().build());
        String before = tool(gate).schemaFingerprint();
        JsonNode schema = tool(gate).descriptor().inputSchema();

        // /pets becomes /animals: same operation, same schema, another URL
        ObjectNode paths = (ObjectNode) document.get("paths");
        JsonNode pets = paths.remove("/pets");
        ObjectNode moved = document.objectNode();
        moved.set("/animals", pets);
        moved.setAll(paths);
        document.set("paths", moved);
        serve(document);
        refresh(gate);

        assertThat(tool(gate).tool().contract()).contains("POST /animals mutate");
        assertThat(tool(gate).descriptor().inputSchema()).as("the schema did not change").isEqualTo(schema);
        assertThat(tool(gate).schemaFingerprint()).isNotEqualTo(before);
        proposedUntilConfirmed(gate, "/api/animals", PET);
    }

    @Test
    void aNewRequiredBodyPropertyIsDrift() throws IOException {
        ObjectNode document = original();
        serve(document);
        Toolgate gate = allowed(pets().build());

        ObjectNode newPet = (ObjectNode) document.at("/components/schemas/NewPet");
        ((ObjectNode) newPet.get("properties")).putObject("owner").put("type", "string");
        ((ArrayNode) newPet.get("required")).add("owner");
        serve(document);
        refresh(gate);

        assertThat(tool(gate).descriptor().inputSchema().at("/$defs/NewPet/required").toString())
                .isEqualTo("[\"name\",\"owner\"]");
        assertThat(tool(gate).validate(Json.parse("{\"body\":{\"name\":\"rex\"}}"))).as("owner is required now").isNotEmpty();
        proposedUntilConfirmed(gate, "/api/pets", PET);
    }

    @Test
    void aChangeOnlyInWordingIsNoDriftAndTheCallStillRunsAtOnce() throws IOException {
        ObjectNode document = original();
        serve(document);
        Toolgate gate = allowed(pets().build());
        String before = tool(gate).schemaFingerprint();

        ObjectNode post = (ObjectNode) document.at("/paths/~1pets/post");
        post.put("summary", "Add a pet");
        post.put("description", "Creates a new pet in the store. Duplicates are allowed, and are kept.");
        ((ObjectNode) post.get("requestBody")).put("description", "The pet to add");
        ((ObjectNode) document.at("/components/schemas/NewPet/properties/name")).put("description", "The pet's name");
        ((ObjectNode) document.get("info")).put("description", "Another description of the API");
        serve(document);
        refresh(gate);

        RegisteredTool tool = tool(gate);
        assertThat(tool.descriptor().title()).as("the new wording was read").contains("Add a pet");
        assertThat(tool.descriptor().description()).contains("and are kept");
        assertThat(tool.descriptor().inputSchema().path("properties").path("body").path("description").asString())
                .isEqualTo("The pet to add");
        assertThat(tool.schemaFingerprint()).isEqualTo(before);
        assertThat(mode(gate).drifted()).isFalse();
        ranAtOnce(gate.call(ctx(CAROL), ADD, PET));
        assertThat(api.apiRequests()).singleElement().satisfies(s -> assertThat(s.rawPath()).isEqualTo("/api/pets"));
    }

    @Test
    void aChangedEffectIsDrift() throws IOException {
        // a host that trusts the document's effects: the document says this POST only reads
        ObjectNode document = original();
        ObjectNode post = (ObjectNode) document.at("/paths/~1pets/post");
        post.put("x-toolgate-effect", "read");
        serve(document);
        Toolgate gate = allowed(pets().trustDocumentEffects().build());
        assertThat(tool(gate).effect()).isEqualTo(Effect.READ);

        post.put("x-toolgate-effect", "mutate");
        serve(document);
        refresh(gate);

        assertThat(tool(gate).effect()).isEqualTo(Effect.MUTATE);
        assertThat(tool(gate).tool().contract()).contains("POST /pets mutate");
        proposedUntilConfirmed(gate, "/api/pets", PET);
    }

    @Test
    void anEffectTheHostDoesNotTrustIsNoChangeAndAStricterOneTakesHoldAtOnce() throws IOException {
        ObjectNode document = original();
        serve(document);
        Toolgate gate = allowed(pets().build());
        String before = tool(gate).schemaFingerprint();

        // without trustDocumentEffects, a document cannot make a POST a read: nothing changed
        ObjectNode post = (ObjectNode) document.at("/paths/~1pets/post");
        post.put("x-toolgate-effect", "read");
        serve(document);
        refresh(gate);
        assertThat(tool(gate).effect()).isEqualTo(Effect.MUTATE);
        assertThat(tool(gate).schemaFingerprint()).isEqualTo(before);
        ranAtOnce(gate.call(ctx(CAROL), ADD, PET));
        api.clear();

        // stricter is always taken: DESTRUCTIVE, drifted, and a destructive call waits for a person even once confirmed
        post.put("x-toolgate-effect", "destructive");
        serve(document);
        refresh(gate);
        assertThat(tool(gate).effect()).isEqualTo(Effect.DESTRUCTIVE);
        assertThat(mode(gate).drifted()).isTrue();
        assertThat(gate.call(ctx(CAROL), ADD, PET)).isInstanceOf(Proposal.class);
        gate.confirmSchema(ctx(OLGA), ADD);
        assertThat(mode(gate).drifted()).isFalse();
        assertThat(gate.call(ctx(CAROL), ADD, PET)).isInstanceOf(Proposal.class);
        assertThat(api.apiRequests()).isEmpty();
    }

    @Test
    void anOperationRemovedFromTheDocumentFailsTypedAndSendsNothing() throws IOException {
        ObjectNode document = original();
        serve(document);
        Toolgate gate = allowed(pets().build());

        ((ObjectNode) document.at("/paths/~1pets")).remove("post");
        serve(document);
        refresh(gate);

        assertThat(gate.registry().find(ADD)).isEmpty();
        assertThat(gate.listSources().get(0).tools()).isEqualTo(3);
        assertThatThrownBy(() -> gate.call(ctx(CAROL), ADD, PET)).isInstanceOf(UnknownToolException.class);
        assertThat(api.apiRequests()).isEmpty();
        // its neighbours are untouched
        assertThat(gate.call(ctx(CAROL), "openapi:pets.findPets", "{}")).isInstanceOf(Executed.class);
    }

    @Test
    void aProposalMadeBeforeTheOperationWasRemovedCannotBeApplied() throws IOException {
        ObjectNode document = original();
        serve(document);
        Toolgate gate = gate(pets().build());
        Proposal proposal = (Proposal) gate.call(ctx(CAROL), ADD, PET);

        ((ObjectNode) document.at("/paths/~1pets")).remove("post");
        serve(document);
        refresh(gate);

        assertThatThrownBy(() -> gate.apply(ctx(CAROL), proposal.token())).isInstanceOf(RuntimeException.class)
                .satisfies(e -> assertThat(e).isInstanceOfAny(UnknownToolException.class,
                        dev.toolgate.call.ProposeApplyException.class, dev.toolgate.call.ToolExecutionException.class));
        assertThat(api.apiRequests()).as("nothing is sent").isEmpty();
    }

    static RegisteredTool tool(Toolgate gate) {
        return gate.registry().find(ADD).orElseThrow();
    }
}
