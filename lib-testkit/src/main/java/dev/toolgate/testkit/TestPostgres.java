package dev.toolgate.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL server a test runs against: {@code TOOLGATE_TEST_PG_URL}, a JDBC URL such as
 * {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}. Without it the test is skipped with that
 * reason, and under {@code CI=true} it fails instead: a missing database is never a silent pass. The
 * caller brings the PostgreSQL JDBC driver (toolgate-jdbc does).
 */
public final class TestPostgres {

    /** The environment variable that names the server. */
    public static final String URL_VARIABLE = "TOOLGATE_TEST_PG_URL";

    private TestPostgres() {
    }

    /**
     * A URL whose connections use the schema {@code tg_<name>_<pid>}, dropped and created empty now, so
     * test classes (and test JVMs) never see each other's rows.
     */
    public static String freshSchema(String name) {
        String base = System.getenv(URL_VARIABLE);
        if (base == null || base.isBlank()) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                Assertions.fail(URL_VARIABLE + " must be set under CI=true");
            }
            Assumptions.abort(URL_VARIABLE + " is not set");
        }
        return emptySchema(base, "tg_" + name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_") + "_"
                + ProcessHandle.current().pid());
    }

    /**
     * A URL on the server at {@code base} whose connections use {@code schema} (lower-case letters, digits
     * and {@code _}), dropped and created empty now.
     */
    public static String emptySchema(String base, String schema) {
        if (!schema.matches("[a-z0-9_]{1,63}")) {
            throw new IllegalArgumentException("a test schema name is 1-63 of a-z0-9_, got '" + schema + "'");
        }
        try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            s.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create schema " + schema + ": " + e.getMessage(), e);
        }
        return base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }
}
