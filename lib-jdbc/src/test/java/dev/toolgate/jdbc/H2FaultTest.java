package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.spi.StoreFault;
import dev.toolgate.spi.StoreUnavailableException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded H2 file under faults of its disk and its lock: a full file system (a 6 MB tmpfs), and a
 * file held by another process. Each ends in a typed error or a clean recovery, never in a store that
 * answers wrong: every call answered as a success has its audit row once the disk has room again.
 */
class H2FaultTest {

    @TempDir
    Path dir;

    @Test
    void aFullDiskRefusesCallsTypedAndTheStoreRecoversWhenThereIsRoomAgain() throws Exception {
        Path mount = dir.resolve("small");
        Files.createDirectories(mount);
        mountTmpfs(mount, "6m");
        try {
            String url = "jdbc:h2:file:" + mount.resolve("db");
            List<String> answered = new ArrayList<>();
            int refused = 0;
            List<StoreFault> faults = new ArrayList<>();
            try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).connectionTimeout(Duration.ofSeconds(1)).build();
                 Hosts host = Hosts.on(store)) {
                CallContext ctx = Hosts.ctx(Hosts.READER);
                answered.add(((Executed) host.gate().call(ctx, "notes.list", "{}")).callId());
                Path filler = mount.resolve("filler");
                fill(filler);
                long start = System.nanoTime();
                for (int i = 0; i < 200 && refused < 20; i++) {
                    try {
                        answered.add(((Executed) host.gate().call(ctx, "notes.list", "{}")).callId());
                    } catch (StoreUnavailableException e) {
                        refused++;
                        faults.add(e.fault());
                    }
                }
                assertThat(refused).as("calls refused on a full disk").isPositive();
                assertThat(faults).as("typed by what failed").contains(StoreFault.DISK_FULL)
                        .allSatisfy(f -> assertThat(f).isIn(StoreFault.DISK_FULL, StoreFault.UNREACHABLE, StoreFault.CORRUPT));
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));

                Files.delete(filler);
                // room again: the store recovers by itself (the pool opens the file anew), or the host reopens it
                String recovered = null;
                for (int i = 0; i < 50 && recovered == null; i++) {
                    try {
                        recovered = ((Executed) host.gate().call(ctx, "notes.list", "{}")).callId();
                    } catch (StoreUnavailableException e) {
                        FaultLoad.sleep(100);
                    }
                }
                System.err.printf("FAULT H2 disk full: %d calls answered, %d refused (%s), recovered in place: %s%n",
                        answered.size(), refused, faults.stream().distinct().toList(), recovered != null);
                if (recovered != null) {
                    answered.add(recovered);
                }
            }
            // reopened: nothing answered as a success is missing, nothing answers wrong
            try (JdbcStore store = JdbcStore.builder().url(url).build(); Hosts host = Hosts.on(store)) {
                for (String id : answered) {
                    assertThat(host.gate().findCall(id)).as("audit row of answered call %s", id)
                            .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(CallStatus.EXECUTED));
                }
                assertThat(host.gate().call(Hosts.ctx(Hosts.READER), "notes.list", "{}")).isInstanceOf(Executed.class);
            }
        } finally {
            run(List.of("umount", "-l", mount.toString()));
        }
    }

    @Test
    void aFileLockedByAnotherProcessIsATypedErrorAndOpensOnceItIsFree() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("locked");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), H2KillHost.class.getName(),
                url, "2000", "1", "0").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                do {
                    line = out.readLine();
                } while (line != null && !line.equals(H2KillHost.IDLE));
                assertThat(line).as("the other process holds the file").isEqualTo(H2KillHost.IDLE);
            }
            Throwable refused = catchThrowable(() -> JdbcStore.builder().url(url).connectionTimeout(Duration.ofSeconds(1)).build());
            assertThat(refused).isInstanceOf(StoreUnavailableException.class).hasMessageStartingWith("Toolgate store unavailable");
            assertThat(((StoreUnavailableException) refused).fault()).isEqualTo(StoreFault.LOCKED);
            assertThat(((StoreUnavailableException) refused).retryable()).isFalse();
        } finally {
            holder.destroyForcibly();
            holder.waitFor(10, TimeUnit.SECONDS);
        }
        try (JdbcStore store = JdbcStore.builder().url(url).build(); Hosts host = Hosts.on(store)) {
            assertThat(host.gate().call(Hosts.ctx(Hosts.READER), "notes.list", "{}")).isInstanceOf(Executed.class);
        }
    }

    /** Writes {@code file} until the file system is full. */
    private static void fill(Path file) throws IOException {
        byte[] block = new byte[64 * 1024];
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(block);
            }
        } catch (IOException full) {
            assertThat(full.getMessage()).containsIgnoringCase("space");
        }
    }

    /** A small tmpfs at {@code mount}, or skips (fails under CI=true) where mounting is not permitted. */
    private static void mountTmpfs(Path mount, String size) throws Exception {
        String output = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", mount.toString()));
        if (output != null) {
            String why = "cannot mount a small tmpfs for the disk-full test (root needed): " + output;
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                Assertions.fail(why);
            }
            Assumptions.abort(why);
        }
    }

    /** Runs {@code command}; null if it succeeded, else its output. */
    private static String run(List<String> command) throws Exception {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return e.getMessage();
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return process.waitFor() == 0 ? null : output.strip();
    }
}
