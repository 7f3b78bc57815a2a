package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolDescriptor;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.tool.ToolRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Declarations of real tools (their schemas as the core generates them), each schema construct, the
 * naming the sandbox uses, hostile text that must not break out of a comment or a literal, and the
 * size cap. {@link TscTest} proves the same declarations type-check.
 */
class DeclarationsTest {

    enum Severity { LOW, HIGH }

    record NewIncident(@JsonPropertyDescription("The catalog system id") String systemId, String title, Severity severity,
                       Optional<List<String>> tags) {
    }

    record Incident(String id, String title, Severity severity, Map<String, Integer> counts) {
    }

    record Hostile(@JsonProperty("we\"ird*/name") String weird, @JsonProperty("__proto__") Optional<String> proto,
                   @JsonProperty("line\u2028break") Optional<Integer> separator) {
    }

    static List<ToolDescriptor> tools(ToolProvider... providers) {
        ToolRegistry registry = ToolRegistry.create();
        for (ToolProvider provider : providers) {
            registry.register(provider);
        }
        return registry.tools().stream().map(RegisteredTool::descriptor).toList();
    }

    static ToolProvider incidents() {
        return ToolProvider.of("incident",
                Tool.builder("create", NewIncident.class).title("Open an incident")
                        .description("Open an incident on a catalog system.").effect(Effect.MUTATE)
                        .output(Incident.class).execute((in, ctx) -> new Incident("INC-1", in.title(), in.severity(), Map.of()))
                        .build(),
                Tool.builder("list", NoInput.class).description("List incidents.").effect(Effect.READ)
                        .execute((in, ctx) -> List.of()).build(),
                Tool.builder("delete.hard", NoInput.class).description("Delete for good.").effect(Effect.DESTRUCTIVE)
                        .execute((in, ctx) -> "gone").build());
    }

    static ToolProvider hostile() {
        return ToolProvider.of("my-plugin",
                Tool.builder("odd", Hostile.class)
                        .description("Ends a comment */ then </script> and a line\nbreak, a \u2028 separator, \"quotes\" and \\.")
                        .effect(Effect.READ).execute((in, ctx) -> "x").build());
    }

    @Test
    void aRealToolIsAMethodTakingItsInputAndReturningItsOutputWithItsDocs() {
        String ts = Declarations.of(tools(incidents()));
        assertThat(ts).contains("""
                  incident: {
                    /**
                     * Open an incident
                     * Open an incident on a catalog system.
                     * effect: mutate (a change: may pause for approval)
                     */
                    create(input: {
                      severity: "LOW" | "HIGH";
                      /** The catalog system id */
                      systemId: string;
                      tags?: string[] | null;
                      title: string;
                    }): {
                      counts: { [key: string]: number };
                      id: string;
                      severity: "LOW" | "HIGH";
                      title: string;
                    };
                """);
        assertThat(ts).contains("""
                    /**
                     * Delete for good.
                     * effect: destructive (always waits for a person's approval)
                     */
                    "delete.hard"(input: {}): unknown;
                """);
        assertThat(ts).contains("declare const tools: {").contains("declare class DeniedError extends Error");
        assertThat(Declarations.of(tools(incidents()))).as("deterministic").isEqualTo(ts);
    }

    @Test
    void namesFollowTheSandboxNonIdentifiersAreQuotedAndToolsAreSorted() {
        String ts = Declarations.of(tools(hostile(), incidents()));
        assertThat(ts.indexOf("  incident: {")).isLessThan(ts.indexOf("  \"my-plugin\": {"));
        assertThat(ts).contains("    \"delete.hard\"(input: {}): unknown;");
        assertThat(ts).contains("\"we\\\"ird*/name\": string;").contains("__proto__?: string | null;")
                .contains("\"line\\u2028break\"?: number | null;");
    }

    @Test
    void hostileDescriptionsCannotLeaveTheirComment() {
        String ts = Declarations.of(tools(hostile()));
        String doc = ts.substring(ts.indexOf("  \"my-plugin\": {"));
        assertThat(doc).contains("Ends a comment *\\/ then </script> and a line\n     * break, a \n     *  separator");
        assertThat(ts).doesNotContain("\u2028");
        int comments = 0;
        for (int i = ts.indexOf("/**"); i >= 0; i = ts.indexOf("/**", i + 1)) {
            int end = ts.indexOf("*/", i);
            assertThat(ts.substring(i + 3, end)).doesNotContain("/**");
            comments++;
        }
        assertThat(comments).isPositive();
    }

