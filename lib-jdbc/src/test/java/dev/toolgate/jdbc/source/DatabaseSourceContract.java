package dev.toolgate.jdbc.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.source.SourceStatus;
import dev.toolgate.source.SourceToolException;
import dev.toolgate.spi.InMemoryStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;
import org.postgresql.ds.PGSimpleDataSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The database source on a real database: reads run directly and come back capped and redacted; the
 * hostile corpus is refused before it reaches the database and leaves the data, the sequences and the
 * tables as they were; without the guard, the read-only, rolled-back transaction still keeps the data;
 * slow statements are cancelled; an unreachable database is reported and typed.
 */
abstract class DatabaseSourceContract {

    static final Principal CAROL = Principal.user("carol", "bank.read");
    static final Principal MALLORY = Principal.user("mallory", "tickets.read");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    protected HikariDataSource pool;
    private final List<AutoCloseable> closing = new ArrayList<>();

    /** The JDBC URL of an empty database (or schema) for this test. */
    abstract String freshUrl();

    /** The schema the test's tables are in, as the database's metadata spells it. */
    abstract String schema();

    /** Takes the next value of {@code accounts_seq} outside the source. */
    abstract long nextSequenceValue(Statement statement) throws SQLException;

    /** A read that runs for minutes unless cancelled, with no function the guard refuses. */
    abstract String slowRead();

    /** Writes the database itself must refuse in a read-only transaction; empty where it enforces none. */
    abstract List<String> writesTheDatabaseRefuses();

