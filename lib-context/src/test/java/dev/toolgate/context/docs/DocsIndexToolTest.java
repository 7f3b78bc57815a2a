package dev.toolgate.context.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link DocsIndexTool}: writes an index file, and its check fails when the docs changed without it. */
class DocsIndexToolTest {

    @TempDir
    Path temp;

    Path docs;
    Path file;
    final ByteArrayOutputStream output = new ByteArrayOutputStream();

    @BeforeEach
    void docs() throws IOException {
        docs = temp.resolve("docs");
        Files.createDirectories(docs.resolve("guides"));
        Files.writeString(docs.resolve("guides/setup.md"), "# Setup\n\nInstall the gate.\n\n## Keys\n\nSet them.\n");
        Files.writeString(docs.resolve("intro.md"), "# Intro\n\nWhat the gate does.\n");
        Files.writeString(docs.resolve("notes.txt"), "not a page");
        file = temp.resolve("out/docs.idx");
    }

    private int run(String... args) {
        output.reset();
        return DocsIndexTool.run(args, new PrintStream(output, true, StandardCharsets.UTF_8));
    }

    private String printed() {
        return output.toString(StandardCharsets.UTF_8);
    }

    @Test
    void writeMakesAFileThatLoadsAsTheDirectorysIndex() throws IOException {
        assertThat(run("write", docs.toString(), file.toString())).isZero();
        assertThat(printed()).contains("wrote").contains("2 pages");
        DocsIndex loaded;
        try (InputStream in = Files.newInputStream(file)) {
            loaded = DocsIndex.readFrom(in);
        }
        DocsIndex built = DocsIndex.fromDirectory(docs);
        PrebuiltIndexTest.assertSameAnswers(built, loaded, java.util.List.of("install gate", "keys", "intro"));
        try (var listing = Files.list(file.getParent())) {
            assertThat(listing).as("no temporary file left").containsExactly(file);
        }
    }

    @Test
    void checkPassesWhenTheDocsAreUnchanged() {
        assertThat(run("write", docs.toString(), file.toString())).isZero();
        assertThat(run("check", docs.toString(), file.toString())).isZero();
        assertThat(printed()).contains("up to date");
    }

    @Test
    void checkNamesAChangedPage() throws IOException {
        run("write", docs.toString(), file.toString());
        Files.writeString(docs.resolve("intro.md"), "# Intro\n\nWhat the gate does now.\n");
        assertThat(run("check", docs.toString(), file.toString())).isEqualTo(1);
        assertThat(printed()).contains("stale").contains("page changed: intro.md").contains("DocsIndexTool write");
    }

    @Test
    void checkNamesAnAddedPage() throws IOException {
        run("write", docs.toString(), file.toString());
        Files.writeString(docs.resolve("guides/more.md"), "# More\n");
        assertThat(run("check", docs.toString(), file.toString())).isEqualTo(1);
        assertThat(printed()).contains("page added: guides/more.md");
    }

    @Test
    void checkNamesARemovedPage() throws IOException {
        run("write", docs.toString(), file.toString());
        Files.delete(docs.resolve("guides/setup.md"));
        assertThat(run("check", docs.toString(), file.toString())).isEqualTo(1);
        assertThat(printed()).contains("page removed: guides/setup.md");
    }

    @Test
    void checkNamesTheFirstDifferenceInPathOrder() throws IOException {
        run("write", docs.toString(), file.toString());
        Files.writeString(docs.resolve("intro.md"), "changed");
        Files.writeString(docs.resolve("guides/setup.md"), "changed");
        assertThat(run("check", docs.toString(), file.toString())).isEqualTo(1);
        assertThat(printed()).contains("page changed: guides/setup.md").doesNotContain("intro.md");
    }

    @Test
    void checkFailsOnAMissingOrBrokenIndexFile() throws IOException {
        assertThat(run("check", docs.toString(), file.toString())).isEqualTo(1);
        assertThat(printed()).contains("cannot read the docs index");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "garbage");
        assertThat(run("check", docs.toString(), file.toString())).isEqualTo(1);
        assertThat(printed()).contains("not usable").contains("not a prebuilt docs index");
    }

    @Test
    void aWrongCommandLineIsExitCodeTwo() {
        assertThat(run()).isEqualTo(2);
        assertThat(printed()).contains("usage");
        assertThat(run("verify", docs.toString(), file.toString())).isEqualTo(2);
        assertThat(run("write", docs.toString())).isEqualTo(2);
        assertThat(run("check", temp.resolve("nowhere").toString(), file.toString())).isEqualTo(1);
        assertThat(printed()).contains("not a docs directory");
    }
}
