package dev.toolgate.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * CI runs the README's demo command exactly as written there (.ci/run checks its output): the two
 * copies must not drift apart. The command must not be quiet (-q): the quick start shows progress.
 */
class QuickStartCommandTest {

    @Test
    void ciRunsTheReadmesDemoCommand() throws Exception {
        Path root = Path.of("../..");
        String readme = Files.readString(root.resolve("README.md"));
        String quickStart = readme.substring(readme.indexOf("## Quick start"), readme.indexOf("## Adding Toolgate"));
        List<String> commands = quickStart.lines().filter(l -> l.startsWith("./mvnw") && l.contains("exec:java"))
                .map(l -> l.replaceAll("\\s+#.*$", "").strip()).toList();
        assertThat(commands).hasSize(1);
        String command = commands.get(0);
        assertThat(command).contains("-ntp").doesNotContain(" -q ");
        List<String> ci = Files.readAllLines(root.resolve(".ci/run")).stream()
                .filter(l -> l.contains("exec:java") && l.contains(">\"$log\"")).map(String::strip).toList();
        assertThat(ci).hasSize(1);
        assertThat(ci.get(0)).startsWith(command + " >\"$log\" 2>&1");
    }
}
