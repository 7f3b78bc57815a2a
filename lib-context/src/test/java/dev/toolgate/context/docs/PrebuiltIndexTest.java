package dev.toolgate.context.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The build-time option: an index written with {@link DocsIndex#writeTo} and loaded with
 * {@link DocsIndex#readFrom} answers exactly as the index that was built, and bad input is refused whole.
 */
class PrebuiltIndexTest {

    @TempDir
    Path temp;

    static byte[] bytes(DocsIndex index) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        index.writeTo(out);
        return out.toByteArray();
    }

    static DocsIndex load(byte[] bytes) {
        return DocsIndex.readFrom(new ByteArrayInputStream(bytes));
    }

    @Test
    void theReadmeCorpusLoadsToAnIndexThatAnswersIdentically() throws IOException {
        DocsIndex built = DocsIndex.fromClasspath("toolgate-docs");
        assertThat(built.size()).isGreaterThan(3);
        byte[] file = bytes(built);
        DocsIndex loaded = load(file);
        List<String> queries = new ArrayList<>(wordQueries(built, 200, 11));
        Stream.concat(RankingQualityTest.pageQueries(), RankingQualityTest.sectionQueries())
                .map(Arguments::get).forEach(args -> queries.add((String) args[0]));
        queries.addAll(List.of("", "the and of", "kubernetes helm chart", "ÄÖÜ ünïcödé", "a"));
        assertSameAnswers(built, loaded, queries);
        assertThat(bytes(loaded)).as("a loaded index writes the same bytes").isEqualTo(file);
        assertThat(bytes(DocsIndex.fromClasspath("toolgate-docs"))).as("the same docs give the same bytes").isEqualTo(file);
    }

    @Test
    void fiveHundredGeneratedPagesLoadToAnIndexThatAnswersIdentically() throws IOException {
        Path docs = temp.resolve("docs");
        DocsIndexBenchmark.generatePages(docs, 500);
        DocsIndex built = DocsIndex.fromDirectory(docs);
        assertThat(built.size()).isEqualTo(500);
        DocsIndex loaded = load(bytes(built));
        assertSameAnswers(built, loaded, wordQueries(built, 200, 5));
    }

    @Test
    void nonAsciiPagesTruncatedPagesAndSmallBudgetsSurviveTheTrip() throws IOException {
        StringBuilder longPage = new StringBuilder("# Long\n\nintro\n\n");
        for (int i = 0; i < 200; i++) {
            longPage.append("## Part ").append(i).append("\n\nsome text about widgets number ").append(i)
                    .append(" with ünïcödé and 😀 emoji\n\n### Sub ").append(i).append("\n\nmore\n\n");
        }
        DocsIndex built = DocsIndex.builder().maxPageBytes(1024)
                .page("long.md", longPage.toString())
                .page("guides/setup.md", "---\ntitle: \"Set-up\"\ndescription: Straße und Größe\n---\n\n# Ignored\n\n"
                        + "Install the gate. 日本語のテキスト\n\n## Configure\n\nSet the keys.\n")
                .page("guides/README.md", "# Guides\n\nAll the guides.\n")
                .page("empty.md", "")
                .build();
        DocsIndex loaded = load(bytes(built));
        assertThat(loaded.maxPageBytes()).isEqualTo(1024);
        assertThat(loaded.page("long").orElseThrow().truncated()).isTrue();
        assertSameAnswers(built, loaded, List.of("widgets", "part 150", "straße", "日本語のテキスト", "configure keys",
                "emoji ünïcödé", "guides", "install gate"));
    }

    @Test
    void pagesLargerThanTheReadBufferSurviveTheTrip() throws IOException {
        StringBuilder ascii = new StringBuilder("# Big\n\n");
        StringBuilder wide = new StringBuilder("# Wide\n\n");
        for (int i = 0; ascii.length() < 150_000; i++) {
            ascii.append("## Chapter ").append(i).append("\n\nplain words about gadget ").append(i).append("\n\n");
            wide.append("## Kapitel ").append(i).append("\n\nWörter über Geräte ").append(i).append(" 😀\n\n");
        }
        DocsIndex built = DocsIndex.builder().maxPageBytes(200_000).page("big.md", ascii.toString())
                .page("wide.md", wide.toString()).build();
        assertThat(built.page("big").orElseThrow().content().length()).isGreaterThan(64 * 1024);
        DocsIndex loaded = load(bytes(built));
        assertSameAnswers(built, loaded, List.of("gadget 4000", "chapter", "geräte", "wörter kapitel 12"));
    }

    @Test
    void anEmptyIndexSurvivesTheTrip() throws IOException {
        DocsIndex built = DocsIndex.builder().build();
        DocsIndex loaded = load(bytes(built));
        assertThat(loaded.size()).isZero();
        assertSameAnswers(built, loaded, List.of("anything"));
    }

    @Test
    void theSourceDigestTellsStaleFromFresh() throws IOException {
        Path docs = temp.resolve("d");
        Files.createDirectories(docs.resolve("a"));
        Files.writeString(docs.resolve("a/one.md"), "# One\n\nfirst\n");
        Files.writeString(docs.resolve("two.md"), "# Two\n\nsecond\n");
        String digest = DocsIndex.fromDirectory(docs).sourceDigest();
        assertThat(digest).matches("[0-9a-f]{64}").isEqualTo(DocsIndex.fromDirectory(docs).sourceDigest());
        assertThat(load(bytes(DocsIndex.fromDirectory(docs))).sourceDigest()).isEqualTo(digest);
        Files.writeString(docs.resolve("two.md"), "# Two\n\nsecond!\n");
        assertThat(DocsIndex.fromDirectory(docs).sourceDigest()).isNotEqualTo(digest);
        Files.writeString(docs.resolve("two.md"), "# Two\n\nsecond\n");
        Files.move(docs.resolve("two.md"), docs.resolve("three.md"));
        assertThat(DocsIndex.fromDirectory(docs).sourceDigest()).isNotEqualTo(digest);
    }

    @Test
    void fromPrebuiltLoadsAClasspathResource() throws IOException {
        DocsIndex built = DocsIndex.fromClasspath("toolgate-docs");
        Path root = temp.resolve("cp");
        Files.createDirectories(root.resolve("idx"));
        try (OutputStream out = Files.newOutputStream(root.resolve("idx/docs.idx"))) {
            built.writeTo(out);
        }
        Files.write(root.resolve("idx/broken.idx"), new byte[] {1, 2, 3});
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {root.toUri().toURL()}, null)) {
            thread.setContextClassLoader(loader);
            DocsIndex loaded = DocsIndex.fromPrebuilt("idx/docs.idx");
            assertThat(loaded.pages()).isEqualTo(built.pages());
            assertThat(DocsIndex.fromPrebuilt("/idx/docs.idx").pages()).isEqualTo(built.pages());
            assertThatThrownBy(() -> DocsIndex.fromPrebuilt("idx/missing.idx"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("idx/missing.idx");
            assertThatThrownBy(() -> DocsIndex.fromPrebuilt("idx/broken.idx"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("idx/broken.idx")
                    .hasMessageContaining("not a prebuilt docs index");
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    @Test
    void otherInputIsRefusedWithAMessageNamingWhatIsWrong() {
        assertThatThrownBy(() -> load(new byte[0])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a prebuilt docs index");
        assertThatThrownBy(() -> load("# A markdown page\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a prebuilt docs index");
    }

    @Test
    void anotherFormatVersionIsRefused() throws IOException {
        byte[] file = bytes(smallIndex());
        ByteBuffer.wrap(file).putInt(8, 2);
        assertThatThrownBy(() -> load(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("format version 2").hasMessageContaining("version " + Prebuilt.VERSION);
    }

    @Test
    void everyTruncationIsRefused() throws IOException {
        byte[] file = bytes(smallIndex());
        for (int length = 0; length < file.length; length++) {
            byte[] cut = Arrays.copyOf(file, length);
            assertThatThrownBy(() -> load(cut)).as("cut to %d of %d bytes", length, file.length)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageMatching(length < 8 ? "not a prebuilt docs index.*" : ".*(truncated|corrupt).*");
        }
        byte[] longer = Arrays.copyOf(file, file.length + 1);
        assertThatThrownBy(() -> load(longer)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("after its checksum");
    }

    @Test
    void everyCorruptedByteIsRefused() throws IOException {
        byte[] file = bytes(smallIndex());
        for (int at = 8; at < file.length; at++) {
            for (int bit : new int[] {0x01, 0x80}) {
                byte[] bad = file.clone();
                bad[at] ^= (byte) bit;
                int position = at;
                assertThatThrownBy(() -> load(bad)).as("byte %d of %d flipped (%x)", position, file.length, bit)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prebuilt docs index");
            }
        }
    }

    @Test
    void aHugeAnnouncedLengthIsRefusedWithoutAllocatingIt() throws IOException {
        byte[] file = bytes(smallIndex());
        ByteBuffer.wrap(file).putInt(8 + 4 + 32, Integer.MAX_VALUE - 100);
        assertThatThrownBy(() -> load(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageMatching(".*(truncated|corrupt).*");
    }

    private static DocsIndex smallIndex() {
        return DocsIndex.builder()
                .page("guides/setup.md", "---\ntitle: Set-up\n---\n\nInstall the gate.\n\n## Configure\n\nSet keys ü.\n")
                .page("intro.md", "# Intro\n\nWhat the gate does.\n\n### Detail\n\nMore.\n")
                .build();
    }

    /** {@code count} queries of one to three words taken from the pages' own text, seeded. */
    static List<String> wordQueries(DocsIndex index, int count, long seed) {
        List<String> words = new ArrayList<>();
        for (DocPage page : index.pages()) {
            for (String word : page.content().split("[^\\p{L}\\p{N}]+")) {
                if (word.length() > 2) {
                    words.add(word);
                }
            }
        }
        Random random = new Random(seed);
        Set<String> queries = new LinkedHashSet<>();
        while (queries.size() < count && !words.isEmpty()) {
            StringBuilder query = new StringBuilder();
            int n = 1 + random.nextInt(3);
            for (int i = 0; i < n; i++) {
                query.append(i == 0 ? "" : " ").append(words.get(random.nextInt(words.size())));
            }
            queries.add(query.toString());
        }
        return new ArrayList<>(queries);
    }

    /** Everything an index answers, compared exactly. */
    static void assertSameAnswers(DocsIndex built, DocsIndex loaded, List<String> queries) {
        assertThat(loaded.pages()).isEqualTo(built.pages());
        assertThat(loaded.sections()).isEqualTo(built.sections());
        assertThat(loaded.maxPageBytes()).isEqualTo(built.maxPageBytes());
        assertThat(loaded.size()).isEqualTo(built.size());
        assertThat(loaded.sourceDigest()).isEqualTo(built.sourceDigest());
        assertThat(loaded.toString()).isEqualTo(built.toString());
        for (DocPage page : built.pages()) {
            DocPage other = loaded.page(page.slug()).orElseThrow();
            assertThat(loaded.unreadHeadings(other)).isEqualTo(built.unreadHeadings(page));
            for (String heading : page.headings()) {
                assertThat(loaded.section(page.slug(), heading)).isEqualTo(built.section(page.slug(), heading));
                assertThat(loaded.section(page.slug(), " " + heading.toUpperCase(java.util.Locale.ROOT)))
                        .isEqualTo(built.section(page.slug(), " " + heading.toUpperCase(java.util.Locale.ROOT)));
            }
            assertThat(loaded.section(page.slug(), "no such heading")).isEmpty();
            for (String wrong : List.of(page.slug(), page.slug() + "x", page.slug().replace('-', '_'),
                    page.slug().substring(0, Math.max(1, page.slug().length() / 2)))) {
                assertThat(loaded.suggestions(wrong)).as("suggestions for %s", wrong).isEqualTo(built.suggestions(wrong));
            }
        }
        for (String query : queries) {
            for (int limit : new int[] {1, 5, 50}) {
                assertThat(loaded.search(query, limit)).as("search '%s' limit %d", query, limit)
                        .isEqualTo(built.search(query, limit));
            }
        }
    }
}
