package dev.toolgate.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.toolgate.json.CanonicalJson;
import dev.toolgate.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ToolSchemaTest {

    enum Severity { LOW, HIGH, CRITICAL }

    record Link(String url, @Size(max = 40) Optional<String> label) {
    }

    record NewIncident(
            @JsonPropertyDescription("The catalog system id, not its name") String systemId,
            @Size(min = 3, max = 120) String title,
            Severity severity,
            @Range(min = 1, max = 5) int priority,
            @Size(max = 3) List<Link> links,
            Optional<String> note) {
    }

    record Incident(String id, String title) {
    }

    static RegisteredTool createIncident() {
        Tool<NewIncident, Incident> tool = Tool.builder("create", NewIncident.class)
                .title("Open an incident")
                .description("Open an incident on a catalog system.")
                .effect(Effect.MUTATE)
                .requires("incident.incident.manage", "catalog.system.read")
                .output(Incident.class)
                .execute((in, ctx) -> new Incident("INC-1", in.title()))
                .build();
        return ToolRegistry.create().register("incident", tool);
    }

    static JsonNode golden(String name) throws IOException {
        try (InputStream in = ToolSchemaTest.class.getResourceAsStream("/golden/" + name)) {
            return Json.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void theDescriptorMatchesTheGoldenJson() throws IOException {
        assertThat(CanonicalJson.canonicalize(createIncident().descriptor().toJson()))
                .isEqualTo(CanonicalJson.canonicalize(golden("incident.create.descriptor.json")));
    }

    @Test
    void theInputSchemaIsAClosedObjectWithRequiredFieldsMarked() {
        JsonNode schema = createIncident().descriptor().inputSchema();
        assertThat(schema.get("$schema").asString()).isEqualTo("https://json-schema.org/draft/2020-12/schema");
        assertThat(schema.get("type").asString()).isEqualTo("object");
        assertThat(schema.get("additionalProperties").asBoolean(true)).isFalse();
        assertThat(schema.get("required")).extracting(JsonNode::asString)
                .containsExactlyInAnyOrder("systemId", "title", "severity", "priority", "links");
    }

    @Test
    void theDescriptorCarriesNoExecutorAndIsACopy() {
        RegisteredTool tool = createIncident();
        ToolDescriptor descriptor = tool.descriptor();
        descriptor.inputSchema().put("tampered", true);
        assertThat(descriptor.inputSchema().has("tampered")).isFalse();
        assertThat(Json.write(descriptor.toJson())).doesNotContain("Lambda").doesNotContain("$$");
    }

    @Test
    void schemasAreGeneratedOncePerType() {
        ToolSchemas schemas = new ToolSchemas(Json.mapper());
        assertThat(schemas.schemaOf(NewIncident.class)).isSameAs(schemas.schemaOf(NewIncident.class));
    }

    @Test
    void theVerdictOnNoArgumentsIsTheSchemasEveryTimeAndNoInputBindsThemAsAFreshBindWould() throws Exception {
        RegisteredTool incident = createIncident();
        List<ValidationIssue> first = incident.validate(Json.object());
        assertThat(first).extracting(ValidationIssue::path)
                .containsExactlyInAnyOrder("/systemId", "/title", "/severity", "/priority", "/links");
        assertThat(incident.validate(Json.object())).isEqualTo(first);
        assertThat(incident.validate(Json.parse("{}"))).isEqualTo(first);
        // a non-empty object is judged afresh, not by the remembered verdict
        assertThat(incident.validate(Json.parse(VALID))).isEmpty();
        assertThat(incident.validate(Json.parse("{\"extra\":1}"))).extracting(ValidationIssue::path).contains("/extra");
        assertThat(createIncident().validate(Json.parse("{}"))).isEqualTo(first);

        Tool<NoInput, String> ping = Tool.builder("ping", NoInput.class).description("Answers pong").effect(Effect.READ)
                .execute((in, ctx) -> "pong").build();
        RegisteredTool none = ToolRegistry.create().register("bench", ping);
        assertThat(none.validate(Json.object())).isEmpty();
        assertThat(none.validate(Json.parse("{\"x\":1}"))).extracting(ValidationIssue::path).containsExactly("/x");
        ToolSchemas schemas = new ToolSchemas(Json.mapper());
        assertThat(schemas.bind(Json.object(), NoInput.class)).isEqualTo(Json.mapper().treeToValue(Json.object(), NoInput.class));
        assertThat(schemas.bind(null, NoInput.class)).isNull();
    }

    private static List<ValidationIssue> issues(String json) {
        return createIncident().validate(Json.parse(json));
    }

    private static final String VALID =
            "{\"systemId\":\"db\",\"title\":\"DB down\",\"severity\":\"HIGH\",\"priority\":2,\"links\":[]}";

    @Test
    void validArgumentsHaveNoIssues() {
        assertThat(issues(VALID)).isEmpty();
        assertThat(issues("{\"systemId\":\"db\",\"title\":\"DB down\",\"severity\":\"HIGH\",\"priority\":2,"
                + "\"links\":[{\"url\":\"https://x\",\"label\":null}],\"note\":\"n\"}")).isEmpty();
    }

    @Test
    void eachKindOfBadInputIsAnIssueAtItsPath() {
        assertThat(issues(VALID.replace("\"db\"", "7"))).singleElement()
                .satisfies(i -> assertThat(i.path()).isEqualTo("/systemId"))
                .satisfies(i -> assertThat(i.message()).contains("integer found, string expected"));
        assertThat(issues(VALID.replace("\"systemId\":\"db\",", ""))).singleElement()
                .satisfies(i -> assertThat(i.path()).isEqualTo("/systemId"))
                .satisfies(i -> assertThat(i.message()).contains("required"));
        assertThat(issues(VALID.replace("{", "{\"sneaky\":1,"))).singleElement()
                .satisfies(i -> assertThat(i.path()).isEqualTo("/sneaky"))
                .satisfies(i -> assertThat(i.message()).contains("not defined"));
        assertThat(issues(VALID.replace("\"priority\":2", "\"priority\":9"))).singleElement()
                .satisfies(i -> assertThat(i.path()).isEqualTo("/priority"))
                .satisfies(i -> assertThat(i.message()).contains("maximum"));
        assertThat(issues(VALID.replace("\"HIGH\"", "\"SEVERE\""))).singleElement()
                .satisfies(i -> assertThat(i.path()).isEqualTo("/severity"))
                .satisfies(i -> assertThat(i.message()).contains("enumeration"));
        assertThat(issues(VALID.replace("\"links\":[]", "\"links\":[{\"label\":\"x\"}]"))).singleElement()
                .satisfies(i -> assertThat(i.path()).isEqualTo("/links/0/url"));
        assertThat(issues("\"just a string\"")).singleElement()
                .satisfies(i -> assertThat(i.message()).isEqualTo("expected a JSON object of arguments, got string"));
    }

    @Test
    void allIssuesAreReportedAtOnce() {
        assertThat(issues("{\"systemId\":1,\"title\":\"x\",\"severity\":\"NO\",\"priority\":0,\"links\":[],\"bogus\":true}"))
                .extracting(ValidationIssue::path)
                .containsExactlyInAnyOrder("/systemId", "/title", "/severity", "/priority", "/bogus");
    }

    @Test
    void validatedJsonIsBoundToTheInputType() throws Exception {
        RegisteredTool tool = createIncident();
        JsonNode result = tool.execute(Json.parse(VALID), null);
        assertThat(result.get("title").asString()).isEqualTo("DB down");
    }

    @Test
    void aNonObjectInputTypeIsRejectedAtRegistration() {
        Tool<Integer, Integer> tool = Tool.builder("n", Integer.class).description("d").effect(Effect.READ)
                .execute((in, ctx) -> in).build();
        assertThatThrownBy(() -> ToolRegistry.create().register("p", tool)).isInstanceOf(ToolDefinitionException.class);
    }
}
