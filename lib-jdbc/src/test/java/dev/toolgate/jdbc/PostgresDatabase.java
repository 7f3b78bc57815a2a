package dev.toolgate.jdbc;

import java.util.Locale;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL server tests run against: {@code TOOLGATE_TEST_PG_URL} when set, else a Testcontainers
 * container when Docker is available, else the test is skipped with a visible message. Under
 * {@code CI=true} a missing database fails the test instead of skipping it.
 *
 * <p>Each caller gets its own schema ({@link #freshSchema}), so test classes never see each other's rows.
 */
public final class PostgresDatabase {

    static final String URL_VARIABLE = "TOOLGATE_TEST_PG_URL";

    private static String baseUrl;
    private static String unavailable;
    private static boolean told;

    private PostgresDatabase() {
    }

    /** The server's JDBC URL, or aborts (fails under CI) when there is none. */
    public static synchronized String url() {
        if (baseUrl == null && unavailable == null) {
            locate();
        }
        if (baseUrl == null) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                Assertions.fail("PostgreSQL tests cannot run under CI=true: " + unavailable);
            }
            if (!told) {
                told = true;
                System.err.println("*** PostgreSQL tests skipped: " + unavailable + " ***");
            }
            Assumptions.abort("PostgreSQL tests skipped: " + unavailable);
        }
        return baseUrl;
    }

    /** A URL whose connections use the schema {@code name}, dropped and created empty now. */
    public static String freshSchema(String name) {
        return dev.toolgate.testkit.TestPostgres.emptySchema(url(),
                "tg_" + name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_"));
    }

    private static void locate() {
        String url = System.getenv(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            baseUrl = url;
            return;
        }
        try {
            if (!org.testcontainers.DockerClientFactory.instance().isDockerAvailable()) {
                unavailable = URL_VARIABLE + " is not set and Docker is not available for Testcontainers";
                return;
            }
            var container = new org.testcontainers.postgresql.PostgreSQLContainer("postgres:16-alpine");
            container.start();
            Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
            baseUrl = container.getJdbcUrl() + (container.getJdbcUrl().contains("?") ? "&" : "?") + "user="
                    + container.getUsername() + "&password=" + container.getPassword();
        } catch (RuntimeException | LinkageError e) {
            unavailable = URL_VARIABLE + " is not set and Testcontainers could not start PostgreSQL: " + e;
        }
    }
}