    @BeforeEach
    void createBank() throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(freshUrl());
        config.setMaximumPoolSize(2);
        pool = new HikariDataSource(config);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE accounts (id INT PRIMARY KEY, owner VARCHAR(40) NOT NULL, "
                    + "balance NUMERIC(10, 2), api_key VARCHAR(60))");
            s.execute("CREATE SEQUENCE accounts_seq START WITH 1");
            for (int i = 1; i <= 10; i++) {
                s.execute("INSERT INTO accounts VALUES (" + i + ", 'owner" + i + "', " + (i * 100) + ".50, 'ak_live_"
                        + "0123456789abcdef" + i + "')");
            }
        }
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        if (pool != null) { // null when the set-up was skipped (no PostgreSQL): the skip is the result
            pool.close();
        }
    }

    DatabaseSource.Builder bank() {
        return DatabaseSource.builder("bank", pool).displayName("Bank").requires("bank.read").denyFunctions("AUDIT_TOUCH");
    }

    Toolgate gate(DatabaseSource... sources) {
        var builder = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(dev.toolgate.budget.ToolBudget.unlimited())
                .sweepInterval(Duration.ZERO).sourceTimings(Duration.ofMinutes(5), Duration.ofSeconds(5), Duration.ofSeconds(30));
        for (DatabaseSource source : sources) {
            builder.source(source);
        }
        Toolgate gate = builder.build();
        closing.add(gate);
        return gate;
    }

    static CallContext ctx(Principal principal) {
        return CallContext.of(principal).withSession("db-1");
    }

    static String query(String sql, Object... params) {
        return JSON.writeValueAsString(Map.of("sql", sql, "params", List.of(params)));
    }

    /** Every row, every table name and every column, as text. */
    String snapshot() throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            try (ResultSet rows = s.executeQuery("SELECT id, owner, balance, api_key FROM accounts ORDER BY id")) {
                while (rows.next()) {
                    out.append(rows.getInt(1)).append('|').append(rows.getString(2)).append('|')
                            .append(rows.getBigDecimal(3)).append('|').append(rows.getString(4)).append('\n');
                }
            }
            TreeSet<String> tables = new TreeSet<>();
            try (ResultSet rows = c.getMetaData().getTables(null, schema(), "%", null)) {
                while (rows.next()) {
                    tables.add(rows.getString("TABLE_TYPE") + ":" + rows.getString("TABLE_NAME"));
                }
            }
            out.append(tables);
        }
        return out.toString();
    }

    @Test
    void aReadRunsDirectlyWithParamsAndComesBackAsColumnsAndRows() {
        Toolgate gate = gate(bank().build());
        Executed executed = (Executed) gate.call(ctx(CAROL), "db:bank.query",
                query("SELECT id, owner, balance FROM accounts WHERE id = ? OR owner = ? ORDER BY id", 3, "owner5"));
        JsonNode result = executed.result();
        assertThat(result.path("columns").toString().toLowerCase()).isEqualTo("[\"id\",\"owner\",\"balance\"]");
        assertThat(result.path("rowCount").asInt()).isEqualTo(2);
        assertThat(result.path("truncated").asBoolean()).isFalse();
        JsonNode first = result.path("rows").get(0);
        String id = result.path("columns").get(0).asString();
        String balance = result.path("columns").get(2).asString();
        assertThat(first.path(id).asInt()).isEqualTo(3);
        assertThat(first.path(balance).decimalValue()).isEqualByComparingTo("300.50");
        assertThat(gate.findCall(executed.callId()).orElseThrow().status()).isEqualTo(CallStatus.EXECUTED);
    }

    @Test
    void rowsBeyondTheCapAreCutAndSaidToBe() {
        Toolgate gate = gate(bank().maxRows(4).build());
        JsonNode capped = ((Executed) gate.call(ctx(CAROL), "db:bank.query", query("SELECT id FROM accounts ORDER BY id")))
                .result();
        assertThat(capped.path("rows")).hasSize(4);
        assertThat(capped.path("rowCount").asInt()).isEqualTo(4);
        assertThat(capped.path("truncated").asBoolean()).isTrue();
        JsonNode exact = ((Executed) gate.call(ctx(CAROL), "db:bank.query",
                query("SELECT id FROM accounts WHERE id <= 4 ORDER BY id"))).result();
        assertThat(exact.path("rows")).hasSize(4);
        assertThat(exact.path("truncated").asBoolean()).as("exactly the cap is not truncated").isFalse();
    }

    @Test
    void aSecretColumnIsRedactedLikeAnySecretField() {
        Toolgate gate = gate(bank().build());
        JsonNode result = ((Executed) gate.call(ctx(CAROL), "db:bank.query",
                query("SELECT owner, api_key, api_key AS api_key FROM accounts WHERE id = 1"))).result();
        assertThat(result.toString()).doesNotContain("ak_live_").contains("[REDACTED]");
        assertThat(result.path("rows").get(0).size()).as("a repeated label gets its own key").isEqualTo(3);
    }

    @Test
    void theTablesToolListsTablesWithTheirColumns() {
        Toolgate gate = gate(bank().build());
        JsonNode result = ((Executed) gate.call(ctx(CAROL), "db:bank.tables", "{\"schema\":\"" + schema() + "\"}")).result();
        assertThat(result.path("tables")).singleElement().satisfies(table -> {
            assertThat(table.path("name").asString()).isEqualToIgnoringCase("accounts");
            assertThat(table.path("columns").findValuesAsString("name")).map(String::toLowerCase)
                    .containsExactly("id", "owner", "balance", "api_key");
            assertThat(table.path("columns").get(1).path("nullable").asBoolean()).isFalse();
        });
    }

    @Test
    void everyHostileStatementIsRefusedAndTheDataSequencesAndTablesStayAsTheyWere() throws SQLException {
        Toolgate gate = gate(bank().build());
        String before = snapshot();
        List<Arguments> corpus = SqlGuardTest.hostile().toList();
        assertThat(corpus).hasSizeGreaterThanOrEqualTo(20);
        for (Arguments attack : corpus) {
            String sql = (String) attack.get()[0];
            assertThatThrownBy(() -> gate.call(ctx(CAROL), "db:bank.query", query(sql)))
                    .as(sql)
                    .satisfiesAnyOf(
                            e -> assertThat(e).isInstanceOf(ToolValidationException.class),
                            e -> assertThat(e).isInstanceOf(ToolExecutionException.class)
                                    .hasMessageContaining("refused before it reached the database"));
        }
        assertThat(snapshot()).isEqualTo(before);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            assertThat(nextSequenceValue(s)).as("no attack advanced the sequence").isEqualTo(1);
        }
        List<CallRecord> failed = gate.findCalls(dev.toolgate.audit.CallQuery.latest(1000).status(CallStatus.FAILED));
        assertThat(failed).as("each refusal that reached the gate is recorded").hasSizeGreaterThanOrEqualTo(corpus.size() - 3);
    }

    @Test
    void withoutTheGuardTheReadOnlyRolledBackTransactionStillKeepsTheData() throws SQLException {
        DatabaseSource source = bank().build();
        String before = snapshot();
        List<String> writes = new ArrayList<>(List.of(
                "DELETE FROM accounts",
                "UPDATE accounts SET balance = 0",
                "INSERT INTO accounts VALUES (99, 'mallory', 1, NULL)"));
        writes.addAll(writesTheDatabaseRefuses());
        for (String write : writes) {
            assertThatThrownBy(() -> source.runChecked(write, null)).as(write).isInstanceOf(SourceToolException.class);
        }
        assertThat(snapshot()).isEqualTo(before);
        try (Connection c = pool.getConnection()) {
            assertThat(c.getAutoCommit()).as("the pool gets its connection back as it gave it").isTrue();
            assertThat(c.isReadOnly()).isFalse();
        }
    }

    @Test
    void aStatementThatRunsTooLongIsCancelled() {
        Toolgate gate = gate(bank().statementTimeout(Duration.ofSeconds(1)).build());
        long start = System.nanoTime();
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "db:bank.query", query(slowRead())))
                .isInstanceOf(ToolExecutionException.class)
                .hasMessageContaining("ran longer than 1 s and was cancelled");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("cut near its timeout, not after minutes")
                .isLessThan(Duration.ofSeconds(30));
        JsonNode count = ((Executed) gate.call(ctx(CAROL), "db:bank.query", query("SELECT count(*) AS n FROM accounts"))).result();
        assertThat(count.path("rows").get(0).path(count.path("columns").get(0).asString()).asInt())
                .as("the pool is usable after a cancel").isEqualTo(10);
    }

    @Test
    void onlyPrincipalsWithTheSourcesRuleSeeItsTools() {
        Toolgate gate = gate(bank().build());
        assertThat(gate.listTools(CAROL)).extracting(d -> d.name()).containsExactly("db:bank.query", "db:bank.tables");
        assertThat(gate.listTools(MALLORY)).isEmpty();
        assertThatThrownBy(() -> gate.call(ctx(MALLORY), "db:bank.query", query("SELECT 1")))
                .isInstanceOf(RuntimeException.class).isNotInstanceOf(SourceToolException.class);
        assertThat(gate.registry().find("db:bank.query").orElseThrow().effect()).isEqualTo(dev.toolgate.tool.Effect.READ);
    }

    @Test
    void anUnreachableDatabaseIsReportedWithoutHoldingUpTheOthersAndItsCallsAreTyped() {
        PGSimpleDataSource nowhere = new PGSimpleDataSource();
        nowhere.setServerNames(new String[] {"127.0.0.1"});
        nowhere.setPortNumbers(new int[] {1});
        nowhere.setDatabaseName("nothing");
        nowhere.setConnectTimeout(2);
        Toolgate gate = gate(bank().build(), DatabaseSource.builder("down", nowhere).build());

        assertThat(gate.listSources()).extracting(SourceStatus::id, SourceStatus::state).containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple("db:bank", SourceStatus.State.AVAILABLE),
                org.assertj.core.groups.Tuple.tuple("db:down", SourceStatus.State.UNAVAILABLE));
        assertThat(gate.listSources()).filteredOn(s -> s.id().equals("db:down")).singleElement()
                .satisfies(s -> assertThat(s.error()).containsIgnoringCase("connect"));
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "db:down.query", query("SELECT 1")))
                .isInstanceOfSatisfying(SourceUnavailableException.class, e -> assertThat(e.sourceId()).isEqualTo("db:down"));
        assertThat(gate.call(ctx(CAROL), "db:bank.query", query("SELECT 1"))).isInstanceOf(Executed.class);
    }

    @Test
    void aDatabaseLostAfterListingFailsTheCallTypedAndRecorded() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(freshUrl());
        config.setMaximumPoolSize(1);
        config.setConnectionTimeout(1_000);
        HikariDataSource lost = new HikariDataSource(config);
        Toolgate gate = gate(DatabaseSource.builder("lost", lost).build());
        lost.close();

        assertThatThrownBy(() -> gate.call(ctx(CAROL), "db:lost.query", query("SELECT 1")))
                .isInstanceOfSatisfying(SourceUnavailableException.class, e -> {
                    assertThat(e.sourceId()).isEqualTo("db:lost");
                    assertThat(e.callId()).isNotNull();
                    assertThat(gate.findCall(e.callId()).orElseThrow().status()).isEqualTo(CallStatus.FAILED);
                });
    }

    @Test
    void badSettingsAreRefusedWithWhatWasWrong() {
        assertThatThrownBy(() -> DatabaseSource.builder("bad name", pool)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'bad name'");
        assertThatThrownBy(() -> bank().maxRows(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxRows");
        assertThatThrownBy(() -> bank().statementTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("statementTimeout");
        Toolgate gate = gate(bank().build());
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "db:bank.query", "{\"sql\":\"SELECT 1\",\"limit\":5}"))
                .isInstanceOf(ToolValidationException.class).hasMessageContaining("limit");
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "db:bank.query", "{\"sql\":\"SELECT 1\",\"params\":[{\"a\":1}]}"))
                .isInstanceOf(ToolValidationException.class).hasMessageContaining("params");
    }
}
