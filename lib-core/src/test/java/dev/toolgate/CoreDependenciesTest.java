package dev.toolgate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * toolgate-core's runtime dependencies are exactly the small allowed list, so that no optional
 * module's dependency (Spring AI, LangChain4j, GraalVM, JDBI, Jetty, Micrometer, ...) can leak into
 * every host's classpath. The build writes the resolved runtime dependencies of this module to
 * {@code target/runtime-dependencies.txt} (maven-dependency-plugin {@code list}, phase
 * {@code generate-test-resources}); this test reads that file.
 */
class CoreDependenciesTest {

    /** groupId:artifactId of every allowed runtime dependency, direct or transitive. */
    private static final Set<String> ALLOWED = Set.of(
            // logging facade
            "org.slf4j:slf4j-api",
            // Jackson 3 (its annotations stay in the 2.x package, shared with Jackson 2)
            "tools.jackson.core:jackson-databind",
            "tools.jackson.core:jackson-core",
            "com.fasterxml.jackson.core:jackson-annotations",
            // victools jsonschema-generator and its own dependency
            "com.github.victools:jsonschema-generator",
            "com.github.victools:jsonschema-module-jackson",
            "com.fasterxml:classmate",
            // networknt json-schema-validator and its own dependencies
            "com.networknt:json-schema-validator",
            "com.ethlo.time:itu",
            "tools.jackson.dataformat:jackson-dataformat-yaml",
            "org.snakeyaml:snakeyaml-engine");

    // "   group:artifact:type[:classifier]:version:scope" (optionally followed by " -- module name")
    private static final Pattern LINE = Pattern.compile(
            "^\\s+([\\w.\\-]+):([\\w.\\-]+):[\\w.\\-]+(?::[\\w.\\-]+)?:[\\w.\\-]+:(compile|runtime)\\b.*$");

    @Test
    void coreRuntimeDependenciesAreExactlyTheAllowedList() throws IOException {
        Path list = Path.of("target", "runtime-dependencies.txt");
        assertThat(list)
                .as("written by maven-dependency-plugin (execution runtime-dependencies) before the tests; "
                        + "run the tests through Maven")
                .exists();
        Set<String> resolved = new TreeSet<>();
        for (String line : Files.readAllLines(list)) {
            Matcher m = LINE.matcher(line);
            if (m.matches()) {
                resolved.add(m.group(1) + ":" + m.group(2));
            }
        }
        assertThat(resolved)
                .as("toolgate-core's runtime dependencies (an addition belongs in an optional module, or "
                        + "here after a review)")
                .containsExactlyInAnyOrderElementsOf(new TreeSet<>(ALLOWED));
    }
}
