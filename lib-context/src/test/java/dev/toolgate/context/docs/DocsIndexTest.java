package dev.toolgate.context.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pages, slugs, front matter, the page budget and the sources of a {@link DocsIndex}. */
class DocsIndexTest {

    @TempDir
    Path tmp;

    @Test
    void frontMatterGivesTitleAndDescriptionAndIsStripped() {
        DocPage page = single("""
                ---
                title: "Health checks"
                description: 'How a check runs, and when it alerts'
                sidebar:
                  order: 3
                draft: false
                ---

                # Ignored heading title

                Body text.
                """);
        assertThat(page.title()).isEqualTo("Health checks");
        assertThat(page.description()).isEqualTo("How a check runs, and when it alerts");
        assertThat(page.content()).startsWith("# Ignored heading title").doesNotContain("sidebar").doesNotContain("---");
        assertThat(page.truncated()).isFalse();
    }

    @Test
    void withoutFrontMatterTheFirstHeadingIsTheTitleElseTheSlug() {
        assertThat(single("Intro line\n\n# The title\n\n## A\n").title()).isEqualTo("The title");
        assertThat(single("no heading at all\n").title()).isEqualTo("guide");
        assertThat(single("no heading at all\n").description()).isNull();
        // an unclosed fence is not front matter
        DocPage unclosed = single("---\ntitle: Nope\n\n# Real\n");
        assertThat(unclosed.title()).isEqualTo("Real");
        assertThat(unclosed.content()).startsWith("---");
        // CRLF and a byte order mark
        DocPage windows = single("\uFEFF---\r\ntitle: Win\r\n---\r\nText\r\n## Head\r\n");
        assertThat(windows.title()).isEqualTo("Win");
        assertThat(windows.headings()).containsExactly("Head");
    }

    @Test
    void headingsAreLevelsTwoAndThreeOutsideCode() {
        DocPage page = single("""
                # Title
                ## First ##
                ### Nested
                #### Too deep
                #not a heading
                ```bash
                ## a shell comment, not a heading
                ```
                ~~~
                ### also code
                ~~~
                    ## indented code
                ## Second
                """);
        assertThat(page.headings()).containsExactly("First", "Nested", "Second");
    }

    @Test
    void sectionLevelHitsNameTheHeadingOfTheBestSection() {
        DocsIndex index = DocsIndex.builder().page("guide.md", """
                # Guide
                Intro about nothing in particular.
                ## Installing
                Download the archive and unpack it.
                ## Alerts
                ### Escalation
                Pager rotation and escalation policies for on-call.
                """).build();
        assertThat(index.search("pager rotation", 5).hits()).singleElement()
                .satisfies(hit -> assertThat(hit.heading()).isEqualTo("Escalation"));
        assertThat(index.search("download archive", 5).hits().get(0).heading()).isEqualTo("Installing");
        assertThat(index.search("intro particular", 5).hits().get(0).heading()).isNull();
    }

    @Test
    void aPageLongerThanTheBudgetIsCutAndSaysSo() {
        String filler = "lorem ipsum dolor sit amet 😀 ".repeat(200); // ~6 KB with surrogate pairs
        DocsIndex index = DocsIndex.builder().maxPageBytes(1024)
                .page("long.md", "# Long\n\n" + filler + "\n\nzebracorn appears only at the end\n")
                .page("short.md", "# Short\n\nzebra\n")
                .build();
        DocPage page = index.page("long").orElseThrow();
        assertThat(page.truncated()).isTrue();
        assertThat(page.content().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024);
        assertThat(page.content()).startsWith("# Long");
        assertNoLoneSurrogate(page.content());
        assertThat(index.page("short").orElseThrow().truncated()).isFalse();
        // the indexed body goes beyond the content: its end is searched
        assertThat(index.search("zebracorn", 5).hits()).extracting(DocHit::slug).containsExactly("long");
        assertThatThrownBy(() -> DocsIndex.builder().maxPageBytes(10)).isInstanceOf(IllegalArgumentException.class);
        assertThat(DocsIndex.fromDirectory(tmp).maxPageBytes()).isEqualTo(7 * 1024);
    }

    @Test
    void onlyTheIndexedBudgetOfAPageIsSearched() {
        String filler = "lorem ipsum dolor sit amet ".repeat(3_000); // ~80 KB
        DocsIndex index = DocsIndex.builder()
                .page("huge.md", "# Huge\n\n" + filler + "\n\nzebracorn appears only at the end\n")
                .build();
        assertThat(index.page("huge").orElseThrow().truncated()).isTrue();
        assertThat(index.search("zebracorn", 5).hits()).isEmpty();
        assertThat(index.search("lorem", 5).hits()).hasSize(1);
    }

