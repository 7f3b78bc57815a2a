package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** Schema handling at start, on each database through a subclass. */
abstract class SchemaContract {

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
        try (Connection c = DriverManager.getConnection(url)) {
            var names = new java.util.ArrayList<String>();
            for (String table : new String[] {"toolgate_call", "TOOLGATE_CALL"}) {
                try (ResultSet rs = c.getMetaData().getIndexInfo(null, c.getSchema(), table, false, false)) {
                    while (rs.next()) {
                        if (rs.getString("INDEX_NAME") != null) {
                            names.add(rs.getString("INDEX_NAME").toLowerCase(java.util.Locale.ROOT));
                        }
                    }
                }
            }
            assertThat(names).contains("toolgate_call_principal_time", "toolgate_call_session_time", "toolgate_call_pending",
                    "toolgate_call_tenant_time");
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
