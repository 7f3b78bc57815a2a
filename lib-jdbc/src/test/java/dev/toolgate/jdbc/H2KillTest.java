package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every commit acknowledged by a process writing to an H2 file survives that process being killed with
 * SIGKILL, with the store's compaction running and its default retention time: a child JVM
 * ({@link H2KillHost}) proposes and applies tokens from several threads, printing each call's id once
 * {@code apply} returned; it is killed at a random moment, while writing or while only the compaction
 * runs; the test reopens the file and finds every printed call applied. Repeated on the same file, whose
 * chunks are then rewritten, moved and reused. Before the store reopens the file the test runs the
 * store's check ({@link H2Recovery}) itself and prints what it found. {@code -Dtoolgate.h2kill.iterations=N}
 * (default 4) and {@code -Dtoolgate.h2kill.retention-ms=M} (default: the store's) run it longer or at
 * another retention; {@code -Dtoolgate.h2kill.h2-only=true} opens the file with H2 alone first (what
 * H2's own open keeps after a kill, which loses calls: see the module's README);
 * {@code -Dtoolgate.h2kill.seed=S} repeats a run's choices.
 */
class H2KillTest {

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedCallSurvivesTheWriterBeingKilled() throws Exception {
        int iterations = Integer.getInteger("toolgate.h2kill.iterations", 4);
        long retention = Long.getLong("toolgate.h2kill.retention-ms", H2Compaction.DEFAULT_RETENTION.toMillis());
        long seed = Long.getLong("toolgate.h2kill.seed", System.nanoTime());
        Random random = new Random(seed);
        String url = "jdbc:h2:file:" + dir.resolve("killed").toAbsolutePath();
        boolean h2Only = Boolean.getBoolean("toolgate.h2kill.h2-only");
        java.util.Map<H2Recovery.Outcome, Integer> outcomes = new java.util.EnumMap<>(H2Recovery.Outcome.class);
        long total = 0;
        for (int i = 0; i < iterations; i++) {
            int threads = 1 + random.nextInt(4);
            long writeMillis = 300 + random.nextInt(3000);
            boolean whileWriting = random.nextBoolean();
            long killAfter = whileWriting ? 200 + random.nextInt((int) writeMillis) : random.nextInt(1500);
            String what = "iteration " + i + " (seed " + seed + ", retention " + retention + " ms, " + threads
                    + " threads, " + writeMillis + " ms of writes, killed " + (whileWriting ? killAfter + " ms into them"
                    : killAfter + " ms after them") + ")";
            List<String> acknowledged = runAndKill(url, retention, threads, writeMillis, whileWriting, killAfter, what);
            total += acknowledged.size();
            String keep = System.getProperty("toolgate.h2kill.keep");
            if (keep != null) {
                Files.copy(dir.resolve("killed.mv.db"), Path.of(keep), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            if (h2Only) {
                // H2's own open first, as any tool would: what it settles on is what the file keeps
                try (java.sql.Connection c = java.sql.DriverManager.getConnection(url)) {
                    c.createStatement().execute("SELECT 1");
                }
            } else {
                outcomes.merge(H2Recovery.beforeOpen(JdbcStore.Builder.interruptSafe(url)), 1, Integer::sum);
            }
            try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).build()) {
                Toolgate gate = CrashHost.gate(store, Duration.ofSeconds(30), callId -> { });
                List<String> lost = new ArrayList<>();
                for (String id : acknowledged) {
                    Optional<CallRecord> call = gate.findCall(id);
                    if (call.isEmpty() || call.get().status() != CallStatus.APPLIED) {
                        lost.add(id + "=" + call.map(c -> c.status().toString()).orElse("missing"));
                    }
                }
                assertThat(lost).as("%s: of %d acknowledged calls, these are lost (file %d bytes)", what,
                        acknowledged.size(), Files.size(dir.resolve("killed.mv.db"))).isEmpty();
                gate.close();
            }
        }
        System.out.println("H2KillTest: " + iterations + " kills, " + total + " calls acknowledged, retention " + retention
                + " ms, " + (h2Only ? "opened by H2 alone" : "recovery outcomes " + outcomes));
        assertThat(total).as("calls acknowledged over all iterations").isPositive();
    }

    /** Runs the child, kills it as told, and returns the ids it acknowledged. */
    private List<String> runAndKill(String url, long retention, int threads, long writeMillis, boolean whileWriting,
                                    long killAfter, String what) throws Exception {
        Path stderr = dir.resolve("child-stderr.txt");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), H2KillHost.class.getName(),
                url, Long.toString(retention), Integer.toString(threads), Long.toString(writeMillis))
                .redirectError(stderr.toFile()).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("(reading the child's output failed: " + e + ")");
            }
        }, "h2kill-child-stdout");
        reader.setDaemon(true);
        reader.start();
        List<String> output = new ArrayList<>();
        try {
            String first = waitFor(lines, output, child, whileWriting ? H2KillHost.ACK : H2KillHost.IDLE, stderr, what);
            if (first == null) {
                throw new AssertionError(what + ": the child did not get there" + childOutput(output, stderr));
            }
            Thread.sleep(killAfter);
            assertThat(child.isAlive()).as(what + ": alive before the kill" + childOutput(output, stderr)).isTrue();
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
        reader.join(10_000);
        lines.drainTo(output);
        return output.stream().filter(l -> l.startsWith(H2KillHost.ACK)).map(l -> l.substring(H2KillHost.ACK.length()))
                .toList();
    }

    private static String waitFor(BlockingQueue<String> lines, List<String> output, Process child, String prefix,
                                  Path stderr, String what) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line == null) {
                if (!child.isAlive()) {
                    throw new AssertionError(what + ": the child exited (" + child.exitValue() + ")"
                            + childOutput(output, stderr));
                }
                continue;
            }
            output.add(line);
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        return null;
    }

    private static String childOutput(List<String> stdout, Path stderr) {
        String err;
        try {
            err = Files.exists(stderr) ? Files.readString(stderr) : "";
        } catch (IOException e) {
            err = "(unreadable: " + e + ")";
        }
        List<String> tail = stdout.subList(Math.max(0, stdout.size() - 20), stdout.size());
        return "\n--- child stdout (last lines) ---\n" + String.join("\n", tail) + "\n--- child stderr ---\n"
                + (err.length() > 8000 ? "..." + err.substring(err.length() - 8000) : err);
    }
}
