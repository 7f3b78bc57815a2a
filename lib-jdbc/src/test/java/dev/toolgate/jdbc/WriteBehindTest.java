package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.spi.StoreSettings;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.tool.Effect;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rows written behind ({@link JdbcStore.Builder#writeBehind}) on H2 and on a real PostgreSQL: a read
 * answers before its row is written, every row lands (within the delay, on a full batch, at close),
 * nothing that governs a mutation is written behind, a database that goes away drops nothing, and a
 * row the database refuses holds up no other.
 */
class WriteBehindTest {

    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static final CallContext CTX = Hosts.ctx(Hosts.WRITER);

    /** A fresh empty database of {@code kind}, as a URL both the store and the raw checks open. */
    private static String database(String kind) {
        int n = DATABASES.incrementAndGet();
        return kind.equals("h2") ? "jdbc:h2:mem:write-behind-" + n + ";DB_CLOSE_DELAY=-1"
                : PostgresDatabase.freshSchema("write_behind_" + n);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aReadAnswersBeforeItsRowIsWrittenAndItsRowLandsWithinTheDelay(String kind) throws Exception {
        String url = database(kind);
        try (JdbcStore store = JdbcStore.builder().url(url).writeBehind(Duration.ofSeconds(3)).build();
             Hosts host = Hosts.on(store)) {
            String id = read(host, CTX);
            assertThat(rows(url)).as("the row waits behind the call").isZero();
            CallRecord found = store.calls().find(id).orElseThrow();
            assertThat(found.status()).isEqualTo(CallStatus.EXECUTED);
            assertThat(found.toolName()).isEqualTo("notes.list");
            assertThat(store.calls().findWithTime(id).orElseThrow().record().id()).isEqualTo(id);
            assertThat(rows(url)).as("a lookup reads the waiting row without writing it").isZero();
            waitWhile(() -> store.writeBehind().unwritten() > 0); // counted once committed
            assertThat(rows(url)).as("written by the background thread, no read asked for it").isEqualTo(1);
            assertThat(store.writeBehind().written()).isEqualTo(1);
            assertThat(store.calls().find(id).orElseThrow().resultJson()).isEqualTo(found.resultJson());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void anAuditQueryFirstWritesEveryWaitingRow(String kind) throws Exception {
        String url = database(kind);
        try (JdbcStore store = JdbcStore.builder().url(url).writeBehind(Duration.ofMinutes(1)).build();
             Hosts host = Hosts.on(store)) {
            Set<String> ids = new HashSet<>();
            for (int i = 0; i < 7; i++) {
                ids.add(read(host, CTX));
            }
            assertThat(rows(url)).isZero();
            List<CallRecord> listed = store.calls().query(CallQuery.latest(100));
            assertThat(listed).extracting(CallRecord::id).containsExactlyInAnyOrderElementsOf(ids);
            assertThat(rows(url)).isEqualTo(7);
            assertThat(store.writeBehind().unwritten()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void closeWritesEveryWaitingRowFromManyThreads(String kind) throws Exception {
        String url = database(kind);
        int threads = 8;
        int each = 40;
        Set<String> ids = ConcurrentHashMap.newKeySet();
        try (JdbcStore store = JdbcStore.builder().url(url).writeBehind(Duration.ofMinutes(1)).build();
             Hosts host = Hosts.on(store)) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                CallContext ctx = CallContext.of(Hosts.WRITER).withTenant("acme").withSession("s-" + t);
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        String id = read(host, ctx);
                        ids.add(id);
                        assertThat(store.calls().find(id)).as("each caller finds its own row at once").isPresent();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(rows(url)).as("under one batch and within a minute: all still waiting").isZero();
        }
        assertThat(ids).hasSize(threads * each);
        assertThat(ids(url)).containsExactlyInAnyOrderElementsOf(ids);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aFullBatchIsWrittenWithoutWaitingForTheDelay(String kind) throws Exception {
        String url = database(kind);
        try (JdbcStore store = JdbcStore.builder().url(url).writeBehind(Duration.ofMinutes(1)).build()) {
            for (int i = 0; i < WriteBehind.MAX_BATCH + 20; i++) {
                store.calls().record(read(UUID.randomUUID().toString()));
            }
            waitWhile(() -> store.writeBehind().unwritten() > 20); // counted once committed
            assertThat(rows(url)).isEqualTo(WriteBehind.MAX_BATCH);
            assertThat(store.writeBehind().unwritten()).isEqualTo(20);
        }
        assertThat(rows(url)).isEqualTo(WriteBehind.MAX_BATCH + 20);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void proposalsClaimsOutcomesAndStepsOfRunsAreDurableBeforeTheyReturn(String kind) throws Exception {
        String url = database(kind);
        try (JdbcStore store = JdbcStore.builder().url(url).writeBehind(Duration.ofMinutes(1)).build();
             Hosts host = Hosts.on(store)) {
            Proposal proposal = host.gate().propose(CTX, "notes.add", "{\"id\":\"n1\",\"text\":\"x\"}");
            assertThat(status(url, proposal.callId())).isEqualTo("proposed");
            host.gate().apply(CTX, proposal.token());
            assertThat(status(url, proposal.callId())).isEqualTo("applied");
            store.calls().record(read("step-1").toBuilder().executionId("run-1").stepSeq(1).build());
            assertThat(status(url, "step-1")).as("a step of a run is logged before it returns").isEqualTo("executed");
            assertThat(store.writeBehind().unwritten()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void rowsCarryTheDatabasesTimeOfTheCall(String kind) throws Exception {
        String url = database(kind);
        try (JdbcStore store = JdbcStore.builder().url(url).writeBehind(Duration.ofMinutes(1)).build()) {
            Instant before = databaseTime(url);
            CallRecord stored = store.calls().record(read("timed"));
            Instant after = databaseTime(url);
            store.calls().query(CallQuery.latest(10));
            CallRecord row = store.calls().find("timed").orElseThrow();
            assertThat(row.createdAt()).isEqualTo(stored.createdAt());
            assertThat(row.completedAt()).isEqualTo(stored.completedAt());
            assertThat(row.createdAt()).isBetween(before.minusMillis(250), after.plusMillis(250));
            CallRecord admitted = store.calls().record(read("admitted").toBuilder().createdAt(before.minusSeconds(5)).build());
            assertThat(admitted.createdAt()).as("an admission's time is kept").isEqualTo(before.minusSeconds(5));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aRowTheDatabaseRefusesIsDroppedAfterThreeRoundsAndHoldsUpNoOther(String kind) throws Exception {
        String url = database(kind);
        try (JdbcStore plain = JdbcStore.builder().url(url).build();
             JdbcStore store = JdbcStore.builder().url(url).writeBehind(Duration.ofMillis(50)).build()) {
            plain.calls().record(read("taken"));
            store.calls().record(read("before"));
            store.calls().record(read("taken")); // its id is taken: the database refuses it every time
            store.calls().record(read("after"));
            waitWhile(() -> store.writeBehind().unwritten() > 0);
            assertThat(store.writeBehind().dropped()).isEqualTo(1);
            assertThat(ids(url)).containsExactlyInAnyOrder("taken", "before", "after");
            assertThat(store.writeBehind().unwritten()).isZero();
            assertThat(store.writeBehind().failing()).isFalse();
            assertThat(store.calls().find("taken").orElseThrow().createdAt()).as("the first row stands")
                    .isEqualTo(plain.calls().find("taken").orElseThrow().createdAt());
        }
    }

    @Test
    void theLogLineOfADroppedRowQuotesNoneOfItsValues() {
        SQLException h2 = new SQLException("Value too long for column \"TOOL_NAME\": \"'sk-live-secret-value' (300)\"",
                "22001", 22001);
        String said = WriteBehind.refusal(new org.jdbi.v3.core.statement.UnableToExecuteStatementException(
                "statement failed: " + h2.getMessage(), h2, null));
        assertThat(said).isEqualTo("SQLState 22001, error code 22001").doesNotContain("secret");
        assertThat(WriteBehind.refusal(new IllegalStateException("sk-live-secret-value"))).isEqualTo("IllegalStateException");
    }

    @Test
    void rowsBeyondTheMemoryBoundAreWrittenByTheirCallers() throws Exception {
        String url = database("h2");
        String megabyte = "\"" + "x".repeat(1024 * 1024) + "\"";
        try (JdbcStore store = JdbcStore.builder().url(url).writeBehind(Duration.ofMinutes(1)).build()) {
            for (int i = 0; i < 12; i++) {
                store.calls().record(read("big-" + i).toBuilder().resultJson(megabyte).build());
            }
            long waiting = WriteBehind.MAX_CHARS / (1024 * 1024 + 256);
            assertThat(store.writeBehind().unwritten()).isEqualTo((int) waiting);
            assertThat(rows(url)).as("the rows beyond 8 MiB were written on their callers' path").isEqualTo(12 - waiting);
        }
        assertThat(rows(url)).isEqualTo(12);
    }

    @Test
    void whenTheDatabaseGoesAwayNothingIsDroppedCallsFailClosedAndTheRowsLandOnceItIsBack() throws Exception {
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String name = "write-behind-outage-" + DATABASES.incrementAndGet();
        Server server = Server.createTcpServer("-tcpPort", String.valueOf(port), "-ifNotExists").start();
        String url = "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:" + name + ";DB_CLOSE_DELAY=-1";
        String local = "jdbc:h2:mem:" + name; // the same database, in this process, while the server is down
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).connectionTimeout(Duration.ofMillis(500))
                .writeBehind(Duration.ofMillis(100)).build();
             Hosts host = Hosts.on(store)) {
            try (Connection keep = DriverManager.getConnection(local)) { // holds the database open across the outage
                server.stop();
                for (int i = 0; i < 3; i++) {
                    store.calls().record(read("queued-" + i));
                }
                waitWhile(() -> !store.writeBehind().failing());
                assertThat(store.writeBehind().failing()).as("the batch could not be written").isTrue();
                assertThat(store.writeBehind().unwritten()).as("and nothing was dropped").isEqualTo(3);
                assertThatThrownBy(() -> store.calls().record(read("while-away")))
                        .as("a call writes its own row now, and fails closed").isInstanceOf(StoreUnavailableException.class);
                assertThatThrownBy(() -> host.gate().call(CTX, "notes.list", "{}")).isInstanceOf(StoreUnavailableException.class);
                assertThat(count(keep)).isZero();

                server = Server.createTcpServer("-tcpPort", String.valueOf(port), "-ifNotExists").start();
                waitWhile(() -> store.writeBehind().unwritten() > 0);
                assertThat(store.writeBehind().unwritten()).as("written once the database is back").isZero();
                assertThat(count(keep)).isEqualTo(3);
                assertThat(store.writeBehind().failing()).isFalse();
                assertThat(store.writeBehind().dropped()).isZero();
                store.calls().record(read("behind-again"));
                assertThat(store.writeBehind().unwritten()).as("rows go behind again").isEqualTo(1);
            }
        } finally {
            server.stop();
        }
    }

    @Test
    void theDelayIsCheckedAndTheSettingIsRead() {
        assertThatThrownBy(() -> JdbcStore.builder().writeBehind(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("writeBehind");
        assertThatThrownBy(() -> JdbcStore.builder().writeBehind(Duration.ofSeconds(61)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 minute");
        assertThatThrownBy(() -> new JdbcStoreProvider().open(StoreSettings.only(Map.of(
                JdbcStoreProvider.URL, database("h2"), JdbcStoreProvider.WRITE_BEHIND_MS, "-5"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(JdbcStoreProvider.WRITE_BEHIND_MS);
        try (JdbcStore store = (JdbcStore) new JdbcStoreProvider().open(StoreSettings.only(Map.of(
                JdbcStoreProvider.URL, database("h2"), JdbcStoreProvider.WRITE_BEHIND_MS, "250")))) {
            assertThat(store.writeBehind()).isNotNull();
        }
        try (JdbcStore store = JdbcStore.builder().url(database("h2")).writeBehind(Duration.ZERO).build()) {
            assertThat(store.writeBehind()).as("zero: each row commits on its call's path").isNull();
        }
    }

    /** Polls {@code condition} every 20 ms while it holds, for at most 20 s; the assertion after it decides. */
    private static void waitWhile(Condition condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (condition.holds() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    @FunctionalInterface
    private interface Condition {
        boolean holds() throws Exception;
    }

    private static String read(Hosts host, CallContext ctx) {
        return ((Executed) host.gate().call(ctx, "notes.list", "{}")).callId();
    }

    private static CallRecord read(String id) {
        return CallRecord.builder().id(id).toolName("notes.list").effect(Effect.READ).principal(PrincipalRef.of(Hosts.WRITER))
                .tenantId("acme").transport("java").status(CallStatus.EXECUTED).mode(Mode.ALLOW)
                .modeSource(ModeSource.INFERRED_DEFAULT).argumentsHash("a".repeat(64)).resultJson("[]").build();
    }

    private static int rows(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            return count(c);
        }
    }

    private static int count(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM toolgate_call")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static List<String> ids(String url) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id FROM toolgate_call")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    private static String status(String url, String id) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
             var s = c.prepareStatement("SELECT status FROM toolgate_call WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static Instant databaseTime(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT CURRENT_TIMESTAMP")) {
            rs.next();
            return rs.getObject(1, java.time.OffsetDateTime.class).toInstant();
        }
    }
}
