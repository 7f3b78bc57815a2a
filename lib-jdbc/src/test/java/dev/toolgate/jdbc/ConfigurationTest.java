package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.toolgate.spi.StoreSettings;
import dev.toolgate.spi.ToolgateStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Builder and provider settings, defaults, and a host's data source passed through untouched. */
class ConfigurationTest {

    @TempDir
    Path home;

    @Test
    void defaultsAreDocumentedConstants() {
        assertThat(JdbcStore.DEFAULT_URL).isEqualTo("jdbc:h2:file:~/.toolgate/toolgate");
        assertThat(JdbcStore.DEFAULT_POOL_SIZE).isEqualTo(10);
        assertThat(JdbcStore.DEFAULT_CONNECTION_TIMEOUT).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void withoutAnyConfigurationTheStoreIsAnH2FileUnderTheUsersHome() throws Exception {
        // H2 reads user.home once per JVM, so the default location is checked in a JVM of its own
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Duser.home=" + home.toAbsolutePath(), "-cp",
                System.getProperty("java.class.path"), DefaultStoreMain.class.getName())
                .redirectErrorStream(true).start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(output).isZero();
        // opened on the file system interruptsafe:, which no interrupt can close (H2InterruptTest), with 4 KB pages
        assertThat(output).contains("JdbcStore[H2 jdbc:h2:interruptsafe:~/.toolgate/toolgate;PAGE_SIZE=4096;ANALYZE_AUTO=0]");
        assertThat(home.resolve(".toolgate/toolgate.mv.db")).exists();
    }

    /** Opens the store the provider opens with no settings at all. */
    static final class DefaultStoreMain {
        public static void main(String[] args) {
            try (ToolgateStore store = new JdbcStoreProvider().open(StoreSettings.only(Map.of()))) {
                System.out.println(store);
            }
        }
    }