    @Test
    void eachSchemaConstructHasItsType() {
        assertThat(type("{\"type\":\"string\"}")).isEqualTo("string");
        assertThat(type("{\"type\":\"integer\"}")).isEqualTo("number");
        assertThat(type("{\"type\":[\"string\",\"null\"]}")).isEqualTo("string | null");
        assertThat(type("{\"enum\":[\"a\",1,true,null]}")).isEqualTo("\"a\" | 1 | true | null");
        assertThat(type("{\"const\":\"x\\\"y\"}")).isEqualTo("\"x\\\"y\"");
        assertThat(type("{\"type\":\"array\",\"items\":{\"type\":[\"string\",\"number\"]}}")).isEqualTo("(string | number)[]");
        assertThat(type("{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"number\"}],\"items\":false}"))
                .isEqualTo("[string, number]");
        assertThat(type("{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"boolean\"}]}")).isEqualTo("string | boolean");
        assertThat(type("{\"allOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\"]},"
                + "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"number\"}}]}"))
                .isEqualTo("{\n  a: string;\n} & { [key: string]: number }");
        assertThat(type("{\"type\":\"object\"}")).isEqualTo("{ [key: string]: unknown }");
        assertThat(type("{}")).isEqualTo("unknown");
        assertThat(type("true")).isEqualTo("unknown");
        assertThat(type("false")).isEqualTo("never");
        assertThat(type("{\"type\":\"frobnicate\"}")).isEqualTo("unknown");
    }

    @Test
    void definitionsAreNamedOnceRecursiveOnesWorkAndMissingOnesAreUnknown() {
        TypeRenderer.Names names = new TypeRenderer.Names();
        JsonNode schema = Json.parse("""
                {"type":"object","properties":{"root":{"$ref":"#/$defs/Node"},"other":{"$ref":"#/$defs/Node"},
                 "gone":{"$ref":"#/$defs/Missing"},"far":{"$ref":"http://example.com/x"},"date":{"$ref":"#/definitions/Date"}},
                 "$defs":{"Node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}},
                 "definitions":{"Date":{"type":"string"}}}
                """);
        String type = new TypeRenderer(schema, "t#in", names).render(schema, "");
        assertThat(type).as("Node is a library type's name: the definition's is NodeType")
                .contains("root?: NodeType;").contains("other?: NodeType;").contains("gone?: unknown;")
                .contains("far?: unknown;").contains("date?: DateType;");
        assertThat(names.declarations()).containsExactly("type NodeType = {\n  children?: NodeType[];\n};", "type DateType = string;");
    }

    @Test
    void nestingBeyondTheDepthLimitIsUnknownAndNeverOverflowsTheStack() {
        ObjectNode deep = Json.object();
        ObjectNode current = deep;
        for (int i = 0; i < 10_000; i++) {
            ObjectNode next = Json.object();
            current.put("type", "array").set("items", next);
            current = next;
        }
        String type = new TypeRenderer(deep, "deep", new TypeRenderer.Names()).render(deep, "");
        assertThat(type).isEqualTo("unknown" + "[]".repeat(TypeRenderer.MAX_DEPTH + 1));

        ObjectNode chain = Json.object().put("$ref", "#/$defs/D0");
        ObjectNode defs = chain.putObject("$defs");
        for (int i = 0; i < 10_000; i++) {
            defs.putObject("D" + i).put("type", "array").putObject("items").put("$ref", "#/$defs/D" + (i + 1));
        }
        TypeRenderer.Names names = new TypeRenderer.Names();
        assertThat(new TypeRenderer(chain, "chain", names).render(chain, "")).isEqualTo("D0");
        assertThat(names.declarations()).hasSizeLessThanOrEqualTo(TypeRenderer.MAX_DEPTH + 1);
    }

    @Test
    void aHugeEnumIsItsBaseType() {
        ObjectNode schema = Json.object().put("type", "string");
        for (int i = 0; i < TypeRenderer.MAX_ENUM + 1; i++) {
            schema.withArray("enum").add("v" + i);
        }
        assertThat(new TypeRenderer(schema, "e", new TypeRenderer.Names()).render(schema, "")).isEqualTo("string");
    }

    @Test
    void theOutputIsCappedAndNamesWhatIsLeftOut() {
        List<Tool<?, ?>> many = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            many.add(Tool.builder(String.format("tool%03d", i), NewIncident.class).description("Tool number " + i + ". " + "x".repeat(100))
                    .effect(Effect.READ).output(Incident.class).execute((in, ctx) -> "x").build());
        }
        List<ToolDescriptor> tools = tools(ToolProvider.of("big", many.toArray(Tool<?, ?>[]::new)));
        String ts = Declarations.of(tools, 16 * 1024);
        assertThat(ts.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(16 * 1024);
        assertThat(ts).contains("tool000(input").contains("more tool(s) did not fit").containsPattern("big\\.tool\\d+, big")
                .containsPattern(" and \\d+ more\n").doesNotContain("tool299(input").contains("codemode.describe with {\"plugins\"");
        assertThat(ts).endsWith("\n").contains("\n};\n");
        assertThatThrownBy(() -> Declarations.of(tools, 100)).isInstanceOf(IllegalArgumentException.class);
        assertThat(Declarations.of(tools).getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(Declarations.DEFAULT_MAX_BYTES);
    }

    private static String type(String schema) {
        JsonNode node = Json.parse(schema);
        return new TypeRenderer(node, "t", new TypeRenderer.Names()).render(node, "");
    }
}
