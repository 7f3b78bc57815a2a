package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.CallStore.Claim;
import dev.toolgate.spi.CallStore.ClaimResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** Schema handling at start, on each database through a subclass. */
abstract class SchemaContract {

    private static final PrincipalRef USER = new PrincipalRef(PrincipalKind.USER, "ann");

    /** A URL of an empty database (or schema) for one test. */
    abstract String emptyDatabase(String name);

    @Test
    void theScriptIsIdempotentAndRecordsItsVersionOnce() throws SQLException {
        String url = emptyDatabase("idempotent");
        for (int start = 0; start < 3; start++) {
            JdbcStore.builder().url(url).poolSize(1).build().close();
        }
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_schema_version")).isEqualTo(1);
        assertThat(query(url, "SELECT MAX(version) FROM toolgate_schema_version")).isEqualTo(Schema.VERSION);
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(1).schema(SchemaMode.VALIDATE).build()) {
            assertThat(store.calls().countPending("s")).isZero();
        }
    }

    @Test
    void validateRefusesADatabaseWithoutTheSchemaAndNoneDoesNotLook() {
        String url = emptyDatabase("validate");
        assertThatThrownBy(() -> JdbcStore.builder().url(url).poolSize(1).schema(SchemaMode.VALIDATE).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not installed").hasMessageContaining("SchemaMode.APPLY");
        JdbcStore.builder().url(url).poolSize(1).schema(SchemaMode.NONE).build().close();
    }

    @Test
    void aDatabaseFromANewerVersionFailsTheStartNamingBothVersions() throws SQLException {
        String url = emptyDatabase("newer");
        JdbcStore.builder().url(url).poolSize(1).build().close();
        execute(url, "INSERT INTO toolgate_schema_version (version) VALUES (" + (Schema.VERSION + 1) + ")");

        for (SchemaMode mode : new SchemaMode[] {SchemaMode.APPLY, SchemaMode.VALIDATE}) {
            assertThatThrownBy(() -> JdbcStore.builder().url(url).poolSize(1).schema(mode).build())
                    .as(mode.name())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("version " + (Schema.VERSION + 1))
                    .hasMessageContaining("version " + Schema.VERSION + " that this toolgate-jdbc supports");
        }
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_schema_version")).as("nothing was applied").isEqualTo(2);
    }

    @Test
    void theQueriesHaveTheirIndexes() throws SQLException {
        String url = emptyDatabase("indexes");
        JdbcStore.builder().url(url).poolSize(1).build().close();
        assertThat(indexes(url, "toolgate_call", false)).contains("toolgate_call_principal_time", "toolgate_call_session_time",
                "toolgate_call_pending", "toolgate_call_tenant_time", "toolgate_call_session_pending", "toolgate_call_applying",
                "toolgate_call_completed", "toolgate_call_step", "toolgate_call_reverts", "toolgate_call_time");
        assertThat(indexes(url, "toolgate_call", true)).as("unique").contains("toolgate_call_step", "toolgate_call_reverts");
        assertThat(indexes(url, "toolgate_execution", false)).contains("toolgate_execution_tenant_time",
                "toolgate_execution_running", "toolgate_execution_completed");
    }

    /** The names of the indexes of {@code table} (only the unique ones if {@code unique}), lower case. */
    static List<String> indexes(String url, String table, boolean unique) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            var names = new java.util.ArrayList<String>();
            for (String name : new String[] {table, table.toUpperCase(java.util.Locale.ROOT)}) {
                try (ResultSet rs = c.getMetaData().getIndexInfo(null, c.getSchema(), name, unique, false)) {
                    while (rs.next()) {
                        if (rs.getString("INDEX_NAME") != null) {
                            names.add(rs.getString("INDEX_NAME").toLowerCase(java.util.Locale.ROOT));
                        }
                    }
                }
            }
            return names;
        }
    }

    @Test
    void callsThatAreNeitherStepsNorRevertsNeverCollideOnTheUniqueIndexes() throws SQLException {
        String url = emptyDatabase("nulls");
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(1).build()) {
            for (int i = 0; i < 5; i++) {
                store.calls().record(executed("plain-" + i));
            }
            store.calls().record(executed("step-1").toBuilder().executionId("run").stepSeq(1).build());
            store.calls().record(executed("step-2").toBuilder().executionId("run").stepSeq(2).build());
            store.calls().record(executed("other-run-1").toBuilder().executionId("another run").stepSeq(1).build());
        }
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_call WHERE execution_id IS NULL AND reverts IS NULL")).isEqualTo(5);
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_call")).isEqualTo(8);
    }

    /** A finished read, not yet stored. */
    private static CallRecord executed(String id) {
        return CallRecord.builder().id(id).toolName("notes.list").effect(dev.toolgate.tool.Effect.READ).principal(USER)
                .tenantId("acme").transport("java").status(CallStatus.EXECUTED).mode(dev.toolgate.policy.Mode.ALLOW)
                .modeSource(dev.toolgate.policy.ModeSource.INFERRED_DEFAULT).argumentsHash("a".repeat(64)).resultJson("[]")
                .build();
    }

    @Test
    void aVersionTwoDatabaseIsUpgradedAndItsCallsAreNeitherStepsNorReverts() throws SQLException {
        String url = emptyDatabase("upgrade_v2");
        installVersion(url, 2);
        Instant claimedAt = Instant.parse("2026-01-01T10:00:00Z");
        // what a version-2 instance left: a finished apply and a pending proposal (version-2 columns only)
        insertVersionOneCall(url, "finished", "applied", claimedAt, claimedAt.plusSeconds(1), null);
        insertVersionOneCall(url, "pending", "proposed", null, null, Instant.now().plus(Duration.ofHours(1)));
        assertThatThrownBy(() -> JdbcStore.builder().url(url).poolSize(1).schema(SchemaMode.VALIDATE).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("version 2, older than version " + Schema.VERSION);

        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).build()) {
            CallRecord finished = store.calls().find("finished").orElseThrow();
            assertThat(finished.status()).isEqualTo(CallStatus.APPLIED);
            assertThat(finished.executionId()).isNull();
            assertThat(finished.stepSeq()).isNull();
            assertThat(finished.reverts()).isNull();
            assertThat(finished.revertedBy()).isNull();
            assertThat(store.calls().markReverted("finished", "a-revert")).isTrue();
            assertThat(store.calls().find("finished").orElseThrow().revertedBy()).isEqualTo("a-revert");
            assertThat(store.calls().claim("pending", new Claim(USER, null, null, Duration.ofMinutes(1)), null).status())
                    .isEqualTo(ClaimResult.Status.CLAIMED);
            var run = store.executions().create(new dev.toolgate.audit.ExecutionRecord("run-1", "p", USER,
                    java.util.Set.of("r"), "acme", null, null, "java", false, "{}", dev.toolgate.audit.ExecutionStatus.RUNNING, 1,
                    null, null, null, null, null, null, null, List.of()));
            assertThat(store.executions().find("run-1")).contains(run);
        }
        JdbcStore.builder().url(url).poolSize(1).build().close();
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_schema_version")).as("versions 2 and " + Schema.VERSION).isEqualTo(2);
        assertThat(query(url, "SELECT MAX(version) FROM toolgate_schema_version")).isEqualTo(Schema.VERSION);
        assertThat(indexes(url, "toolgate_call", true)).contains("toolgate_call_step", "toolgate_call_reverts");
        JdbcStore.builder().url(url).poolSize(1).schema(SchemaMode.VALIDATE).build().close();
    }

    @Test
    void aVersionFiveDatabaseIsUpgradedAndItsOldDecisionsAreNotToldAsNew() throws SQLException {
        String url = emptyDatabase("upgrade_v5");
        installVersion(url, 5);
        Instant decided = Instant.parse("2026-01-01T10:00:00Z");
        insertVersionOneCall(url, "applied-before", "applied", decided, decided, null);
        insertVersionOneCall(url, "rejected-before", "rejected", null, decided, null);
        insertVersionOneCall(url, "pending", "proposed", null, null, Instant.parse("2026-01-01T12:00:00Z"));
        execute(url, "UPDATE toolgate_call SET session_id = 'chat-1'");
        java.time.Clock clock = java.time.Clock.fixed(Instant.parse("2026-01-01T11:00:00Z"), ZoneOffset.UTC);

        for (int start = 0; start < 2; start++) { // the migration runs again harmlessly
            JdbcStore.builder().url(url).poolSize(1).clock(clock).build().close();
        }
        assertThat(query(url, "SELECT MAX(version) FROM toolgate_schema_version")).isEqualTo(Schema.VERSION);
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_call WHERE told_in = 'before-version-6'"))
                .as("decided before the upgrade: counted as told").isEqualTo(2);
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).clock(clock).build()) {
            assertThat(store.conversations().untold("chat-1", USER.key(), 10)).isEmpty();
            assertThat(store.calls().close("pending", new CallStore.Closure(CallStatus.REJECTED, USER, "no", null))).isTrue();
        }
        JdbcStore.builder().url(url).poolSize(1).clock(clock).build().close(); // the script runs once more
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).clock(clock).schema(SchemaMode.VALIDATE).build()) {
            assertThat(store.conversations().untold("chat-1", USER.key(), 10)).extracting(CallRecord::id)
                    .as("decided after the upgrade: told once").containsExactly("pending");
            assertThat(store.conversations().tell("pending", "turn-1")).isTrue();
            assertThat(store.conversations().tell("pending", "turn-2")).isFalse();
            assertThat(store.conversations().untold("chat-1", USER.key(), 10)).isEmpty();
        }
    }

    @Test
    void aVersionSixDatabaseIsUpgradedAndItsRevertedCallsReadReverted() throws SQLException {
        String url = emptyDatabase("upgrade_v6");
        installVersion(url, 6);
        Instant applied = Instant.parse("2026-01-01T10:00:00Z");
        // what a version-6 instance left: a call a rollback reverted (still 'applied', reverted_by set), its
        // revert, and an applied call nobody reverted
        insertVersionOneCall(url, "undone", "applied", applied, applied, null);
        insertVersionOneCall(url, "the-revert", "applied", applied.plusSeconds(5), applied.plusSeconds(6), null);
        insertVersionOneCall(url, "kept", "applied", applied, applied, null);
        execute(url, "UPDATE toolgate_call SET reverted_by = 'the-revert' WHERE id = 'undone'");
        execute(url, "UPDATE toolgate_call SET reverts = 'undone' WHERE id = 'the-revert'");
        assertThatThrownBy(() -> JdbcStore.builder().url(url).poolSize(1).schema(SchemaMode.VALIDATE).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("version 6, older than version " + Schema.VERSION);

        for (int start = 0; start < 2; start++) { // the migration runs again harmlessly
            JdbcStore.builder().url(url).poolSize(1).build().close();
        }
        assertThat(query(url, "SELECT MAX(version) FROM toolgate_schema_version")).isEqualTo(Schema.VERSION);
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).schema(SchemaMode.VALIDATE).build()) {
            CallRecord undone = store.calls().find("undone").orElseThrow();
            assertThat(undone.status()).isEqualTo(CallStatus.REVERTED);
            assertThat(undone.revertedBy()).isEqualTo("the-revert");
            CallRecord revert = store.calls().find("the-revert").orElseThrow();
            assertThat(revert.status()).isEqualTo(CallStatus.APPLIED);
            assertThat(revert.reverts()).isEqualTo("undone");
            assertThat(store.calls().find("kept").orElseThrow().status()).isEqualTo(CallStatus.APPLIED);
            assertThat(store.calls().query(CallQuery.latest(10).status(CallStatus.REVERTED))).extracting(CallRecord::id)
                    .containsExactly("undone");
            assertThat(store.calls().markReverted("undone", "another")).as("reverted once").isFalse();
            assertThat(store.calls().markReverted("kept", "a-revert")).isTrue();
            assertThat(store.calls().find("kept").orElseThrow().status()).isEqualTo(CallStatus.REVERTED);
        }
        // the update is guarded by the version: once version 7 is recorded it changes nothing, so a row left as
        // it was (here written by hand) stays
        execute(url, "UPDATE toolgate_call SET status = 'applied' WHERE id = 'kept'");
        JdbcStore.builder().url(url).poolSize(1).build().close();
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_call WHERE status = 'applied' AND reverted_by IS NOT NULL"))
                .isEqualTo(1);
    }

    @Test
    void aVersionThreeDatabaseIsUpgradedAndItsBudgetLogsKeepTheirWindows() throws SQLException {
        String url = emptyDatabase("upgrade_v3");
        installVersion(url, 3);
        Instant now = Instant.parse("2026-03-01T12:00:00Z");
        // what a version-3 instance left: the logs of two principals (newest first), and an empty one
        execute(url, "INSERT INTO toolgate_budget (principal, admitted) VALUES ('user:ann', ARRAY[" + ts(now.minusSeconds(10)) + ", "
                + ts(now.minusSeconds(20)) + ", " + ts(now.minusSeconds(90)) + "])");
        execute(url, "INSERT INTO toolgate_budget (principal, admitted) VALUES ('user:bob', ARRAY[" + ts(now.minusSeconds(5)) + "])");
        execute(url, "INSERT INTO toolgate_budget (principal) VALUES ('user:eve')");
        assertThatThrownBy(() -> JdbcStore.builder().url(url).poolSize(1).schema(SchemaMode.VALIDATE).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("version 3, older than version " + Schema.VERSION);

        java.time.Clock clock = java.time.Clock.fixed(now, ZoneOffset.UTC);
        for (int start = 0; start < 2; start++) { // the migration runs again harmlessly
            JdbcStore.builder().url(url).poolSize(1).clock(clock).build().close();
        }
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_budget_admission")).isEqualTo(4);
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_budget WHERE CARDINALITY(admitted) > 0")).as("the logs moved").isZero();
        assertThat(query(url, "SELECT MAX(version) FROM toolgate_schema_version")).isEqualTo(Schema.VERSION);
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).clock(clock).build()) {
            dev.toolgate.budget.BudgetLimit threePerMinute = dev.toolgate.budget.BudgetLimit.of(3, Duration.ofSeconds(60));
            var ann = new dev.toolgate.budget.BudgetCharge("user:ann", threePerMinute);
            // ann: two admissions inside the window (t-10, t-20) and one before it: one more fits
            assertThat(store.calls().admit(ann)).isEqualTo(now);
            assertThatThrownBy(() -> store.calls().admit(ann))
                    .isInstanceOfSatisfying(dev.toolgate.budget.BudgetExceededException.class,
                            e -> assertThat(e.retryAfter()).as("when t-20 leaves the window").isEqualTo(Duration.ofSeconds(40)));
            var bob = new dev.toolgate.budget.BudgetCharge("user:bob", dev.toolgate.budget.BudgetLimit.of(1, Duration.ofSeconds(60)));
            assertThatThrownBy(() -> store.calls().admit(bob))
                    .isInstanceOfSatisfying(dev.toolgate.budget.BudgetExceededException.class,
                            e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(55)));
            var eve = new dev.toolgate.budget.BudgetCharge("user:eve", dev.toolgate.budget.BudgetLimit.of(1, Duration.ofSeconds(60)));
            assertThat(store.calls().admit(eve)).isEqualTo(now);
        }
        JdbcStore.builder().url(url).poolSize(1).schema(SchemaMode.VALIDATE).build().close();
    }

    private static String ts(Instant instant) {
        return "TIMESTAMP WITH TIME ZONE '" + instant.toString().replace('T', ' ').replace("Z", "+00:00") + "'";
    }

    @Test
    void aVersionOneDatabaseIsUpgradedAndItsClaimsLeftWithoutAnOutcomeReadInterrupted() throws SQLException {
        String url = emptyDatabase("upgrade");
        installVersionOne(url);
        Instant claimedAt = Instant.parse("2026-01-01T10:00:00Z");
        // what a version-1 instance left: a claim whose outcome never came, a finished apply, a pending proposal
        insertVersionOneCall(url, "in-flight", "applied", claimedAt, null, null);
        insertVersionOneCall(url, "finished", "applied", claimedAt, claimedAt.plusSeconds(1), null);
        insertVersionOneCall(url, "pending", "proposed", null, null, Instant.now().plus(Duration.ofHours(1)));

        assertThatThrownBy(() -> JdbcStore.builder().url(url).poolSize(1).schema(SchemaMode.VALIDATE).build())
                .as("a version-1 database does not validate")
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("version 1, older than version " + Schema.VERSION)
                .hasMessageContaining("SchemaMode.APPLY");
        assertThat(query(url, "SELECT MAX(version) FROM toolgate_schema_version")).as("validate changed nothing").isEqualTo(1);

        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).build()) {
            CallStore calls = store.calls();
            CallRecord inFlight = calls.find("in-flight").orElseThrow();
            assertThat(inFlight.status()).isEqualTo(CallStatus.APPLYING);
            assertThat(inFlight.appliedAt()).isEqualTo(claimedAt);
            assertThat(inFlight.outcomeDueAt()).as("due at once").isEqualTo(claimedAt);
            assertThat(inFlight.completedAt()).isNull();
            CallRecord finished = calls.find("finished").orElseThrow();
            assertThat(finished.status()).isEqualTo(CallStatus.APPLIED);
            assertThat(finished.outcomeDueAt()).isNull();
            assertThat(finished.completedAt()).isEqualTo(claimedAt.plusSeconds(1));

            List<CallRecord> interrupted = calls.interruptOverdue(10);
            assertThat(interrupted).extracting(CallRecord::id).containsExactly("in-flight");
            assertThat(interrupted.get(0).status()).isEqualTo(CallStatus.INTERRUPTED);
            assertThat(calls.query(CallQuery.latest(10).status(CallStatus.INTERRUPTED))).extracting(CallRecord::id)
                    .containsExactly("in-flight");

            ClaimResult claim = calls.claim("pending", new Claim(USER, null, null, Duration.ofMinutes(1)), null);
            assertThat(claim.status()).as("a version-1 proposal is claimable").isEqualTo(ClaimResult.Status.CLAIMED);
            assertThat(claim.record().outcomeDueAt()).isEqualTo(claim.record().appliedAt().plus(Duration.ofMinutes(1)));
        }

        try (JdbcStore again = JdbcStore.builder().url(url).poolSize(1).build()) {
            assertThat(again.calls().find("in-flight").orElseThrow().status()).as("the script runs again harmlessly")
                    .isEqualTo(CallStatus.INTERRUPTED);
            assertThat(again.calls().find("pending").orElseThrow().status()).isEqualTo(CallStatus.APPLYING);
        }
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_schema_version")).as("versions 1 and " + Schema.VERSION).isEqualTo(2);
        assertThat(query(url, "SELECT MAX(version) FROM toolgate_schema_version")).isEqualTo(Schema.VERSION);
        JdbcStore.builder().url(url).poolSize(1).schema(SchemaMode.VALIDATE).build().close();
    }

    /** Runs the version-1 script, as a version-1 instance installed it. */
    static void installVersionOne(String url) {
        installVersion(url, 1);
    }

    /** Runs the script of an earlier {@code version}, as an instance of that version installed it. */
    static void installVersion(String url, int version) {
        String database = url.startsWith("jdbc:h2:") ? "h2" : "postgresql";
        String resource = "dev/toolgate/jdbc/schema/v" + version + "/" + database + ".sql";
        String script;
        try (InputStream in = SchemaContract.class.getClassLoader().getResourceAsStream(resource)) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
        assertThat(script).contains("schema, version " + version + ",");
        Jdbi.create(url).useHandle(h -> h.createScript(script).execute());
    }

    /** A call row with the version-1 columns only. */
    static void insertVersionOneCall(String url, String id, String status, Instant appliedAt, Instant completedAt,
                                     Instant expiresAt) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); PreparedStatement s = c.prepareStatement(
                "INSERT INTO toolgate_call (id, tool_name, effect, principal, transport, status, mode, mode_source,"
                        + " arguments_hash, created_at, payload_json, token_digest, expires_at, applied_by, applied_at,"
                        + " completed_at, result_json) VALUES (?, 'notes.add', 'mutate', 'user:ann', 'java', ?,"
                        + " 'require_approval', 'inferred_default', ?, ?, '{}', ?, ?, ?, ?, ?, ?)")) {
            Instant createdAt = Instant.parse("2026-01-01T09:00:00Z");
            s.setString(1, id);
            s.setString(2, status);
            s.setString(3, "a".repeat(64));
            s.setObject(4, OffsetDateTime.ofInstant(createdAt, ZoneOffset.UTC));
            s.setString(5, "d".repeat(64));
            s.setObject(6, OffsetDateTime.ofInstant(expiresAt != null ? expiresAt : createdAt.plusSeconds(600), ZoneOffset.UTC));
            s.setString(7, appliedAt == null ? null : USER.key());
            s.setObject(8, appliedAt == null ? null : OffsetDateTime.ofInstant(appliedAt, ZoneOffset.UTC));
            s.setObject(9, completedAt == null ? null : OffsetDateTime.ofInstant(completedAt, ZoneOffset.UTC));
            s.setString(10, completedAt == null ? null : "\"done\"");
            s.executeUpdate();
        }
    }

    static int query(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    static void execute(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
