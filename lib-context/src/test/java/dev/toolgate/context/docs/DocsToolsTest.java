package dev.toolgate.context.docs;

import static dev.toolgate.context.docs.DocsGate.args;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The three docs tools through a gate, on Toolgate's own README files. */
class DocsToolsTest {

    static DocsIndex index;
    DocsGate docs;

    @BeforeAll
    static void load() {
        index = DocsIndex.fromClasspath("toolgate-docs");
    }

    @BeforeEach
    void open() {
        docs = new DocsGate(index);
    }

    @AfterEach
    void close() {
        docs.close();
    }

    @Test
    void theToolsAreThreeReadsUnderTheGivenRule() {
        var provider = DocsTools.tools(index, DocsGate.RULE);
        assertThat(provider.pluginId()).isEqualTo("docs");
        assertThat(provider.tools()).extracting(t -> t.name()).containsExactly("listDocs", "searchDocs", "getDoc");
        assertThat(provider.tools()).allSatisfy(t -> {
            assertThat(t.effect()).isEqualTo(Effect.READ);
            assertThat(t.requiredAccessRules()).containsExactly(DocsGate.RULE);
        });
    }

    @Test
    void aPrincipalWithoutTheRuleCannotCallThem() {
        CallContext stranger = CallContext.of(Principal.user("x", "other.rule"));
        assertThatThrownBy(() -> docs.gate.call(stranger, DocsTools.LIST_DOCS, "{}"))
                .isNotInstanceOf(ToolValidationException.class);
    }

    @Test
    void listDocsIsTheSitemapWithSectionsAndAStopNote() {
        JsonNode list = docs.result(DocsTools.LIST_DOCS, "{}");
        List<String> slugs = new ArrayList<>();
        list.get("pages").forEach(p -> slugs.add(p.get("slug").asString()));
        List<String> modules = RankingQualityTest.modulesWithReadmes();
        List<String> expected = new ArrayList<>(List.of("README"));
        expected.addAll(modules);
        assertThat(slugs).containsExactlyElementsOf(expected);
        assertThat(list.get("pages").get(expected.indexOf("lib-jdbc")).get("title").asString()).isEqualTo("toolgate-jdbc");
        assertThat(list.get("pages").get(0).has("description")).isFalse();
        List<String> sections = new ArrayList<>(List.of("(root)"));
        sections.addAll(modules);
        assertThat(list.get("sections").values().stream().map(JsonNode::asString).toList()).containsExactlyElementsOf(sections);
        assertThat(list.get("note").asString()).contains("If no title or description fits").contains("do not cover it");
    }

    @Test
    void listDocsFiltersBySection() {
        JsonNode list = docs.result(DocsTools.LIST_DOCS, args("section", "lib-jdbc"));
        assertThat(list.get("pages")).hasSize(1);
        assertThat(list.get("pages").get(0).get("slug").asString()).isEqualTo("lib-jdbc");
        JsonNode root = docs.result(DocsTools.LIST_DOCS, args("section", DocsIndex.ROOT_SECTION));
        assertThat(root.get("pages")).hasSize(1);
        assertThat(root.get("pages").get(0).get("slug").asString()).isEqualTo("README");
    }

    @Test
    void anUnknownSectionNamesTheValidOnes() {
        ToolValidationException e = catchThrowableOfType(ToolValidationException.class,
                () -> docs.gate.call(docs.reader, DocsTools.LIST_DOCS, args("section", "user-guide")));
        assertThat(e.issues()).singleElement().satisfies(issue -> {
            assertThat(issue.path()).isEqualTo("/section");
            assertThat(issue.message()).contains("'user-guide'")
                    .contains("(root), " + String.join(", ", RankingQualityTest.modulesWithReadmes()));
        });
    }

    @Test
    void aStrongSearchSaysToReadTheBestPage() {
        JsonNode search = docs.result(DocsTools.SEARCH_DOCS, args("query", "how do I roll back a durable run"));
        JsonNode top = search.get("hits").get(0);
        assertThat(top.get("slug").asString()).isEqualTo("README");
        assertThat(top.get("title").asString()).isEqualTo("Toolgate");
        assertThat(top.get("heading").asString()).startsWith("Durable executions");
        assertThat(top.get("snippet").asString()).hasSizeBetween(100, 520).containsIgnoringCase("roll");
        assertThat(top.get("score").asDouble()).isPositive();
        assertThat(search.get("hits")).hasSizeBetween(2, DocsTools.DEFAULT_LIMIT);
        assertThat(search.get("quality").asString()).isEqualTo("strong");
        assertThat(search.get("note").asString()).contains("docs.getDoc({\"slug\": \"README\"})");
    }

