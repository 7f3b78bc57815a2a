package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link H2Recovery}: an H2 file left by a killed process in the state where H2's own open goes back to
 * an older version (a chunk written into a hole names its predecessor in the file header) opens at its
 * newest commit; a clean file, a file another store has open, and a file H2 reads right are left alone.
 * The file is written through H2's MVStore directly, and "killed" with {@code closeImmediately}, which
 * writes nothing more, as a SIGKILL.
 */
class H2RecoveryTest {

    @TempDir
    Path dir;

    @Test
    void aCommitWrittenIntoAHoleThatH2sOwnOpenMissesIsRecovered() {
        Path file = dir.resolve("holed.mv.db");
        long newest = writeIntoAHoleAndKill(file);

        try (MVStore asH2 = new MVStore.Builder().fileName(file.toString()).readOnly().open()) {
            MVMap<Integer, String> map = asH2.openMap("m");
            assertThat(asH2.getCurrentVersion()).as("H2's own open goes back (if this fails, H2 fixed it)")
                    .isLessThan(newest);
            assertThat(map.get(102)).isNull();
        }

        assertThat(H2Recovery.beforeOpen(url("holed"))).isEqualTo(H2Recovery.Outcome.RECOVERED);

        try (MVStore reopened = new MVStore.Builder().fileName(file.toString()).readOnly().open()) {
            MVMap<Integer, String> map = reopened.openMap("m");
            assertThat(reopened.getCurrentVersion()).isEqualTo(newest);
            assertThat(map.get(100)).isEqualTo("a");
            assertThat(map.get(101)).isEqualTo("b");
            assertThat(map.get(102)).as("the last commit before the kill").isEqualTo("c");
            assertThat(map.get(7)).as("older data").startsWith("xxx");
            assertThat(map.get(1)).as("removed").isNull();
        }
        assertThat(H2Recovery.beforeOpen(url("holed"))).as("closed cleanly by the recovery").isEqualTo(H2Recovery.Outcome.CLEAN);
    }

    @Test
    void aKilledFileWhoseNewestChunkH2FindsIsNotWritten() throws Exception {
        Path file = dir.resolve("appended.mv.db");
        MVStore store = new MVStore.Builder().fileName(file.toString()).autoCommitDisabled().open();
        MVMap<Integer, String> map = store.openMap("m");
        for (int i = 0; i < 5; i++) {
            map.put(i, "v" + i);
            store.commit();
        }
        store.closeImmediately();
        byte[] before = Files.readAllBytes(file);

        assertThat(H2Recovery.beforeOpen(url("appended"))).isEqualTo(H2Recovery.Outcome.H2_FINDS_NEWEST);
        assertThat(Files.readAllBytes(file)).as("untouched").isEqualTo(before);
    }

    @Test
    void aCleanFileIsNotOpened() throws Exception {
        Path file = dir.resolve("clean.mv.db");
        try (MVStore store = new MVStore.Builder().fileName(file.toString()).open()) {
            store.openMap("m").put(1, "one");
        }
        byte[] before = Files.readAllBytes(file);
        assertThat(new String(before, 0, 200, StandardCharsets.ISO_8859_1)).contains("clean:1");
        Map<String, String> header = H2Recovery.header(before, 0);
        assertThat(header).containsEntry("clean", "1");
        before[20] ^= 1; // a header whose checksum fails is not read
        assertThat(H2Recovery.header(before, 0)).isNull();

        assertThat(H2Recovery.beforeOpen(url("clean"))).isEqualTo(H2Recovery.Outcome.CLEAN);
    }

    @Test
    void aFileThisProcessHasOpenIsLeftAlone() {
        String url = url("open");
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).h2Compaction(Duration.ZERO, 80).build()) {
            assertThat(store.calls().countPending("nobody")).isZero();
            assertThat(H2Recovery.beforeOpen(JdbcStore.Builder.interruptSafe(url))).isEqualTo(H2Recovery.Outcome.IN_USE);
            assertThat(store.calls().countPending("nobody")).as("the store still works").isZero();
        }
    }

    @Test
    void nonFileDatabasesAreNotChecked() {
        assertThat(H2Recovery.beforeOpen("jdbc:h2:mem:recovery")).isEqualTo(H2Recovery.Outcome.NOT_A_FILE);
        assertThat(H2Recovery.beforeOpen("jdbc:h2:tcp://localhost:1/x")).isEqualTo(H2Recovery.Outcome.NOT_A_FILE);
        assertThat(H2Recovery.beforeOpen(url("absent"))).as("no file yet").isEqualTo(H2Recovery.Outcome.NOT_A_FILE);
        assertThat(H2Recovery.beforeOpen("jdbc:h2:file:" + dir.resolve("secret").toAbsolutePath() + ";CIPHER=AES"))
                .isEqualTo(H2Recovery.Outcome.NOT_A_FILE);
        assertThat(H2Recovery.beforeOpen("jdbc:postgresql://localhost/x")).isEqualTo(H2Recovery.Outcome.NOT_A_FILE);
    }

    private String url(String name) {
        return "jdbc:h2:file:" + dir.resolve(name).toAbsolutePath();
    }

    /**
     * Commits ten chunks of one big value each at the end of the file, removes the first five values (their
     * chunks die, and with a retention time of 0 their space is free), then commits three small values:
     * the first goes into the hole at the front, and the header H2 writes for it names its predecessor,
     * whose predicted next chunk is at the end of the file. Returns the version of the last commit.
     */
    private static long writeIntoAHoleAndKill(Path file) {
        MVStore store = new MVStore.Builder().fileName(file.toString()).autoCommitDisabled().open();
        store.setRetentionTime(0);
        store.setVersionsToKeep(0);
        MVMap<Integer, String> map = store.openMap("m");
        String big = "x".repeat(20_000);
        for (int i = 0; i < 10; i++) {
            map.put(i, big + i);
            store.commit();
        }
        for (int i = 0; i < 5; i++) {
            map.remove(i);
        }
        map.put(100, "a");
        store.commit();
        map.put(101, "b");
        store.commit();
        map.put(102, "c");
        store.commit();
        long version = store.getCurrentVersion();
        store.closeImmediately(); // nothing more is written: as if the process was killed here
        return version;
    }
}
