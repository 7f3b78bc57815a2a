package dev.toolgate.mcp.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The MCP reference server "everything" ({@code @modelcontextprotocol/server-everything}, pinned in
 * {@code src/test/everything}), installed with {@code npm ci} under {@code target/everything} on first
 * use. Without Node.js and npm the tests that need it are skipped, except under {@code CI=true},
 * where they fail.
 */
final class Everything {

    private static Path home;

    private Everything() {
    }

    /** The server's entry script, installing it first if need be. */
    static synchronized Path script() throws IOException, InterruptedException {
        if (home == null) {
            if (!onPath("node") || !onPath("npm")) {
                if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                    Assertions.fail("the remote MCP source tests need node and npm under CI=true");
                }
                Assumptions.abort("node and npm are not on the PATH: the tests against server-everything are skipped");
            }
            Path work = Path.of("target", "everything").toAbsolutePath();
            Files.createDirectories(work);
            for (String file : List.of("package.json", "package-lock.json")) {
                Files.copy(Path.of("src", "test", "everything", file), work.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
            if (!Files.exists(entry(work))) {
                Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
                        .directory(work.toFile()).redirectErrorStream(true).start();
                String output = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(npm.waitFor(300, TimeUnit.SECONDS)).as("npm ci finished").isTrue();
                assertThat(npm.exitValue()).as("npm ci: %s", output).isZero();
            }
            home = work;
        }
        return entry(home);
    }

    private static Path entry(Path work) {
        return work.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    }

    /** The command that starts the server over stdio. */
    static String[] stdioCommand() throws IOException, InterruptedException {
        return new String[] {"node", script().toString(), "stdio"};
    }

    /** A server over Streamable HTTP on its own port. Close it to stop it. */
    static final class Http implements AutoCloseable {
        final Process process;
        final int port;

        private Http(Process process, int port) {
            this.process = process;
            this.port = port;
        }

        static Http start() throws Exception {
            return start(freePort());
        }

        static Http start(int port) throws Exception {
            ProcessBuilder builder = new ProcessBuilder("node", script().toString(), "streamableHttp").redirectErrorStream(true);
            builder.environment().put("PORT", Integer.toString(port));
            Process process = builder.start();
            CountDownLatch listening = new CountDownLatch(1);
            List<String> lines = new ArrayList<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        synchronized (lines) {
                            lines.add(line);
                        }
                        if (line.contains("listening on port")) {
                            listening.countDown();
                        }
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            }, "everything-" + port);
            reader.setDaemon(true);
            reader.start();
            if (!listening.await(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                synchronized (lines) {
                    throw new IllegalStateException("server-everything did not start on port " + port + ": " + lines);
                }
            }
            return new Http(process, port);
        }

        URI endpoint() {
            return URI.create("http://127.0.0.1:" + port + "/mcp");
        }

        @Override
        public void close() {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
