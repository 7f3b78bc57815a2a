package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.tool.ToolDescriptor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The declarations type-check with the real TypeScript compiler (pinned in src/test/tsc, installed
 * under target/tsc with npm ci), and a script written against them compiles while one that misuses a
 * tool does not. Skipped without Node.js and npm, except under {@code CI=true}, where it fails.
 */
class TscTest {

    private static Path work;

    @BeforeAll
    static void install() throws Exception {
        if (!onPath("node") || !onPath("npm")) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                Assertions.fail("TscTest needs node and npm under CI=true");
            }
            Assumptions.abort("node and npm are not on the PATH");
        }
        work = Path.of("target", "tsc").toAbsolutePath();
        Files.createDirectories(work);
        for (String file : List.of("package.json", "package-lock.json")) {
            Files.copy(Path.of("src", "test", "tsc", file), work.resolve(file), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        if (!Files.exists(work.resolve("node_modules/typescript/bin/tsc"))) {
            Result npm = exec(work, 300, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error");
            assertThat(npm.code).as("npm ci: %s", npm.output).isZero();
        }
    }

    @Test
    void theDeclarationsOfRealAndHostileToolsCompileAndAScriptAgainstThemToo() throws Exception {
        List<ToolDescriptor> tools = new ArrayList<>(DeclarationsTest.tools(DeclarationsTest.incidents(), DeclarationsTest.hostile()));
        Files.writeString(work.resolve("tools.d.ts"), Declarations.of(tools), StandardCharsets.UTF_8);
        Files.writeString(work.resolve("script.ts"), """
                const incident = tools.incident.create({systemId: "db", title: "Disk full", severity: "HIGH"});
                const id: string = incident.id.toUpperCase();
                const counts: number = incident.counts["open"] ?? 0;
                tools.incident["delete.hard"]({});
                tools["my-plugin"].odd({"we\\"ird*/name": "x"});
                try { tools.incident.list({}); } catch (e) { if (e instanceof DeniedError) { const t: string = e.tool; } }
                export {};
                """, StandardCharsets.UTF_8);
        Result ok = tsc("tools.d.ts", "script.ts");
        assertThat(ok.code).as("tsc: %s", ok.output).isZero();

        Files.writeString(work.resolve("wrong.ts"), """
                tools.incident.create({systemId: "db", title: "Disk full", severity: "SEVERE"});
                tools.incident.create({title: "no system"});
                export {};
                """, StandardCharsets.UTF_8);
        Result wrong = tsc("tools.d.ts", "wrong.ts");
        assertThat(wrong.code).isNotZero();
        assertThat(wrong.output).contains("wrong.ts(1,").contains("\"SEVERE\"").contains("wrong.ts(2,").contains("systemId");
    }

    @Test
    void cappedDeclarationsStillCompile() throws Exception {
        Files.writeString(work.resolve("capped.d.ts"), Declarations.of(DeclarationsTest.tools(DeclarationsTest.incidents(),
                DeclarationsTest.hostile()), Declarations.MIN_BYTES), StandardCharsets.UTF_8);
        Result ok = tsc("capped.d.ts");
        assertThat(ok.code).as("tsc: %s", ok.output).isZero();
    }

    private static Result tsc(String... files) throws Exception {
        List<String> command = new ArrayList<>(List.of("node", "node_modules/typescript/bin/tsc", "--noEmit", "--strict",
                "--target", "es2022", "--lib", "es2022", "--skipLibCheck", "false"));
        command.addAll(List.of(files));
        return exec(work, 120, command.toArray(String[]::new));
    }

    private record Result(int code, String output) {
    }

    private static Result exec(Path dir, int seconds, String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            Assertions.fail(String.join(" ", command) + " took longer than " + seconds + " s");
        }
        return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
