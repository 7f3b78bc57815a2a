package dev.toolgate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine package, {@code dev.toolgate.gate}, is lib-core's own: every other module (the optional
 * modules, the testkit, the Spring Boot starter, the examples) reaches the core through the facade and
 * the vocabulary of a call, {@code dev.toolgate.call}. A plain scan of the sources: every
 * {@code src/main} and {@code src/test} tree of the repository outside lib-core, Java sources and
 * {@code META-INF/services} files alike, must not name a type of the engine package, by import or
 * fully qualified. The vocabulary itself must not use the engine either (the engine uses it).
 */
class EngineBoundaryTest {

    /** An import of the engine package or a type of it named in full, such as {@code dev.toolgate.gate.Steps}. */
    private static final Pattern ENGINE = Pattern.compile("\\bdev\\.toolgate\\.gate\\.(\\*|[A-Z]\\w*)");
    private static final Set<String> SKIPPED_DIRECTORIES = Set.of("target", ".git", ".mvn", "node_modules", ".idea");

    @Test
    void noModuleOutsideCoreUsesTheEnginePackage() {
        Path root = repositoryRoot();
        List<String> reaches = engineReaches(root, root.resolve("lib-core"));
        assertThat(reaches)
                .as("only lib-core may use dev.toolgate.gate (the engine); other modules speak dev.toolgate.call "
                        + "and the facade dev.toolgate.Toolgate")
                .isEmpty();
    }

    @Test
    void theVocabularyDoesNotUseTheEngine() {
        Path vocabulary = repositoryRoot().resolve("lib-core/src/main/java/dev/toolgate/call");
        assertThat(vocabulary).isDirectory();
        assertThat(engineReaches(vocabulary, null)).as("dev.toolgate.call must not depend on dev.toolgate.gate").isEmpty();
    }

    @Test
    void theScanFindsAnImportAFullyQualifiedUseAndAServiceFile(@TempDir Path repo) throws IOException {
        write(repo.resolve("lib-x/src/main/java/x/Imports.java"), "package x;\nimport dev.toolgate.gate.Steps;\n");
        write(repo.resolve("lib-x/src/test/java/x/Wildcard.java"), "package x;\nimport dev.toolgate.gate.*;\n");
        write(repo.resolve("examples/y/src/main/java/y/Qualified.java"),
                "package y;\nclass Qualified { dev.toolgate.gate.EngineContext context; }\n");
        write(repo.resolve("lib-x/src/main/resources/META-INF/services/dev.toolgate.gate.ProposeApplyEngine$Factory"),
                "x.Factory\n");
        write(repo.resolve("lib-x/src/main/java/x/Speaks.java"),
                "package x;\nimport dev.toolgate.call.CallContext;\n// the package dev.toolgate.gate is the engine\n");
        write(repo.resolve("lib-x/target/generated-sources/x/Generated.java"), "import dev.toolgate.gate.Steps;\n");
        write(repo.resolve("lib-core/src/main/java/dev/toolgate/Toolgate.java"), "import dev.toolgate.gate.Steps;\n");

        assertThat(engineReaches(repo, repo.resolve("lib-core"))).containsExactlyInAnyOrder(
                "lib-x/src/main/java/x/Imports.java:2",
                "lib-x/src/test/java/x/Wildcard.java:2",
                "examples/y/src/main/java/y/Qualified.java:2",
                "lib-x/src/main/resources/META-INF/services/dev.toolgate.gate.ProposeApplyEngine$Factory");
    }

    /** Each source line (path:line) or service file under {@code root}, outside {@code excluded}, that names the engine. */
    private static List<String> engineReaches(Path root, Path excluded) {
        List<String> reaches = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(Files::isRegularFile)
                    .filter(file -> excluded == null || !file.startsWith(excluded))
                    .filter(file -> root.relativize(file).toString().replace('\\', '/').matches("(.*/)?src/(main|test)/.*"))
                    .filter(file -> !skipped(root.relativize(file)))
                    .sorted()
                    .forEach(file -> reaches.addAll(reachesIn(root, file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return reaches;
    }

    private static List<String> reachesIn(Path root, Path file) {
        String relative = root.relativize(file).toString().replace('\\', '/');
        List<String> found = new ArrayList<>();
        boolean service = relative.contains("/META-INF/services/");
        if (service && ENGINE.matcher(file.getFileName().toString()).find()) {
            found.add(relative);
            return found;
        }
        String name = file.getFileName().toString();
        if (!service && !(name.endsWith(".java") || name.endsWith(".kt") || name.endsWith(".groovy"))) {
            return found;
        }
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (ENGINE.matcher(lines.get(i)).find()) {
                    found.add(service ? relative : relative + ":" + (i + 1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    private static boolean skipped(Path relative) {
        for (Path part : relative) {
            if (SKIPPED_DIRECTORIES.contains(part.toString())) {
                return true;
            }
        }
        return false;
    }

    /** The repository's root: the nearest folder upwards holding both pom.xml and lib-core (tests run in lib-core). */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve("lib-core"))) {
                return dir;
            }
        }
        throw new AssertionError("no repository root (pom.xml beside lib-core) above " + Path.of("").toAbsolutePath());
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
