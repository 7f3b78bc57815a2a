package dev.toolgate.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.context.docs.DocsIndex;
import dev.toolgate.context.docs.DocsIndexTool;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The demo's prebuilt docs index matches the README files bundled beside it: a README changed without
 * regenerating the index fails the build, naming the page, with the command that regenerates it.
 */
class DocsIndexFreshTest {

    private static final String REGENERATE = "./mvnw -q -pl examples/demo-host -am compile exec:java "
            + "-Dexec.mainClass=dev.toolgate.context.docs.DocsIndexTool -Dexec.args=\"write "
            + "examples/demo-host/target/classes/docs examples/demo-host/src/main/resources/docs-index.bin\"";

    @Test
    void thePrebuiltIndexMatchesTheBundledReadmeFiles() {
        Path docs = Path.of("target/classes/docs");
        Path index = Path.of("src/main/resources/" + GroundingTour.DOCS_INDEX);
        assertThat(Files.isDirectory(docs)).as("the build copies the README files to %s", docs).isTrue();
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        int status = DocsIndexTool.run(new String[] {"check", docs.toString(), index.toString()},
                new PrintStream(report, true, StandardCharsets.UTF_8));
        assertThat(status).as("%s%nRegenerate the index from the repository's root:%n%s",
                report.toString(StandardCharsets.UTF_8), REGENERATE).isZero();
        assertThat(DocsIndex.fromPrebuilt(GroundingTour.DOCS_INDEX).size()).isEqualTo(
                DocsIndex.fromDirectory(docs).size());
    }
}
