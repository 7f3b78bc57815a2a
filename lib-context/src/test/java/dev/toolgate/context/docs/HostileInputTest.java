package dev.toolgate.context.docs;

import static dev.toolgate.context.docs.DocsGate.args;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.toolgate.tool.ToolValidationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** Hostile queries, slugs and pages all end with a typed result, quickly. */
class HostileInputTest {

    static DocsGate docs;

    @BeforeAll
    static void open() {
        docs = new DocsGate(DocsIndex.fromClasspath("toolgate-docs"));
    }

    @AfterAll
    static void close() {
        docs.close();
    }

    @Test
    void hostileQueriesEndWithATypedResult() {
        List<String> queries = List.of(
                "\u0000\u0001\u0002 durable\u0000run \u007f\u001b[31m",
                "\uFFFE\uFFFF\uFEFF binary \u0000\u0000\u0000",
                "durable ".repeat(50).strip(),
                "x".repeat(400),
                "😀".repeat(200),
                "(.*)+[a-z]{1,}\\ $^|?*+ (a|aa)+$ \\Q\\E \\",
                "%s%n%x ${jndi:ldap://x} <script>alert(1)</script> '; DROP TABLE docs; --",
                "the of and to a in is it that",
                "   ",
                "🏳️‍🌈 ̸̢̧̛̖̗̘̙̜̝̞̟̠̤̥̦̩̪̫̬̭̮̯̰̱̲̳̹̺̻̼͇͈͉͍͎̀́̂̃̄̅̆̇̈̉̊̋̌̍̎̏̐̑̒̓̔̽̾̿̀́͂̓̈́͆͊͋͌̕̚ͅ͏͓͔͕͖͙͚͐͑͒͗͛ͣͤͥͦͧͨͩͪͫͬͭͮͯ͘͜͟͢͝͞͠͡");
        for (String query : queries) {
            JsonNode result = assertTimeoutPreemptively(Duration.ofSeconds(5),
                    () -> docs.result(DocsTools.SEARCH_DOCS, args("query", query, "limit", 10)));
            assertThat(result.get("quality").asString()).as(query).isIn("empty", "weak", "strong");
            assertThat(result.get("note").asString()).isNotBlank();
            result.get("hits").forEach(hit -> DocsIndexTest.assertNoLoneSurrogate(hit.get("snippet").asString()));
        }
        // a lone surrogate, as JSON escapes
        JsonNode lone = docs.result(DocsTools.SEARCH_DOCS, "{\"query\":\"\\ud800 sandbox \\udc00\"}");
        assertThat(lone.get("hits")).isNotEmpty();
    }

    @Test
    void hostileSlugsAndSectionsAreFeedbackNeverAFileOrAnotherPage() {
        for (String slug : List.of("../../../../etc/passwd", "/etc/passwd", "README\u0000", "\u0000", "README/../lib-jdbc",
                "%2e%2e%2fREADME", "readme", " README", "README.md", "file:///etc/passwd", "x".repeat(300))) {
            ToolValidationException e = catchThrowableOfType(ToolValidationException.class,
                    () -> docs.gate.call(docs.reader, DocsTools.GET_DOC, args("slug", slug)));
            assertThat(e).as("getDoc(%s)", slug).isNotNull();
            assertThat(e.issues()).allSatisfy(i -> assertThat(i.path()).isEqualTo("/slug"));
            assertThat(e.issues().get(0).message()).doesNotContain("root:");
        }
        ToolValidationException e = catchThrowableOfType(ToolValidationException.class,
                () -> docs.gate.call(docs.reader, DocsTools.LIST_DOCS, args("section", "../" + "y".repeat(190))));
        assertThat(e.issues().get(0).path()).isEqualTo("/section");
        assertThat(e.issues().get(0).message()).hasSizeLessThan(400);
    }

    @Test
    void hostilePagesAreIndexedOrSkippedWithoutFailing(@TempDir Path tmp) throws IOException {
        Files.write(tmp.resolve("binary.md"), new byte[] {0, 1, 2, (byte) 0xff, (byte) 0xfe, 'o', 'k', '\n', (byte) 0xc3});
        Files.writeString(tmp.resolve("one-line.md"), "word ".repeat(200_000));
        Files.writeString(tmp.resolve("hashes.md"), "#".repeat(100_000) + "\n" + "## ".repeat(10_000));
        Files.writeString(tmp.resolve("fence.md"), "# Fence\n```\n## inside an unclosed fence\n");
        Files.writeString(tmp.resolve("front.md"), "---\n" + "title: x\n".repeat(10_000));
        Files.writeString(tmp.resolve("empty.md"), "");
        Files.writeString(tmp.resolve("emoji.md"), "# Emoji\n\n" + "😀 needle 😀 ".repeat(2_000));
        DocsIndex index = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> DocsIndex.fromDirectory(tmp));
        assertThat(index.pages()).extracting(DocPage::slug)
                .containsExactly("binary", "emoji", "empty", "fence", "front", "hashes", "one-line");
        assertThat(index.page("binary").orElseThrow().content()).contains("ok").contains("\uFFFD");
        assertThat(index.page("one-line").orElseThrow().truncated()).isTrue();
        assertThat(index.page("fence").orElseThrow().headings()).isEmpty();
        assertThat(index.page("empty").orElseThrow().title()).isEqualTo("empty");
        DocHit hit = index.search("needle", 1).hits().get(0);
        assertThat(hit.slug()).isEqualTo("emoji");
        assertThat(hit.snippet().length()).isBetween(300, DocsIndex.SNIPPET_CHARS + 2);
        DocsIndexTest.assertNoLoneSurrogate(hit.snippet());
        try (DocsGate gate = new DocsGate(index)) {
            for (DocPage page : index.pages()) {
                assertThat(gate.result(DocsTools.GET_DOC, args("slug", page.slug())).get("slug").asString())
                        .isEqualTo(page.slug());
            }
        }
    }
}
