package dev.toolgate.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.toolgate.json.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Building content items and results: every field checked where it is built, and the audit's JSON view. */
class ContentTest {

    private static final String PNG = Base64.getEncoder().encodeToString(new byte[] {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3});

    record Case(String name, String path, Supplier<Object> build) {
    }

    @Test
    void hostileItemsFailWithATypedErrorNamingTheField() {
        String huge = "A".repeat(Content.MAX_CHARS + 4);
        List<Case> corpus = List.of(
                new Case("null text", "/text", () -> Content.text(null)),
                new Case("huge text", "/text", () -> Content.text("x".repeat(Content.MAX_CHARS + 1))),
                new Case("null data", "/data", () -> Content.image((String) null, "image/png")),
                new Case("empty data", "/data", () -> Content.image("", "image/png")),
                new Case("not base64", "/data", () -> Content.image("not base64!", "image/png")),
                new Case("base64 with a line break", "/data", () -> Content.image(PNG.substring(0, 4) + "\n" + PNG.substring(4), "image/png")),
                new Case("url-safe alphabet", "/data", () -> Content.audio("__--", "audio/wav")),
                new Case("broken padding", "/data", () -> Content.image("QUJD=A==", "image/png")),
                new Case("huge base64", "/data", () -> Content.image(huge, "image/png")),
                new Case("huge bytes", "/data", () -> Content.image(new byte[Content.MAX_CHARS], "image/png")),
                new Case("null mime", "/mimeType", () -> Content.image(PNG, null)),
                new Case("empty mime", "/mimeType", () -> Content.image(PNG, "")),
                new Case("blank mime", "/mimeType", () -> Content.audio(PNG, "  ")),
                new Case("mime without subtype", "/mimeType", () -> Content.image(PNG, "image")),
                new Case("mime with a newline", "/mimeType", () -> Content.image(PNG, "image/png\r\nX-Evil: 1")),
                new Case("mime too long", "/mimeType", () -> Content.image(PNG, "image/" + "p".repeat(300))),
                new Case("null uri", "/resource/uri", () -> Content.resource(null, "text/plain", "x")),
                new Case("relative uri", "/resource/uri", () -> Content.resource("report.txt", "text/plain", "x")),
                new Case("bad uri", "/resource/uri", () -> Content.resource("test://a b", "text/plain", "x")),
                new Case("huge uri", "/resource/uri", () -> Content.resource("test://" + "a".repeat(3000), "text/plain", "x")),
                new Case("neither text nor blob", "/resource", () -> new Content.EmbeddedResource("test://r", "text/plain", null, null)),
                new Case("both text and blob", "/resource", () -> new Content.EmbeddedResource("test://r", "text/plain", "x", PNG)),
                new Case("bad blob", "/resource/blob", () -> new Content.EmbeddedResource("test://r", "image/png", null, "%%%")),
                new Case("link without name", "/name", () -> Content.link("test://r", " ")),
                new Case("link name with control", "/name", () -> Content.link("test://r", "a\u0000b")),
                new Case("negative size", "/size", () -> new Content.ResourceLink("test://r", "r", null, null, null, -1L)),
                new Case("null list", "/content", () -> ContentResult.of((List<Content>) null)),
                new Case("no items", "/content", () -> ContentResult.of()),
                new Case("null item", "/content/1", () -> ContentResult.of(Arrays.asList(Content.text("a"), null))),
                new Case("too many items", "/content", () -> ContentResult.of(
                        java.util.Collections.nCopies(ContentResult.MAX_ITEMS + 1, Content.text("a")))),
                new Case("too much in all", "/content/1", () -> ContentResult.of(Content.text("x".repeat(Content.MAX_CHARS)),
                        Content.text("y"))),
                new Case("structured not an object", "/structuredContent", () -> ContentResult.structured(List.of(1, 2))),
                new Case("structured a string", "/structuredContent", () -> ContentResult.of(Content.text("a")).withStructured("s")));
        for (Case c : corpus) {
            InvalidContentException e = catchThrowableOfType(InvalidContentException.class, c.build()::get);
            assertThat(e).as(c.name()).isNotNull();
            assertThat(e.path()).as(c.name()).isEqualTo(c.path());
            assertThat(e.getMessage()).as(c.name()).startsWith(c.path() + ": ").doesNotContain("\n").hasSizeLessThan(400);
            assertThat(e).as(c.name()).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void goodItemsBuildAndKeepTheirValues() {
        ContentResult result = ContentResult.of(Content.text(""), Content.image(PNG, "image/png"),
                        Content.audio(PNG, "audio/wav; codecs=1"), Content.blobResource("test://b", "application/octet-stream",
                                new byte[] {1, 2}), Content.link("https://example.com/r?x=1", "r"))
                .withStructured(Map.of("n", 1));
        assertThat(result.content()).hasSize(5);
        assertThat(((Content.Image) result.content().get(1)).data()).isEqualTo(PNG);
        assertThat(result.structured().path("n").asInt()).isEqualTo(1);
        assertThatThrownBy(() -> result.content().add(Content.text("x"))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void theJsonViewDescribesBinaryDataInsteadOfCopyingIt() {
        byte[] bytes = new byte[100_000];
        new java.util.Random(1).nextBytes(bytes);
        String base64 = Base64.getEncoder().encodeToString(bytes);
        ContentResult result = ContentResult.of(Content.text("caption"), Content.image(bytes, "image/png"),
                Content.resource("test://t", "text/plain", "body"), Content.blobResource("test://b", "image/png", bytes))
                .withStructured(Map.of("ok", true));
        JsonNode view = result.toJson();
        String written = Json.write(view);
        assertThat(written).doesNotContain(base64.substring(0, 64)).hasSizeLessThan(1000);
        assertThat(view.path("content").get(0).path("text").asString()).isEqualTo("caption");
        assertThat(view.path("content").get(1).path("bytes").asInt()).isEqualTo(100_000);
        assertThat(view.path("content").get(1).path("sha256").asString())
                .isEqualTo(dev.toolgate.json.CanonicalJson.sha256Hex(bytes));
        assertThat(view.path("content").get(2).path("text").asString()).isEqualTo("body");
        assertThat(view.path("content").get(3).path("uri").asString()).isEqualTo("test://b");
        assertThat(view.path("content").get(3).has("blob")).isFalse();
        assertThat(view.path("structuredContent").path("ok").asBoolean()).isTrue();
    }

    @Test
    void structuredResultsCarryTheirJsonAsTextToo() {
        ContentResult result = ContentResult.structured(Map.of("a", 1));
        assertThat(((Content.Text) result.content().get(0)).text()).isEqualTo("{\"a\":1}");
        assertThat(result.structured().path("a").asInt()).isEqualTo(1);
        List<Content> items = new ArrayList<>(List.of(Content.text("x")));
        ContentResult copy = ContentResult.of(items);
        items.add(Content.text("y"));
        assertThat(copy.content()).hasSize(1);
    }
}