    @Test
    void theLimitDefaultsToFiveAndCapsTheHits() {
        DocsIndex many = DocsIndex.builder()
                .page("a.md", "# A\n\nalpha beta").page("b.md", "# B\n\nalpha").page("c.md", "# C\n\nalpha")
                .page("d.md", "# D\n\nalpha").page("e.md", "# E\n\nalpha").page("f.md", "# F\n\nalpha")
                .page("g.md", "# G\n\ngamma").build();
        try (DocsGate small = new DocsGate(many)) {
            assertThat(small.result(DocsTools.SEARCH_DOCS, args("query", "alpha")).get("hits")).hasSize(5);
            assertThat(small.result(DocsTools.SEARCH_DOCS, args("query", "alpha", "limit", 2)).get("hits")).hasSize(2);
            assertThat(small.result(DocsTools.SEARCH_DOCS, args("query", "alpha", "limit", 10)).get("hits")).hasSize(6);
        }
    }

    @Test
    void aQueryTheDocsDoNotCoverIsEmptyAndSaysStop() {
        JsonNode search = docs.result(DocsTools.SEARCH_DOCS, args("query", "kubernetes helm chart"));
        assertThat(search.get("hits")).isEmpty();
        assertThat(search.get("quality").asString()).isEqualTo("empty");
        assertThat(search.get("note").asString()).contains("do not cover").contains("Do not retry")
                .contains("docs.listDocs");
    }

    @Test
    void commonWordsOnlyGiveAWeakNote() {
        // a corpus of its own, where "system" stands in every section: the README files change over time
        DocsIndex.Builder pages = DocsIndex.builder();
        for (String topic : new String[] {"alerts", "billing", "checks", "deploys", "incidents", "metrics"}) {
            pages.page(topic + ".md", "# " + topic + "\n\nHow the system handles " + topic + ".\n\n## Setup\n\n"
                    + "Configure the system for " + topic + " in the settings.\n");
        }
        JsonNode search;
        try (DocsGate common = new DocsGate(pages.build())) {
            search = common.result(DocsTools.SEARCH_DOCS, args("query", "the system"));
        }
        assertThat(search.get("hits")).isNotEmpty();
        assertThat(search.get("quality").asString()).isEqualTo("weak");
        assertThat(search.get("note").asString()).contains("most likely do not cover").contains("system")
                .contains("Do not retry near-identical queries").contains("docs.listDocs");
    }

    @Test
    void aQueryWhoseTopicIsMissingIsWeakEvenIfACommonWordMatches() {
        JsonNode search = docs.result(DocsTools.SEARCH_DOCS, args("query", "how do I deploy toolgate on kubernetes"));
        assertThat(search.get("quality").asString()).isEqualTo("weak");
        assertThat(search.get("note").asString()).contains("do not cover").contains("Do not retry");
    }

    @Test
    void stopWordsOnlyAreWeakWithNoHits() {
        JsonNode search = docs.result(DocsTools.SEARCH_DOCS, args("query", "how do I do it with the and of to"));
        assertThat(search.get("hits")).isEmpty();
        assertThat(search.get("quality").asString()).isEqualTo("weak");
        assertThat(search.get("note").asString()).contains("only common words");
    }

