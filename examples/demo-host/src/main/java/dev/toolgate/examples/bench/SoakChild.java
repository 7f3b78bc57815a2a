package dev.toolgate.examples.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The soaked server process of {@link McpSoakCheck}: waiting for its endpoint, full GCs through jcmd and
 * the heap they leave (from its GC log), its resident memory, stopping it, deleting its files.
 */
final class SoakChild {

    private static final Pattern LISTENING = Pattern.compile("Toolgate demo MCP server on (http://\\S+)");
    private static final Pattern FULL_GC = Pattern.compile("GC\\((\\d+)\\) Pause Full \\(Diagnostic Command\\) \\d+M->\\d+M");
    private static final Pattern HEAP_USED = Pattern.compile("GC\\((\\d+)\\)\\s+garbage-first heap\\s+total \\d+K, used (\\d+)K");

    private SoakChild() {
    }

    /** Runs a full GC in the child and returns the heap left after it (KB), or -1 if that did not work. */
    static long fullGc(Path jcmd, long pid, Path gcLog, PrintStream out) throws IOException, InterruptedException {
        long before = fullGcs(gcLog).size();
        Path output = gcLog.resolveSibling("jcmd.out");
        Process process = new ProcessBuilder(jcmd.toString(), String.valueOf(pid), "GC.run").redirectErrorStream(true)
                .redirectOutput(output.toFile()).start();
        boolean ended = process.waitFor(60, TimeUnit.SECONDS); // a server out of memory may not answer
        if (!ended || process.exitValue() != 0) {
            if (!ended) {
                process.destroyForcibly();
            }
            out.println("  jcmd GC.run " + (ended ? "failed: " + Files.readString(output, StandardCharsets.UTF_8).strip()
                    : "did not end within 60 s"));
            return -1;
        }
        List<Long> after = fullGcs(gcLog);
        return after.size() > before ? after.get(after.size() - 1) : -1;
    }

    /**
     * The heap after each full collection jcmd asked for, from the GC log, in KB: the collection's id
     * from its {@code gc} line ("GC(12) Pause Full (Diagnostic Command)"), then the last heap summary
     * that collection logged at {@code gc+heap=debug} (the one after it; "used 17234K").
     */
    private static List<Long> fullGcs(Path gcLog) throws IOException {
        if (!Files.exists(gcLog)) {
            return List.of();
        }
        String text = Files.readString(gcLog, StandardCharsets.UTF_8);
        Map<String, Long> usedById = new LinkedHashMap<>();
        Matcher used = HEAP_USED.matcher(text);
        while (used.find()) {
            usedById.put(used.group(1), Long.parseLong(used.group(2)));
        }
        List<Long> sizes = new ArrayList<>();
        Matcher full = FULL_GC.matcher(text);
        while (full.find()) {
            Long kb = usedById.get(full.group(1));
            if (kb != null) {
                sizes.add(kb);
            }
        }
        return sizes;
    }

    static URI awaitEndpoint(Process server, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            String text = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            Matcher m = LISTENING.matcher(text);
            if (m.find()) {
                return new URI(m.group(1));
            }
            if (!server.isAlive()) {
                throw new IllegalStateException("the server exited with " + server.exitValue() + ":\n" + text);
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the server did not start within 120 s; its log: " + log);
    }

    static void stop(Process server) throws InterruptedException {
        server.destroy();
        if (!server.waitFor(20, TimeUnit.SECONDS)) {
            server.destroyForcibly();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    static String rssMb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return String.valueOf(Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or the process is gone
        }
        return "-";
    }

    static void deleteTree(Path dir, PrintStream out) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.deleteIfExists(file);
            }
        } catch (IOException | RuntimeException e) {
            out.println("could not delete " + dir + ": " + e);
        }
    }
}