    @Test
    void theProviderReadsUrlPoolSizeAndSchemaMode() {
        String url = TestStores.h2MemoryUrl("provider");
        StoreSettings validateOnEmpty = StoreSettings.only(Map.of("jdbc.url", url, "jdbc.schema", "validate"));
        assertThatThrownBy(() -> new JdbcStoreProvider().open(validateOnEmpty))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("not installed");

        try (ToolgateStore store = new JdbcStoreProvider().open(StoreSettings.only(Map.of("jdbc.url", url, "jdbc.pool-size", "2",
                "jdbc.schema", "APPLY")))) {
            assertThat(store).hasToString("JdbcStore[H2 " + url + "]");
            assertThat(store.calls().countPending("s")).isZero();
        }
        assertThatThrownBy(() -> new JdbcStoreProvider().open(StoreSettings.only(Map.of("jdbc.url", url, "jdbc.schema", "maybe"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("apply, validate or none");
        assertThatThrownBy(() -> new JdbcStoreProvider().open(StoreSettings.only(Map.of("jdbc.url", url, "jdbc.pool-size", "many"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jdbc.pool-size");
    }

    @Test
    void theH2CompactionRunsForAnH2FileOnlyAndItsSettingsAreCheckedByName() {
        String file = "jdbc:h2:file:" + home.resolve("compacted").toAbsolutePath();
        try (JdbcStore store = (JdbcStore) new JdbcStoreProvider().open(StoreSettings.only(Map.of("jdbc.url", file,
                "jdbc.h2.compact-interval-ms", "50", "jdbc.h2.compact-fill-rate", "60")))) {
            assertThat(store.compaction()).as("an H2 file").isNotNull();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (store.compaction().rounds() < 2 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(store.compaction().rounds()).as("rounds every 50 ms").isGreaterThanOrEqualTo(2);
            // not 0: at 0 H2 frees a chunk a COMMIT may still be reading (see H2Compaction.DEFAULT_RETENTION)
            assertThat(store.compaction().retentionMillis()).as("H2's retention time, by default")
                    .isEqualTo(2000).isGreaterThanOrEqualTo((int) H2Compaction.SAFE_RETENTION.toMillis());
        }
        try (JdbcStore store = (JdbcStore) new JdbcStoreProvider().open(StoreSettings.only(Map.of("jdbc.url", file,
                "jdbc.h2.retention-time-ms", "45000")))) {
            assertThat(store.compaction().retentionMillis()).as("H2's retention time, configured").isEqualTo(45000);
        }
        try (JdbcStore off = (JdbcStore) new JdbcStoreProvider().open(StoreSettings.only(Map.of("jdbc.url", file,
                "jdbc.h2.compact-interval-ms", "0")));
             JdbcStore memory = JdbcStore.builder().url(TestStores.h2MemoryUrl("no-compaction")).build()) {
            assertThat(off.compaction()).as("switched off").isNull();
            assertThat(memory.compaction()).as("an in-memory H2 database").isNull();
        }
        for (Map<String, String> bad : java.util.List.of(Map.of("jdbc.h2.compact-interval-ms", "-5"),
                Map.of("jdbc.h2.compact-fill-rate", "0"), Map.of("jdbc.h2.compact-fill-rate", "100"),
                Map.of("jdbc.h2.retention-time-ms", "-1"))) {
            Map<String, String> settings = new java.util.HashMap<>(bad);
            settings.put("jdbc.url", file);
            String key = bad.keySet().iterator().next();
            assertThatThrownBy(() -> new JdbcStoreProvider().open(StoreSettings.only(settings)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(key)
                    .hasMessageContaining("(got " + bad.get(key) + ")");
        }
        assertThatThrownBy(() -> JdbcStore.builder().h2Compaction(Duration.ofMillis(-1), 80))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("interval");
        assertThatThrownBy(() -> JdbcStore.builder().h2Compaction(Duration.ofNanos(10), 80))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 ms");
        assertThatThrownBy(() -> JdbcStore.builder().h2Compaction(Duration.ZERO, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fill rate");
    }

    @Test
    void theBuilderRejectsContradictionsAndNonsense() {
        HikariDataSource ds = TestStores.pool(TestStores.h2MemoryUrl("contradiction"), 1);
        try {
            assertThatThrownBy(() -> JdbcStore.builder().dataSource(ds).url("jdbc:h2:mem:x").build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("either a data source or a URL");
            assertThatThrownBy(() -> JdbcStore.builder().poolSize(0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> JdbcStore.builder().connectionTimeout(Duration.ofMillis(10)))
                    .isInstanceOf(IllegalArgumentException.class);
        } finally {
            ds.close();
        }
    }

    @Test
    void theBuilderIsImmutable() {
        JdbcStore.Builder base = JdbcStore.builder().schema(SchemaMode.VALIDATE);
        String url = TestStores.h2MemoryUrl("immutable");
        JdbcStore.Builder applying = base.url(url).schema(SchemaMode.APPLY);
        try (JdbcStore store = applying.build()) {
            assertThat(store.calls().countPending("s")).isZero();
        }
        assertThatThrownBy(() -> base.url(url).build()).as("base still validates")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("not installed");
    }

    @Test
    void passwordsNeverAppearInTheDescription() {
        String url = TestStores.h2MemoryUrl("secret") + ";PASSWORD=hunter2";
        assertThat(JdbcStore.Builder.redact(url)).doesNotContain("hunter2").endsWith("PASSWORD=***");
        assertThat(JdbcStore.Builder.redact("jdbc:postgresql://h/db?user=a&password=hunter2&ssl=true"))
                .isEqualTo("jdbc:postgresql://h/db?user=a&password=***&ssl=true");
    }

    @Test
    void aHostDataSourceIsUsedAsIsNoPoolIsCreatedAndItStaysOpen() throws Exception {
        HikariDataSource hostPool = TestStores.pool(TestStores.h2MemoryUrl("host"), 3);
        try {
            long poolThreadsBefore = toolgatePoolThreads();
            JdbcStore store = JdbcStore.builder().dataSource(hostPool).build();
            try (Hosts host = Hosts.on(store)) {
                host.gate().call(Hosts.ctx(Hosts.READER), "notes.list", "{}");
            }
            // the gate's own threads end asynchronously after close: wait for them to settle
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (toolgatePoolThreads() > poolThreadsBefore && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(toolgatePoolThreads()).as("no toolgate pool threads: %s", Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.isAlive() && t.getName().startsWith("toolgate-")).map(Thread::getName).toList())
                    .isEqualTo(poolThreadsBefore);
            assertThat(hostPool.getHikariPoolMXBean().getTotalConnections()).isPositive().isLessThanOrEqualTo(3);
            assertThat(store).hasToString("JdbcStore[H2 host data source]");
            store.close();

            assertThat(hostPool.isClosed()).isFalse();
            try (Connection c = hostPool.getConnection();
                 var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM toolgate_call")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(1);
            }
            assertThatThrownBy(() -> store.calls().countPending("s")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        } finally {
            hostPool.close();
        }
    }

    @Test
    void aHostDataSourceMustUseAutocommitAndReadCommitted() {
        String url = TestStores.h2MemoryUrl("host-settings");
        var manualConfig = TestStores.config(url, 1);
        manualConfig.setAutoCommit(false);
        HikariDataSource manual = new HikariDataSource(manualConfig);
        var serializableConfig = TestStores.config(url, 1);
        serializableConfig.setTransactionIsolation("TRANSACTION_SERIALIZABLE");
        HikariDataSource serializable = new HikariDataSource(serializableConfig);
        try {
            assertThatThrownBy(() -> JdbcStore.builder().dataSource(manual).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("autocommit");
            assertThatThrownBy(() -> JdbcStore.builder().dataSource(serializable).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("READ COMMITTED");
        } finally {
            manual.close();
            serializable.close();
        }
    }

    @Test
    void closingAStoreClosesThePoolItCreated() throws IOException {
        long before = toolgatePoolThreads();
        JdbcStore store = JdbcStore.builder().url(TestStores.h2MemoryUrl("owned")).poolSize(2).build();
        assertThat(toolgatePoolThreads()).isGreaterThan(before);
        store.close();
        store.close(); // idempotent
        assertThatThrownBy(() -> store.calls().now()).isInstanceOf(IllegalStateException.class);
    }

    private static long toolgatePoolThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("toolgate-")).count();
    }
}