    @Test
    void getDocReturnsThePageUpToTheBudgetAndTheHeadingsLeftToRead() {
        JsonNode page = docs.result(DocsTools.GET_DOC, args("slug", "lib-jdbc"));
        assertThat(page.get("slug").asString()).isEqualTo("lib-jdbc");
        assertThat(page.get("title").asString()).isEqualTo("toolgate-jdbc");
        assertThat(page.get("content").asString()).startsWith("# toolgate-jdbc").contains("## Schema")
                .doesNotContain("## A database as a tool source");
        assertThat(page.get("content").asString().getBytes(StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(DocsIndex.DEFAULT_MAX_PAGE_BYTES);
        assertThat(page.get("truncated").asBoolean()).isTrue();
        assertThat(page.get("headings").values().stream().map(JsonNode::asString).toList())
                .contains("A database as a tool source", "Tests").doesNotContain("Use");
        assertThat(page.get("note").asString()).contains("Read a section with heading")
                .contains("\"heading\"");
        assertThat(page.has("description")).isFalse();
    }

    @Test
    void getDocWithAHeadingReturnsThatSectionAndItsSubsections() {
        JsonNode section = docs.result(DocsTools.GET_DOC, args("slug", "lib-jdbc", "heading", "a DATABASE as a tool source"));
        assertThat(section.get("heading").asString()).isEqualTo("A database as a tool source");
        assertThat(section.get("content").asString()).startsWith("## A database as a tool source\n")
                .doesNotContain("## Tests");
        assertThat(section.get("truncated").asBoolean()).isFalse();
        // the page goes on after it: what is left is listed
        assertThat(section.get("headings").values().stream().map(JsonNode::asString).toList()).containsExactly("Tests");

        JsonNode schema = docs.result(DocsTools.GET_DOC, args("slug", "lib-jdbc", "heading", "Schema"));
        assertThat(schema.get("content").asString()).startsWith("## Schema").contains("### Upgrading from version 2")
                .contains("### Upgrading from version 1").doesNotContain("## Guarantees");
        JsonNode sub = docs.result(DocsTools.GET_DOC, args("slug", "lib-jdbc", "heading", "Upgrading from version 2"));
        assertThat(sub.get("content").asString()).startsWith("### Upgrading from version 2")
                .doesNotContain("### Upgrading from version 1");
    }

    @Test
    void anUnknownHeadingNamesSomeOfThePagesHeadings() {
        ToolValidationException e = catchThrowableOfType(ToolValidationException.class,
                () -> docs.gate.call(docs.reader, DocsTools.GET_DOC, args("slug", "README", "heading", "Durable stuff")));
        assertThat(e).isNotNull();
        ValidationIssue issue = e.issues().get(0);
        assertThat(issue.path()).isEqualTo("/heading");
        assertThat(issue.message()).startsWith("page 'README' has no heading 'Durable stuff'.")
                .contains("Durable storage").contains("Durable executions")
                .contains("(of " + DocsIndex.fromClasspath("toolgate-docs").page("README").orElseThrow().headings().size() + ")");
        assertThat(issue.message().split("; ")).hasSize(DocsTools.MAX_NAMED_HEADINGS);
    }

    @Test
    void getDocFlagsAPageCutToTheBudget() {
        DocsIndex small = DocsIndex.builder().maxPageBytes(512)
                .page("big.md", "---\ndescription: Big one\n---\n# Big\n\n" + "many words here ".repeat(200))
                .page("small.md", "# Small\n\nshort").build();
        try (DocsGate gate = new DocsGate(small)) {
            JsonNode big = gate.result(DocsTools.GET_DOC, args("slug", "big"));
            assertThat(big.get("truncated").asBoolean()).isTrue();
            assertThat(big.get("description").asString()).isEqualTo("Big one");
            assertThat(big.get("content").asString()).startsWith("# Big").hasSizeLessThanOrEqualTo(512);
            assertThat(gate.result(DocsTools.GET_DOC, args("slug", "small")).get("truncated").asBoolean()).isFalse();
        }
    }

    @Test
    void withTheGatesDefaultResultLimitEveryPartOfTheLongestPageIsReadable() {
        // README.md (36 KB, 14 sections) is the longest page of the fixture docs
        try (DocsGate defaults = new DocsGate(index, b -> b)) {
            JsonNode page = defaults.result(DocsTools.GET_DOC, args("slug", "README"));
            assertThat(page.get("content").asString()).startsWith("# ").contains("## Quick start");
            assertThat(page.get("truncated").asBoolean()).isTrue();
            List<String> headings = page.get("headings").values().stream().map(JsonNode::asString).toList();
            assertThat(headings).contains("Project layout", "Configuration");
            StringBuilder read = new StringBuilder(page.get("content").asString());
            for (String heading : index.page("README").orElseThrow().headings()) {
                JsonNode section = defaults.result(DocsTools.GET_DOC, args("slug", "README", "heading", heading));
                assertThat(section.get("content").asString()).startsWith("## " + heading);
                assertThat(section.get("truncated").asBoolean()).as(heading).isFalse();
                read.append(section.get("content").asString());
            }
            assertThat(read).contains("## Project layout");
        }
        // every getDoc result of the fixture docs, page or section, fits the default 10 KiB with 1 KiB to spare
        for (DocPage page : index.pages()) {
            assertThat(bytes(DocsTools.page(index, page))).as(page.slug()).isLessThan(9 * 1024);
            for (String heading : page.headings()) {
                assertThat(bytes(DocsTools.section(index.section(page.slug(), heading).orElseThrow())))
                        .as("%s %s", page.slug(), heading).isLessThan(9 * 1024);
            }
        }
    }

    private static int bytes(JsonNode node) {
        return dev.toolgate.json.Json.write(node).getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void anUnknownSlugNamesTheClosestRealPagesAndNeverAnotherPage() {
        assertThat(unknownSlug("jdbc")).contains("Closest pages: lib-jdbc.");
        assertThat(unknownSlug("lib-mcp")).contains("Closest pages: lib-mcp-adapter,");
        assertThat(unknownSlug("codemode/sandbox")).contains("Closest pages: lib-codemode.");
        assertThat(unknownSlug("lib-jdbc/README")).contains("Closest pages: lib-jdbc,");
        assertThat(unknownSlug("readme")).contains("Closest pages: README.");
        assertThat(unknownSlug("kubernetes")).contains("No page slug shares a word with it").contains("docs.listDocs");
    }

    private String unknownSlug(String slug) {
        int before = docs.records();
        ToolValidationException e = catchThrowableOfType(ToolValidationException.class,
                () -> docs.gate.call(docs.reader, DocsTools.GET_DOC, args("slug", slug)));
        assertThat(e).as("getDoc(%s)", slug).isNotNull();
        assertThat(e.toolName()).isEqualTo(DocsTools.GET_DOC);
        ValidationIssue issue = e.issues().get(0);
        assertThat(issue.path()).isEqualTo("/slug");
        assertThat(issue.message()).startsWith("no page '" + slug + "'.").contains("docs.listDocs");
        assertThat(docs.records()).as("a rejected read is recorded once").isLessThanOrEqualTo(before + 1);
        return issue.message();
    }

    @Test
    void theSchemaEnforcesTheLimitsBeforeTheToolRuns() {
        rejected(DocsTools.SEARCH_DOCS, args("query", "a".repeat(401)), "/query");
        rejected(DocsTools.SEARCH_DOCS, args("query", ""), "/query");
        rejected(DocsTools.SEARCH_DOCS, args("query", "durable run", "limit", 0), "/limit");
        rejected(DocsTools.SEARCH_DOCS, args("query", "durable run", "limit", 11), "/limit");
        rejected(DocsTools.SEARCH_DOCS, args("limit", 3), "");
        rejected(DocsTools.GET_DOC, args("slug", ""), "/slug");
        rejected(DocsTools.GET_DOC, "{}", "");
        rejected(DocsTools.LIST_DOCS, args("section", ""), "/section");
        // the boundaries themselves pass
        assertThat(docs.result(DocsTools.SEARCH_DOCS, args("query", "durable ".repeat(50).strip() + "x".repeat(1),
                "limit", 10)).get("hits")).isNotNull();
        assertThat(docs.result(DocsTools.SEARCH_DOCS, args("query", "q".repeat(400), "limit", 1)).get("hits")).isEmpty();
    }

    private void rejected(String tool, String arguments, String path) {
        int before = docs.records();
        ToolValidationException e = catchThrowableOfType(ToolValidationException.class,
                () -> docs.gate.call(docs.reader, tool, arguments));
        assertThat(e).as("%s %s is rejected", tool, arguments).isNotNull();
        assertThat(e.callId()).as("refused before anything was recorded").isNull();
        assertThat(e.issues()).extracting(ValidationIssue::path).anySatisfy(p -> assertThat(p).startsWith(path));
        assertThat(docs.records()).as("nothing recorded for %s", arguments).isEqualTo(before);
    }
}
