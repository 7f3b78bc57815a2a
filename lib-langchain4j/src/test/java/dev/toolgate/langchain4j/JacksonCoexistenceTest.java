package dev.toolgate.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.toolgate.json.Json;
import org.junit.jupiter.api.Test;

/** LangChain4j's Jackson 2 and Toolgate's Jackson 3 on one classpath. */
class JacksonCoexistenceTest {

    @Test
    void bothMajorVersionsLoadFromTheirOwnPackagesAndJars() {
        assertThat(com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.getMajorVersion()).isEqualTo(2);
        assertThat(tools.jackson.databind.cfg.PackageVersion.VERSION.getMajorVersion()).isEqualTo(3);
        var jackson2 = com.fasterxml.jackson.databind.ObjectMapper.class.getProtectionDomain().getCodeSource();
        var jackson3 = tools.jackson.databind.json.JsonMapper.class.getProtectionDomain().getCodeSource();
        assertThat(jackson2.getLocation()).isNotEqualTo(jackson3.getLocation());
        // the annotations both lines use are one jar, 2.x
        assertThat(com.fasterxml.jackson.annotation.JsonProperty.class.getProtectionDomain().getCodeSource()
                .getLocation().toString()).contains("jackson-annotations-2.");
    }

    @Test
    void aSpecificationWrittenByJackson2IsReadByJackson3() {
        ToolSpecification specification = ToolSpecification.builder().name("incident__create").description("Open")
                .parameters(JsonObjectSchema.builder().addStringProperty("title", "Short title").required("title").build())
                .build();
        var json = Json.parse(specification.toJson());
        assertThat(json.get("name").asString()).isEqualTo("incident__create");
        assertThat(json.get("parameters").get("properties").get("title").get("description").asString())
                .isEqualTo("Short title");
        assertThat(ToolSpecification.fromJson(Json.write(json))).isEqualTo(specification);
    }
}
