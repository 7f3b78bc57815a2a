package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.MVStoreTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The embedded H2 file under a write-heavy load: governed reads (one audit row each) from real threads
 * on a file database. With the store's compaction the file comes back within 2x of its live data (the
 * size of a fully compacted copy, taken with {@code BACKUP TO} while the database is open), every call
 * succeeds while compaction runs, and every call's row is there; without it the same load leaves a
 * file many times its live data.
 */
class H2FileSizeTest {

    private static final int THREADS = 4;
    private static final Duration LOAD = Duration.ofSeconds(6);

    @TempDir
    Path dir;

    @Test
    void theCompactedFileStaysWithinTwiceItsLiveDataAndCallsWorkMeanwhile() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("compacted").toAbsolutePath();
        // the store's defaults: a round every 250 ms at 80%, a retention time of 2 s (H2's own 45 s
        // keeps up to 45 s of writes beyond the data)
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(THREADS + 2).build();
             Hosts host = Hosts.on(store)) {
            H2Compaction compaction = store.compaction();
            assertThat(compaction).as("an H2 file gets a compaction").isNotNull();
            Load load = Load.run(host, LOAD, compaction);

            assertThat(load.failures).as("calls while compacting").isEmpty();
            assertThat(load.calls.get()).as("calls made").isGreaterThan(200);
            assertThat(load.compactions).as("compaction rounds that worked while the calls ran").isPositive();
            assertThat(rows(url)).as("every call's audit row").isEqualTo(load.calls.get());

            long live = liveBytes(url);
            Path file = dir.resolve("compacted.mv.db");
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (Files.size(file) > 2 * live && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(Files.size(file)).as("file of %d calls vs twice its live data (%d bytes; compaction: %d rounds,"
                    + " %d that worked, %d moves; %s)", load.calls.get(), live, compaction.rounds(), compaction.compactions(),
                    compaction.moves(), compaction.state())
                    .isLessThanOrEqualTo(2 * live);
            assertThat(host.gate().call(Hosts.ctx(Hosts.READER), "notes.list", "{}")).isInstanceOf(Executed.class);
        }
        // reopened after compaction (and H2's own at close): every row is still there
        try (JdbcStore reopened = JdbcStore.builder().url(url).poolSize(2).build()) {
            assertThat(reopened.calls().countPending("nobody")).isZero();
        }
        assertThat(rows(url)).isGreaterThan(200);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "jdbc:h2:interruptsafe:/srv/tg | jdbc:h2:interruptsafe:/srv/tg;PAGE_SIZE=4096;ANALYZE_AUTO=0",
            "jdbc:h2:interruptsafe:/srv/tg;MODE=PostgreSQL | jdbc:h2:interruptsafe:/srv/tg;MODE=PostgreSQL;PAGE_SIZE=4096;ANALYZE_AUTO=0",
            "jdbc:h2:async:/srv/tg | jdbc:h2:async:/srv/tg",
            "jdbc:h2:interruptsafe:/srv/tg;page_size=8192 | jdbc:h2:interruptsafe:/srv/tg;page_size=8192",
            "jdbc:h2:interruptsafe:/srv/tg;PAGE_SIZE = 16384 | jdbc:h2:interruptsafe:/srv/tg;PAGE_SIZE = 16384",
            "jdbc:h2:nio:/srv/tg | jdbc:h2:nio:/srv/tg",
            "jdbc:h2:file:/srv/tg | jdbc:h2:file:/srv/tg",
            "jdbc:h2:mem:tg | jdbc:h2:mem:tg",
            "jdbc:h2:tcp://db:9092/~/tg | jdbc:h2:tcp://db:9092/~/tg",
            "jdbc:h2:file:~/demo;AUTO_SERVER=TRUE | jdbc:h2:file:~/demo;AUTO_SERVER=TRUE",
            "jdbc:postgresql://db/app | jdbc:postgresql://db/app"})
    void anInterruptSafeFileUrlGetsSmallPagesUnlessItNamesAPageSize(String given, String opened) {
        assertThat(JdbcStore.Builder.smallPages(given)).isEqualTo(opened);
    }

    @Test
    void theStoreOpensItsFileWithSmallPagesAndKeepsAPageSizeTheUrlNames() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("paged").toAbsolutePath();
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).build()) {
            assertThat(pageSize(url)).as("H2's page size of the store's file database").isEqualTo(JdbcStore.H2_PAGE_SIZE);
        }
        String named = "jdbc:h2:file:" + dir.resolve("named").toAbsolutePath() + ";PAGE_SIZE=8192";
        try (JdbcStore store = JdbcStore.builder().url(named).poolSize(2).build()) {
            assertThat(pageSize(named)).as("the page size the URL names").isEqualTo(8192);
        }
    }

    /** H2's page size of the open database at {@code url}, read through a connection that joins it. */
    private static int pageSize(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(JdbcStore.Builder.interruptSafe(url))) {
            return ((SessionLocal) c.unwrap(JdbcConnection.class).getSession()).getDatabase().getPageSize();
        }
    }

    @Test
    void anIdleFileGetsOnePassAndThenStopsWriting() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("idle").toAbsolutePath();
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(THREADS + 2).build();
             Hosts host = Hosts.on(store)) {
            H2Compaction compaction = store.compaction();
            Load load = Load.run(host, LOAD, compaction);
            assertThat(load.failures).isEmpty();
            // settled: no commit for 3 s (12 rounds); a round that rewrote whatever is under 95% live at
            // every idle round never settled (each rewrite's commit left its own chunk under 95%)
            long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
            long version = compaction.version();
            long stableSince = System.nanoTime();
            // (on a busy machine the rounds that settle an idle period come late: wait for its pass too)
            while ((System.nanoTime() - stableSince < Duration.ofSeconds(3).toNanos() || compaction.idlePasses() == 0)
                    && System.nanoTime() < deadline) {
                Thread.sleep(100);
                long now = compaction.version();
                if (now != version) {
                    version = now;
                    stableSince = System.nanoTime();
                }
            }
            assertThat(System.nanoTime() - stableSince).as("time with no commit at the end (%s, %d idle passes)",
                    compaction.state(), compaction.idlePasses()).isGreaterThanOrEqualTo(Duration.ofSeconds(3).toNanos());
            assertThat(compaction.idlePasses()).as("the settled idle period's pass rewrote chunks under 95%% live (%s)",
                    compaction.state()).isEqualTo(1);
            long live = liveBytes(url);
            assertThat(Files.size(dir.resolve("idle.mv.db"))).as("the settled file vs twice its live data (%d bytes; %s)",
                    live, compaction.state()).isLessThanOrEqualTo(2 * live);
            // a call ends the idle period: the next settled one gets its pass again
            assertThat(host.gate().call(Hosts.ctx(Hosts.READER), "notes.list", "{}")).isInstanceOf(Executed.class);
        }
    }

    @Test
    void withoutCompactionTheSameLoadLeavesAFileManyTimesItsLiveData() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("plain").toAbsolutePath();
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(THREADS + 2)
                .h2Compaction(Duration.ZERO, 80, Duration.ZERO).build();
             Hosts host = Hosts.on(store)) {
            assertThat(store.compaction()).isNull();
            Load load = Load.run(host, LOAD, null);
            assertThat(load.failures).isEmpty();
            Thread.sleep(1000); // what compaction would have done by now, it would have done
            long live = liveBytes(url);
            assertThat(Files.size(dir.resolve("plain.mv.db"))).as("the file without compaction")
                    .isGreaterThan(4 * live);
        }
    }

    /** Governed reads from real threads for a while. */
    private static final class Load {
        final AtomicLong calls = new AtomicLong();
        final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        /** Rounds of the compaction that worked while the calls still ran. */
        long compactions;

        static Load run(Hosts host, Duration length, H2Compaction compaction) throws InterruptedException {
            Load load = new Load();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                CallContext ctx = Hosts.ctx(Hosts.READER).withSession("load-" + t);
                Thread thread = new Thread(() -> {
                    while (!stop.get()) {
                        try {
                            if (!(host.gate().call(ctx, "notes.list", "{}") instanceof Executed)) {
                                load.failures.add("not executed");
                            }
                        } catch (RuntimeException e) {
                            load.failures.add(e.toString());
                        }
                        load.calls.incrementAndGet();
                    }
                }, "h2-file-load-" + t);
                thread.start();
                threads.add(thread);
            }
            // at least `length`, and on a loaded machine on until 250 calls were made (at most 10 x length)
            long start = System.nanoTime();
            Thread.sleep(length.toMillis());
            while (load.calls.get() <= 250 && System.nanoTime() - start < length.toNanos() * 10) {
                Thread.sleep(100);
            }
            load.compactions = compaction == null ? 0 : compaction.compactions();
            stop.set(true);
            for (Thread thread : threads) {
                thread.join();
            }
            return load;
        }
    }

    private static long rows(String url) throws SQLException {
        // the name the store opened the file under (H2 opens a file once per process)
        try (Connection c = DriverManager.getConnection(JdbcStore.Builder.interruptSafe(url)); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM toolgate_call")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The size of a fully compacted copy of the open database's file. */
    private long liveBytes(String url) throws SQLException, IOException {
        Path zip = dir.resolve("backup.zip");
        Path copy = dir.resolve("copy.mv.db");
        try (Connection c = DriverManager.getConnection(JdbcStore.Builder.interruptSafe(url)); Statement s = c.createStatement()) {
            s.execute("BACKUP TO '" + zip.toAbsolutePath() + "'");
        }
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                if (entry.getName().endsWith(".mv.db")) {
                    Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        MVStoreTool.compact(copy.toAbsolutePath().toString(), false);
        long size = Files.size(copy);
        Files.delete(copy);
        Files.delete(zip);
        return size;
    }
}
