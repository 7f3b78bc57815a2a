package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Defining catalog entries: bad definitions fail at once with a message naming what and where. */
class McpCatalogDefinitionTest {

    private static final McpResource.Reader NOTHING = r -> List.of();

    @Test
    void templatesAreLevelOneAndUnambiguous() {
        assertThat(UriTemplate.parse("test://template/{id}/data").variables()).containsExactly("id");
        assertThat(UriTemplate.parse("a://{x}/b/{y}").match("a://1/b/2")).isEqualTo(Map.of("x", "1", "y", "2"));
        assertThatThrownBy(() -> UriTemplate.parse("a://{+path}")).hasMessageContaining("{+path} is not supported");
        assertThatThrownBy(() -> UriTemplate.parse("a://{/seg}")).hasMessageContaining("{/seg} is not supported");
        assertThatThrownBy(() -> UriTemplate.parse("a://{?q}")).hasMessageContaining("is not supported");
        assertThatThrownBy(() -> UriTemplate.parse("a://{x}{y}")).hasMessageContaining("are adjacent");
        assertThatThrownBy(() -> UriTemplate.parse("a://{x}/{x}")).hasMessageContaining("{x} appears twice");
        assertThatThrownBy(() -> UriTemplate.parse("a://{x")).hasMessageContaining("unbalanced");
        assertThatThrownBy(() -> UriTemplate.parse("a://x}")).hasMessageContaining("unbalanced");
        assertThatThrownBy(() -> UriTemplate.parse("a://fixed")).hasMessageContaining("has no {variable}");
        assertThatThrownBy(() -> UriTemplate.parse("no-scheme/{x}")).hasMessageContaining("absolute URI");
        assertThatThrownBy(() -> UriTemplate.parse("a://{}")).hasMessageContaining("{} is not supported");
        assertThatThrownBy(() -> UriTemplate.parse("a://{" + "v".repeat(65) + "}")).hasMessageContaining("is not supported");
    }

    @Test
    void decodingIsStrict() {
        assertThat(UriTemplate.decode("a%20b")).isEqualTo("a b");
        assertThat(UriTemplate.decode("%E6%97%A5")).isEqualTo("日");
        assertThat(UriTemplate.decode("%")).isNull();
        assertThat(UriTemplate.decode("%G0")).isNull();
        assertThat(UriTemplate.decode("%FF")).isNull();
        assertThat(UriTemplate.decode("%C0%AF")).as("overlong /").isNull();
        assertThat(UriTemplate.decode("%ED%A0%80")).as("surrogate").isNull();
        assertThat(UriTemplate.decode("x%2Fy")).isEqualTo("x/y");
    }

    @Test
    void resourcesPromptsAndCatalogsRejectBadDefinitions() {
        assertThatThrownBy(() -> McpResource.builder("", "n")).hasMessage("uri must not be blank");
        assertThatThrownBy(() -> McpResource.builder("relative/path", "n")).hasMessageContaining("absolute URI");
        assertThatThrownBy(() -> McpResource.builder("test://x", " ")).hasMessage("name must not be blank");
        assertThatThrownBy(() -> McpResource.builder("test://x", "n").build()).hasMessageContaining("needs a reader");
        assertThatThrownBy(() -> McpResource.builder("test://x", "n").requires("")).hasMessageContaining("access rule");
        assertThatThrownBy(() -> McpResource.builder("test://" + "x".repeat(4100), "n")).hasMessageContaining("longer than 4096");
        assertThatThrownBy(() -> McpPrompt.builder("has space")).hasMessageContaining("prompt name");
        assertThatThrownBy(() -> McpPrompt.builder("p").argument("a", null, true).argument("a", null, false))
                .hasMessageContaining("argument a is declared twice");
        assertThatThrownBy(() -> McpPrompt.builder("p").complete("a", r -> List.of())).hasMessageContaining("has no argument a");
        assertThatThrownBy(() -> McpResourceTemplate.builder("a://{x}", "t").complete("y", r -> List.of()))
                .hasMessageContaining("has no variable {y}");
        assertThatThrownBy(() -> McpPromptMessage.image(McpPromptMessage.Role.USER, new byte[1], " ")).hasMessageContaining("mimeType");

        McpCatalog catalog = McpCatalog.create().add(McpResource.builder("test://x", "x").reader(NOTHING).build());
        assertThatThrownBy(() -> catalog.add(McpResource.builder("test://x", "y").reader(NOTHING).build()))
                .hasMessage("a resource with uri test://x is already registered");
        catalog.add(McpPrompt.builder("p").renderer(r -> List.of()).build());
        assertThatThrownBy(() -> catalog.add(McpPrompt.builder("p").renderer(r -> List.of()).build()))
                .hasMessage("a prompt named p is already registered");
        assertThatThrownBy(() -> catalog.maxSubscriptionsPerSession(0)).hasMessageContaining("at least 1");
        assertThat(catalog.removeResource("test://x")).isTrue();
        assertThat(catalog.removeResource("test://x")).isFalse();
        assertThat(catalog.resources()).isEmpty();
    }

    @Test
    void contentsCopyTheirBytes() {
        byte[] data = {1, 2, 3};
        McpContents contents = McpContents.blob("test://b", "application/octet-stream", data);
        data[0] = 9;
        assertThat(contents.blob()).containsExactly(1, 2, 3);
        assertThat(contents.isText()).isFalse();
        assertThat(McpContents.text("test://t", null, "t").isText()).isTrue();
    }
}
