package dev.toolgate.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.ToolValidationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The parts of the source seam an HTTP API source needs: a source describes a mutation for the
 * proposal (and can refuse arguments there, before anything is stored or sent), reports what it left
 * out while listing, and states a contract that drift review fingerprints with the schema.
 */
class SourceSeamTest {

    private static final Principal CAROL = Principal.user("carol", "*");
    private static final Principal OLGA = Principal.user("olga", "toolgate.approvals.manage", "*");
    private static final ObjectNode ID_SCHEMA = (ObjectNode) Json.parse("{\"type\":\"object\",\"properties\":{\"id\":"
            + "{\"type\":\"string\"}},\"required\":[\"id\"]}");

    private final List<Toolgate> gates = new ArrayList<>();

    @AfterEach
    void close() {
        gates.forEach(Toolgate::close);
    }

    /** A source of one DELETE-like tool whose contract (the path) the test can change. */
    static final class HttpLike implements ToolSource {
        volatile String path = "/pets/{id}";
        volatile String description = "Delete a pet.";
        final List<String> sent = new CopyOnWriteArrayList<>();

        @Override
        public String id() {
            return "api:pets";
        }

        @Override
        public List<SourceTool> listTools(SourceContext context) {
            context.skip("upload", "its body is multipart/form-data; only JSON bodies are sent");
            return List.of(SourceTool.of("remove", description, Effect.MUTATE, ID_SCHEMA).withContract("DELETE " + path));
        }

        @Override
        public String describeCall(String tool, JsonNode arguments) {
            String id = arguments.path("id").asString();
            if (id.contains("/")) {
                throw new ToolValidationException("/id", "a path value must not contain a slash");
            }
            return "DELETE https://api.example" + path.replace("{id}", id);
        }

        @Override
        public JsonNode callTool(String tool, JsonNode arguments, SourceContext context) {
            sent.add(describeCall(tool, arguments));
            return Json.object().put("status", 204);
        }
    }

    private Toolgate gate(ToolSource source) {
        Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .policyCacheTtl(Duration.ZERO).source(source).build();
        gates.add(gate);
        return gate;
    }

    private static CallContext ctx(Principal principal) {
        return CallContext.of(principal).withSession("s-1").withTenant("acme");
    }

    @Test
    void theProposalShowsWhatTheSourceSaysTheCallDoes() {
        HttpLike api = new HttpLike();
        Toolgate gate = gate(api);
        Proposal proposal = (Proposal) gate.call(ctx(CAROL), "api:pets.remove", "{\"id\":\"7\"}");
        assertThat(proposal.summary()).startsWith("DELETE https://api.example/pets/7").contains("nothing runs before consent");
        assertThat(api.sent).isEmpty();
        Applied applied = gate.apply(ctx(CAROL), proposal.token());
        assertThat(applied.result().path("status").asInt()).isEqualTo(204);
        assertThat(api.sent).containsExactly("DELETE https://api.example/pets/7");
    }

    @Test
    void argumentsTheSourceRefusesWhileDescribingAreFeedbackAndNothingIsProposed() {
        HttpLike api = new HttpLike();
        Toolgate gate = gate(api);
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "api:pets.remove", "{\"id\":\"../admin\"}"))
                .isInstanceOf(ToolValidationException.class).hasMessageContaining("must not contain a slash");
        assertThat(gate.pending(ctx(CAROL), "s-1")).isEmpty();
        assertThat(api.sent).isEmpty();
    }

    @Test
    void whatASourceLeavesOutWhileListingShowsInItsStatus() {
        Toolgate gate = gate(new HttpLike());
        assertThat(gate.listSources().get(0).skipped())
                .containsExactly("upload: its body is multipart/form-data; only JSON bodies are sent");
    }

    @Test
    void aChangedContractIsDriftButAChangedDescriptionIsNot() {
        HttpLike api = new HttpLike();
        Toolgate gate = gate(api);
        gate.setMode(ctx(OLGA), OverrideScope.TENANT, "api:pets.remove", Mode.ALLOW);
        assertThat(gate.call(ctx(CAROL), "api:pets.remove", "{\"id\":\"1\"}")).isInstanceOf(Applied.class);

        api.description = "Delete a pet, for good.";
        gate.refreshSources();
        assertThat(gate.call(ctx(CAROL), "api:pets.remove", "{\"id\":\"2\"}")).as("wording is no drift")
                .isInstanceOf(Applied.class);

        String before = gate.registry().find("api:pets.remove").orElseThrow().schemaFingerprint();
        api.path = "/owners/{id}";
        gate.refreshSources();
        assertThat(gate.registry().find("api:pets.remove").orElseThrow().schemaFingerprint()).isNotEqualTo(before);
        CallResult drifted = gate.call(ctx(CAROL), "api:pets.remove", "{\"id\":\"3\"}");
        assertThat(drifted).as("same schema, another path: waits for a person").isInstanceOf(Proposal.class);
        assertThat(((Proposal) drifted).summary()).contains("/owners/3");
        assertThat(api.sent).hasSize(2);

        gate.confirmSchema(ctx(OLGA), "api:pets.remove");
        assertThat(gate.call(ctx(CAROL), "api:pets.remove", "{\"id\":\"4\"}")).isInstanceOf(Applied.class);
    }

    @Test
    void aProposalWhoseCallMovedSinceItWasMadeIsStaleAndSendsNothing() {
        HttpLike api = new HttpLike();
        Toolgate gate = gate(api);
        Proposal proposal = (Proposal) gate.call(ctx(CAROL), "api:pets.remove", "{\"id\":\"7\"}");
        assertThat(proposal.summary()).contains("/pets/7");

        api.path = "/owners/{id}";
        gate.refreshSources();
        assertThatThrownBy(() -> gate.apply(ctx(CAROL), proposal.token()))
                .isInstanceOf(dev.toolgate.call.StaleProposalException.class)
                .hasMessageContaining("/pets/7").hasMessageContaining("/owners/7");
        assertThat(api.sent).as("the approved call is not sent to the new path").isEmpty();

        Proposal again = (Proposal) gate.call(ctx(CAROL), "api:pets.remove", "{\"id\":\"7\"}");
        api.description = "Delete a pet, for good.";
        gate.refreshSources();
        assertThat(gate.apply(ctx(CAROL), again.token()).result().path("status").asInt())
                .as("a proposal whose call is unchanged still applies").isEqualTo(204);
        assertThat(api.sent).containsExactly("DELETE https://api.example/owners/7");
    }

    @Test
    void aToolWithoutAContractKeepsTheFingerprintOfItsSchemaAlone() {
        dev.toolgate.tool.Tool<?, ?> plain = dev.toolgate.tool.Tool.builder("t", ID_SCHEMA).description("d")
                .effect(Effect.READ).execute((input, context) -> input).build();
        dev.toolgate.tool.Tool<?, ?> withContract = dev.toolgate.tool.Tool.builder("t", ID_SCHEMA).description("d")
                .effect(Effect.READ).contract("GET /x").execute((input, context) -> input).build();
        var registry = dev.toolgate.tool.ToolRegistry.create();
        String a = registry.register("p", plain).schemaFingerprint();
        var other = dev.toolgate.tool.ToolRegistry.create();
        String b = other.register("p", withContract).schemaFingerprint();
        assertThat(a).isEqualTo(dev.toolgate.json.CanonicalJson.sha256Hex(
                dev.toolgate.json.Json.parse("{\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":[\"id\"],"
                        + "\"type\":\"object\"}")));
        assertThat(b).isNotEqualTo(a);
        assertThat(withContract.contract()).contains("GET /x");
    }
}
