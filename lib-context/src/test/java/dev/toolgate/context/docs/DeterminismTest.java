package dev.toolgate.context.docs;

import static dev.toolgate.context.docs.DocsGate.args;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The same sources give byte-identical tool results, whoever builds the index and however it is read. */
class DeterminismTest {

    static final List<String> QUERIES = List.of("how do I roll back a durable run", "SQL guard hostile statements",
            "elicitation destructive apply MCP", "GraalJS sandbox statement limit", "the system", "tool",
            "kubernetes helm chart", "schema", "token nonce SHA-256", "budget retry after");

    @TempDir
    Path tmp;

    @Test
    void twoIndexesOfTheSameClasspathAnswerByteForByte() {
        assertSameAnswers(DocsIndex.fromClasspath("toolgate-docs"), DocsIndex.fromClasspath("toolgate-docs"));
    }

    @Test
    void aDirectoryCopyAnswersLikeTheClasspath() throws IOException, URISyntaxException {
        Path source = Paths.get(getClass().getClassLoader().getResource("toolgate-docs").toURI());
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                Path target = tmp.resolve(source.relativize(file).toString());
                Files.createDirectories(target.getParent());
                Files.copy(file, target);
            }
        }
        assertSameAnswers(DocsIndex.fromClasspath("toolgate-docs"), DocsIndex.fromDirectory(tmp));
    }

    @Test
    void theOrderPagesAreAddedInDoesNotMatter() {
        List<String[]> pages = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            pages.add(new String[] {"section" + (i % 4) + "/page-" + i + ".md",
                    "# Page " + i + "\n\n## Part\nalpha beta " + "gamma ".repeat(i % 5) + " delta" + (i % 3) + "\n"});
        }
        DocsIndex.Builder sorted = DocsIndex.builder();
        pages.forEach(p -> sorted.page(p[0], p[1]));
        Collections.shuffle(pages, new Random(42));
        DocsIndex.Builder shuffled = DocsIndex.builder();
        pages.forEach(p -> shuffled.page(p[0], p[1]));
        DocsIndex a = sorted.build();
        DocsIndex b = shuffled.build();
        // many equal scores: ties break by slug
        List<DocHit> hits = a.search("alpha", 10).hits();
        assertThat(hits).hasSize(10);
        for (int i = 1; i < hits.size(); i++) {
            DocHit before = hits.get(i - 1);
            DocHit after = hits.get(i);
            assertThat(before.score()).isGreaterThanOrEqualTo(after.score());
            if (before.score() == after.score()) {
                assertThat(before.slug()).isLessThan(after.slug());
            }
        }
        assertThat(hits.get(0).score()).isEqualTo(hits.get(1).score());
        assertSameAnswers(a, b, "alpha", "gamma", "delta1 part", "page 7");
    }

    private static void assertSameAnswers(DocsIndex a, DocsIndex b, String... queries) {
        List<String> all = new ArrayList<>(QUERIES);
        all.addAll(List.of(queries));
        try (DocsGate first = new DocsGate(a); DocsGate second = new DocsGate(b)) {
            assertThat(second.json(DocsTools.LIST_DOCS, "{}")).isEqualTo(first.json(DocsTools.LIST_DOCS, "{}"));
            for (String query : all) {
                String arguments = args("query", query, "limit", 10);
                assertThat(second.json(DocsTools.SEARCH_DOCS, arguments)).as(query)
                        .isEqualTo(first.json(DocsTools.SEARCH_DOCS, arguments));
            }
            for (DocPage page : a.pages()) {
                String arguments = args("slug", page.slug());
                assertThat(second.json(DocsTools.GET_DOC, arguments)).isEqualTo(first.json(DocsTools.GET_DOC, arguments));
            }
        }
    }
}
