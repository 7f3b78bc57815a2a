package dev.toolgate.examples.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.examples.PortInUse;
import dev.toolgate.mcp.ToolgateMcpServer;
import dev.toolgate.spi.InMemoryStore;
import java.io.IOException;
import java.net.BindException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every server the examples ship, started on a port another server already holds, says so in one line
 * (which server, which port, the option that changes it) and exits with status 1: no stack trace. Each
 * runs as its own process, as a person starts it, with INFO logging on.
 */
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PortInUseTest {

    @Test
    void eachServerOnATakenPortSaysSoInOneLine() throws Exception {
        try (InMemoryStore store = new InMemoryStore();
             Toolgate gate = ConformanceServer.gate(store);
             ToolgateMcpServer first = ConformanceServer.start(gate, 0)) {
            int port = first.endpoint().orElseThrow().getPort();
            String taken = String.valueOf(port);
            Map<String, List<String>> runs = Map.of(
                    "--port", List.of(McpDemoServer.class.getName(), "--transport", "http", "--db", "memory", "--port", taken),
                    "--console-port", List.of(McpDemoServer.class.getName(), "--transport", "http", "--db", "memory", "--port", "0",
                            "--console-port", taken),
                    "--metrics-port", List.of(McpDemoServer.class.getName(), "--transport", "http", "--db", "memory", "--port", "0",
                            "--metrics-port", taken),
                    "conformance --port", List.of(ConformanceServer.class.getName(), "--port", taken),
                    "conformance servlet --port", List.of(ConformanceServer.class.getName(), "--transport", "servlet", "--port", taken));
            Map<String, Process> children = new java.util.LinkedHashMap<>();
            for (Map.Entry<String, List<String>> run : runs.entrySet()) {
                children.put(run.getKey(), start(run.getValue()));
            }
            for (Map.Entry<String, Process> child : children.entrySet()) {
                String what = child.getKey();
                Process process = child.getValue();
                String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(what + " ends").isTrue();
                assertThat(process.exitValue()).as(what + ":\n" + output).isEqualTo(1);
                List<String> errors = Arrays.stream(output.split("\\R")).filter(l -> l.startsWith("error:")).toList();
                String option = what.substring(what.indexOf("--"));
                String server = what.startsWith("conformance") ? "the conformance host"
                        : Map.of("--port", "the MCP server", "--console-port", "the operator console",
                                "--metrics-port", "the metrics endpoint").get(option);
                assertThat(errors).as(what + ":\n" + output).containsExactly("error: " + server + " cannot start: port " + port
                        + " is already in use on 127.0.0.1 (is another server still running?); choose another with "
                        + option + " N, or " + option + " 0 for any free port");
                assertThat(output).as(what).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("ERROR")
                        .doesNotContain("WARN");
            }
        }
    }

    @Test
    void otherBindFailuresNameTheReasonAndTheOption() {
        assertThat(PortInUse.of("the MCP server", "127.0.0.1", 80, "--port", new BindException("Permission denied")))
                .hasMessage("the MCP server cannot listen on 127.0.0.1:80: Permission denied; choose another port with --port N")
                .hasNoCause();
        assertThat(PortInUse.of("x", "h", 1, "--port", new BindException("Address already in use")).getStackTrace()).isEmpty();
        assertThat(PortInUse.bindFailure(new java.io.UncheckedIOException(new IOException("wrapped",
                new BindException("Address already in use"))))).isNotNull();
        assertThat(PortInUse.bindFailure(new IOException("Connection reset"))).isNull();
    }

    private static Process start(List<String> mainAndArgs) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "-cp", System.getProperty("java.class.path")));
        command.addAll(mainAndArgs);
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }
}