    @Test
    void theIndexingTermTableFindsExactlyTheTokenizersTerms() {
        java.util.Random random = new java.util.Random(11);
        String alphabet = "aAbBzZ09 _-.,\n\tÄäßİıΣσς😀\uD83D\uDE00\uD801\uDC00\uD800xXeEsSiIdDnNgG'`#ǅ\u0130";
        TermTable table = new TermTable();
        List<String> texts = new java.util.ArrayList<>(List.of("The Statements were ROLLED back; upgrading policies",
                "Größe ÜBER café 42 x", "a".repeat(400), "É".repeat(60) + "\uD801\uDC00".repeat(30), "studies carried"));
        for (int t = 0; t < 300; t++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(200); i > 0; i--) {
                text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            texts.add(text.toString());
        }
        for (String text : texts) {
            int n = table.scan(text);
            List<String> terms = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                terms.add(table.term(table.out[i]));
            }
            assertThat(terms).as(text).isEqualTo(Tokenizer.terms(text));
        }
    }

    @Test
    void cutKeepsTheLongestPrefixThatFitsAsCodePointsCountIt() {
        java.util.Random random = new java.util.Random(5);
        String alphabet = "ab \n\u00e9\u20ac\uD83D\uDE00\uD800\uDC00x\n";
        for (int t = 0; t < 2_000; t++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(400); i > 0; i--) {
                text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            int max = 1 + random.nextInt(300);
            assertThat(Markdown.cut(text.toString(), max)).as("%s / %d", text, max).isEqualTo(referenceCut(text.toString(), max));
        }
    }

    /** The cut as it was first written, by code points. */
    private static String referenceCut(String text, int maxBytes) {
        int bytes = 0;
        int i = 0;
        while (i < text.length()) {
            int cp = text.codePointAt(i);
            int size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + size > maxBytes) {
                break;
            }
            bytes += size;
            i += Character.charCount(cp);
        }
        int newline = text.lastIndexOf('\n', i - 1);
        if (newline > 0 && newline >= i - i / 10) {
            i = newline + 1;
        }
        return text.substring(0, i);
    }

    @Test
    void aSectionIsReadByItsHeadingCutToTheBudget() {
        String words = "alpha beta gamma delta ".repeat(100); // ~2.3 KB
        DocsIndex index = DocsIndex.builder().maxPageBytes(1024)
                .page("p.md", "# P\n\nintro\n\n## One\n\n" + words + "\n### One A\n\nsub\n\n## Two\n\ntwo\n")
                .build();
        DocSection one = index.section("p", " one ").orElseThrow();
        assertThat(one.heading()).isEqualTo("One");
        assertThat(one.text()).startsWith("## One\n");
        assertThat(one.text().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024);
        assertThat(one.truncated()).isTrue();
        assertThat(one.rest()).containsExactly("One A", "Two");
        DocSection two = index.section("p", "TWO").orElseThrow();
        assertThat(two.text()).isEqualTo("## Two\n\ntwo\n");
        assertThat(two.truncated()).isFalse();
        assertThat(two.rest()).isEmpty();
        assertThat(index.section("p", "Three")).isEmpty();
        assertThat(index.section("nope", "One")).isEmpty();
        assertThat(index.unreadHeadings(index.page("p").orElseThrow())).containsExactly("One", "One A", "Two");
    }

    @Test
    void slugsArePathsAndReadmesTakeTheirFolder() throws IOException {
        write("README.md", "# Home\n");
        write("guides/setup.md", "# Setup\n");
        write("guides/README.md", "# Guides\n");
        write("ops/index.md", "# Ops\n");
        write("api.md", "# API page\n");
        write("api/README.md", "# API folder\n");
        write("notes.txt", "not markdown");
        write("deep/er/Page.MD", "# Deep\n");
        DocsIndex index = DocsIndex.fromDirectory(tmp);
        assertThat(index.pages()).extracting(DocPage::slug)
                .containsExactly("README", "api", "api/README", "deep/er/Page", "guides", "guides/setup", "ops");
        assertThat(index.page("api").orElseThrow().title()).isEqualTo("API page");
        assertThat(index.page("api/README").orElseThrow().title()).isEqualTo("API folder");
        assertThat(index.pages()).extracting(DocPage::section)
                .containsExactly("(root)", "(root)", "api", "deep", "guides", "guides", "ops");
        assertThat(index.sections()).containsExactly("(root)", "api", "deep", "guides", "ops");
    }

    @Test
    void theFirstSourceOfAPathWins() throws IOException {
        write("a.md", "# From the directory\n");
        DocsIndex index = DocsIndex.builder().page("a.md", "# From text\n").directory(tmp).build();
        assertThat(index.pages()).singleElement().satisfies(p -> assertThat(p.title()).isEqualTo("From text"));
    }

    @Test
    void aJarOnTheClasspathIsReadLikeADirectory() throws IOException {
        Path jar = tmp.resolve("docs.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            entry(out, "docs/", null);
            entry(out, "docs/getting-started.md", "---\ntitle: Getting started\ndescription: First steps\n---\nInstall the agent.\n");
            entry(out, "docs/user-guide/README.md", "# User guide\n\n## Health checks\nA check probes a system.\n");
            entry(out, "docs/user-guide/alerts.md", "# Alerts\n\nPager rotation.\n");
            entry(out, "docs/image.png", "not a page");
            entry(out, "other/ignored.md", "# Not under docs\n");
        }
        Path dir = tmp.resolve("classes");
        Files.createDirectories(dir.resolve("docs/user-guide"));
        Files.writeString(dir.resolve("docs/user-guide/alerts.md"), "# Alerts from the directory\n");
        Files.writeString(dir.resolve("docs/faq.md"), "# FAQ\n");
        try (URLClassLoader jarOnly = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            DocsIndex index = DocsIndex.fromClasspath("/docs/", jarOnly);
            assertThat(index.pages()).extracting(DocPage::slug)
                    .containsExactly("getting-started", "user-guide", "user-guide/alerts");
            assertThat(index.page("getting-started").orElseThrow().description()).isEqualTo("First steps");
            assertThat(index.page("user-guide").orElseThrow().headings()).containsExactly("Health checks");
            assertThat(index.sections()).containsExactly("(root)", "user-guide");
            assertThat(index.search("pager rotation", 3).hits().get(0).slug()).isEqualTo("user-guide/alerts");
        }
        // a directory and a jar together: every location is read, the first one on the class path wins a path
        try (URLClassLoader both = new URLClassLoader(new URL[] {dir.toUri().toURL(), jar.toUri().toURL()}, null)) {
            DocsIndex index = DocsIndex.fromClasspath("docs", both);
            assertThat(index.pages()).extracting(DocPage::slug)
                    .containsExactly("faq", "getting-started", "user-guide", "user-guide/alerts");
            assertThat(index.page("user-guide/alerts").orElseThrow().title()).isEqualTo("Alerts from the directory");
        }
        // the jar is not held open: it can be deleted (or replaced) after indexing
        Files.delete(jar);
    }

    @Test
    void aMissingFolderIsAnEmptyIndex() {
        DocsIndex index = DocsIndex.fromClasspath("no-such-docs-folder");
        assertThat(index.size()).isZero();
        assertThat(index.search("anything", 5).quality()).isEqualTo(DocSearch.Quality.EMPTY);
        assertThat(DocsTools.list(index, null).get("note").asString()).contains("empty");
        assertThatThrownBy(() -> DocsIndex.fromClasspath("/")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DocsIndex.fromDirectory(tmp.resolve("missing"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theReadmeCorpusLoadsFromTheClasspath() {
        DocsIndex index = DocsIndex.fromClasspath("toolgate-docs");
        assertThat(index.size()).isEqualTo(1 + RankingQualityTest.modulesWithReadmes().size());
        DocPage root = index.page("README").orElseThrow();
        assertThat(root.title()).isEqualTo("Toolgate");
        assertThat(root.headings()).contains("Quick start", "Durable storage").doesNotContain(
                "stdio must not go through Maven (it writes to stdout): write the classpath once, then run java");
        assertThat(index.page("lib-mcp-adapter").orElseThrow().headings()).doesNotContain("Limits (Streamable HTTP)");
        assertThat(index.page("lib-jdbc").orElseThrow().headings()).contains("Upgrading from version 1");
    }

    @Test
    void suggestionsPreferSharedWordsThenEditDistance() {
        List<String> slugs = List.of("user-guide/health-checks", "user-guide/alerts", "admin/health", "api/checks",
                "changelog");
        assertThat(Suggestions.closest("health-check", slugs, 3))
                .containsExactly("user-guide/health-checks", "api/checks", "admin/health");
        assertThat(Suggestions.closest("user-guide/health-checks-v2", slugs, 3).get(0)).isEqualTo("user-guide/health-checks");
        assertThat(Suggestions.closest("changelgo", slugs, 3)).containsExactly("changelog");
        assertThat(Suggestions.closest("zzz", slugs, 3)).isEmpty();
        assertThat(Suggestions.closest("x".repeat(10_000), slugs, 3)).isEmpty();
    }

    @Test
    void theTokenizerLowersStemsAndDropsStopWords() {
        assertThat(Tokenizer.terms("The Statements were ROLLED back; upgrading policies")).containsExactly(
                "statement", "roll", "back", "upgrad", "policy");
        assertThat(Tokenizer.terms("upgrade upgraded upgrades")).containsExactly("upgrad", "upgrad", "upgrad");
        assertThat(Tokenizer.terms("running runs run")).containsExactly("run", "run", "run");
        assertThat(Tokenizer.terms("Größe ÜBER café 42 x")).containsExactly("größe", "über", "café", "42");
        assertThat(Tokenizer.terms("lib-jdbc/README.md")).containsExactly("lib", "jdbc", "readm", "md");
        assertThat(Tokenizer.terms("😀 \u0000 .*+?")).isEmpty();
        assertThat(Tokenizer.terms("a".repeat(400)).get(0)).hasSize(Tokenizer.MAX_TOKEN_CHARS);
    }

    @Test
    void aSnippetIsAboutFiveHundredCharactersAroundTheMatchOnWordBoundaries() {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 300; i++) {
            body.append("filler").append(i).append(i % 9 == 0 ? "\n" : " ");
        }
        String before = body.toString();
        String text = "# Page\n\n## Part\n" + before + "the quokka eats leaves at night " + before.replace("filler", "after");
        DocsIndex index = DocsIndex.builder().page("p.md", text).build();
        DocHit hit = index.search("quokka leaves", 1).hits().get(0);
        String snippet = hit.snippet();
        assertThat(hit.heading()).isEqualTo("Part");
        assertThat(snippet).contains("the quokka eats leaves at night").startsWith("…").endsWith("…");
        assertThat(snippet.length()).isBetween(400, DocsIndex.SNIPPET_CHARS + 2);
        assertThat(snippet).doesNotContain("\n").doesNotContain("  ");
        // whole words at both ends: every word of the snippet is a word of the page
        for (String word : snippet.substring(1, snippet.length() - 1).split(" ")) {
            assertThat(text).containsPattern("(^|\\s)" + java.util.regex.Pattern.quote(word) + "(\\s|$)");
        }
        // a short section is its own snippet, whole
        DocsIndex small = DocsIndex.builder().page("s.md", "# S\n\n## Tiny\nA   short\n\ttext about quokkas.\n").build();
        assertThat(small.search("quokka", 1).hits().get(0).snippet()).isEqualTo("A short text about quokkas.");
    }

    @Test
    void aSmallDocSetStillGivesStrongHits() {
        DocsIndex two = DocsIndex.builder()
                .page("install.md", "# Install\n\nDownload the agent and run the installer.\n")
                .page("alerts.md", "# Alerts\n\nAn alert pages the on-call person.\n").build();
        DocSearch search = two.search("installer download", 5);
        assertThat(search.hits()).extracting(DocHit::slug).containsExactly("install");
        assertThat(search.quality()).isEqualTo(DocSearch.Quality.STRONG);
        assertThat(two.search("kubernetes", 5).quality()).isEqualTo(DocSearch.Quality.EMPTY);
    }

    static void assertNoLoneSurrogate(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c)) {
                assertThat(i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1)))
                        .as("high surrogate at %d is paired", i).isTrue();
                i++;
            } else {
                assertThat(Character.isLowSurrogate(c)).as("lone low surrogate at %d", i).isFalse();
            }
        }
    }

    private DocPage single(String markdown) {
        return DocsIndex.builder().page("guide.md", markdown).build().pages().get(0);
    }

    private void write(String path, String text) throws IOException {
        Path file = tmp.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private static void entry(JarOutputStream out, String name, String text) throws IOException {
        out.putNextEntry(new JarEntry(name));
        if (text != null) {
            OutputStream stream = out;
            stream.write(text.getBytes(StandardCharsets.UTF_8));
        }
        out.closeEntry();
    }
}
