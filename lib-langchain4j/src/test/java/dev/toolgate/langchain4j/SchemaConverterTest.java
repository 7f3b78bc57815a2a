package dev.toolgate.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.model.chat.request.json.JsonAnyOfSchema;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonBooleanSchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonNullSchema;
import dev.langchain4j.model.chat.request.json.JsonNumberSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonReferenceSchema;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import dev.toolgate.json.Json;
import org.junit.jupiter.api.Test;

class SchemaConverterTest {

    private static JsonObjectSchema convert(String schema) {
        return SchemaConverter.convert(Json.parse(schema)).schema();
    }

    @Test
    void typesPropertiesRequiredAndDescriptionsAreKept() {
        JsonObjectSchema schema = convert("""
                {"type":"object","additionalProperties":false,"required":["title","count"],
                 "properties":{
                   "title":{"type":"string","description":"Short title"},
                   "count":{"type":"integer"},
                   "ratio":{"type":"number"},
                   "open":{"type":"boolean"},
                   "tags":{"type":"array","items":{"type":"string"}},
                   "owner":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}}""");
        assertThat(schema.required()).containsExactly("title", "count");
        assertThat(schema.additionalProperties()).isFalse();
        assertThat(schema.properties().get("title")).isInstanceOf(JsonStringSchema.class);
        assertThat(((JsonStringSchema) schema.properties().get("title")).description()).isEqualTo("Short title");
        assertThat(schema.properties().get("count")).isInstanceOf(JsonIntegerSchema.class);
        assertThat(schema.properties().get("ratio")).isInstanceOf(JsonNumberSchema.class);
        assertThat(schema.properties().get("open")).isInstanceOf(JsonBooleanSchema.class);
        JsonArraySchema tags = (JsonArraySchema) schema.properties().get("tags");
        assertThat(tags.items()).isInstanceOf(JsonStringSchema.class);
        JsonObjectSchema owner = (JsonObjectSchema) schema.properties().get("owner");
        assertThat(owner.required()).containsExactly("id");
        assertThat(owner.properties()).containsOnlyKeys("id");
    }

    @Test
    void constraintsLangChain4jCannotCarryAreWrittenIntoTheDescription() {
        JsonObjectSchema schema = convert("""
                {"type":"object","properties":{
                  "title":{"type":"string","description":"Title","minLength":3,"maxLength":80,"pattern":"^[A-Z]"},
                  "count":{"type":"integer","minimum":1,"maximum":10},
                  "level":{"enum":[1,2,3]}}}""");
        String title = ((JsonStringSchema) schema.properties().get("title")).description();
        assertThat(title).startsWith("Title Constraints: ").contains("\"maxLength\":80").contains("\"minLength\":3")
                .contains("\"pattern\":\"^[A-Z]\"");
        assertThat(((JsonIntegerSchema) schema.properties().get("count")).description())
                .isEqualTo("Constraints: {\"maximum\":10,\"minimum\":1}");
        assertThat(((JsonAnyOfSchema) schema.properties().get("level")).description()).contains("\"enum\":[1,2,3]");
    }

    @Test
    void stringEnumsNullableTypesAnyOfAndReferences() {
        JsonObjectSchema schema = convert("""
                {"type":"object","$defs":{"Person":{"type":"object","properties":{"name":{"type":"string"}}}},
                 "properties":{
                   "severity":{"type":"string","enum":["low","high"]},
                   "note":{"type":["string","null"]},
                   "either":{"anyOf":[{"type":"string"},{"type":"integer"}]},
                   "person":{"$ref":"#/$defs/Person"}}}""");
        assertThat(((JsonEnumSchema) schema.properties().get("severity")).enumValues()).containsExactly("low", "high");
        JsonAnyOfSchema note = (JsonAnyOfSchema) schema.properties().get("note");
        assertThat(note.anyOf()).hasExactlyElementsOfTypes(JsonStringSchema.class, JsonNullSchema.class);
        assertThat(((JsonAnyOfSchema) schema.properties().get("either")).anyOf())
                .hasExactlyElementsOfTypes(JsonStringSchema.class, JsonIntegerSchema.class);
        assertThat(((JsonReferenceSchema) schema.properties().get("person")).reference()).isEqualTo("Person");
        assertThat(schema.definitions()).containsOnlyKeys("Person");
        var json = Json.parse(dev.langchain4j.agent.tool.ToolSpecification.builder().name("t").parameters(schema).build()
                .toJson()).get("parameters");
        assertThat(json.get("properties").get("person").get("$ref").asString()).isEqualTo("#/$defs/Person");
        assertThat(json.get("$defs").get("Person").get("properties").has("name")).isTrue();
    }

    @Test
    void theGateSchemaOfARecordSurvivesTheRoundTripThroughLangChain4jJson() {
        JsonObjectSchema schema = convert("""
                {"type":"object","properties":{"title":{"type":"string"},"severity":{"type":"string"}},
                 "required":["title","severity"]}""");
        String json = dev.langchain4j.agent.tool.ToolSpecification.builder().name("t").parameters(schema).build().toJson();
        assertThat(Json.parse(json).get("parameters").get("required").toString()).isEqualTo("[\"title\",\"severity\"]");
    }

    @Test
    void rootNotesCarryRootConstraintsAndANonObjectRootIsRefused() {
        assertThat(SchemaConverter.convert(Json.parse("{\"type\":\"object\",\"minProperties\":1}")).rootNotes())
                .isEqualTo("Constraints: {\"minProperties\":1}");
        assertThatThrownBy(() -> SchemaConverter.convert(Json.parse("[1]")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("JSON object");
    }
}
