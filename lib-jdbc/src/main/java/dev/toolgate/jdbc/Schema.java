package dev.toolgate.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs and checks the schema: one versioned, idempotent script per database, with the version
 * recorded in {@code toolgate_schema_version}. A database at a newer version than this code never
 * starts, whatever the mode (except {@link SchemaMode#NONE}).
 */
final class Schema {

    /** The schema version this code reads and writes. */
    static final int VERSION = 7;

    private static final Logger LOG = LoggerFactory.getLogger(JdbcStore.class);

    private Schema() {
    }

    static void prepare(Handle h, Dialect dialect, SchemaMode mode) {
        switch (mode) {
            case NONE -> {
            }
            case VALIDATE -> validate(installedVersion(h));
            case APPLY -> apply(h, dialect);
        }
    }

    private static void apply(Handle h, Dialect dialect) {
        if (dialect.schemaLock() != null) {
            h.createQuery(dialect.schemaLock()).map((rs, ctx) -> Boolean.TRUE).findOne();
        }
        try {
            Optional<Integer> before = installedVersion(h);
            requireNotNewer(before);
            h.createScript(script(dialect)).execute();
            int after = installedVersion(h).orElseThrow(() ->
                    new IllegalStateException("the Toolgate schema script ran but recorded no version"));
            requireNotNewer(Optional.of(after));
            if (before.isEmpty()) {
                LOG.info("Installed the Toolgate schema, version {}, on {}", after, dialect.productName());
            }
        } finally {
            if (dialect.schemaUnlock() != null) {
                h.createQuery(dialect.schemaUnlock()).map((rs, ctx) -> Boolean.TRUE).findOne();
            }
        }
    }

    private static void validate(Optional<Integer> version) {
        if (version.isEmpty()) {
            throw new IllegalStateException("The Toolgate schema is not installed in this database (no toolgate_schema_version "
                    + "table); run the script " + "dev/toolgate/jdbc/schema/<database>.sql from toolgate-jdbc, or use SchemaMode.APPLY");
        }
        requireNotNewer(version);
        if (version.get() < VERSION) {
            throw new IllegalStateException("The Toolgate schema in this database is version " + version.get()
                    + ", older than version " + VERSION + " that this toolgate-jdbc needs; run the current schema script "
                    + "(it is idempotent), or use SchemaMode.APPLY");
        }
    }

    private static void requireNotNewer(Optional<Integer> version) {
        if (version.isPresent() && version.get() > VERSION) {
            throw new IllegalStateException("The Toolgate schema in this database is version " + version.get()
                    + ", newer than version " + VERSION + " that this toolgate-jdbc supports; upgrade toolgate-jdbc "
                    + "on this instance (or point it at another database)");
        }
    }

    /** The highest recorded version, or empty if the version table does not exist or is empty. */
    static Optional<Integer> installedVersion(Handle h) {
        if (!versionTableExists(h)) {
            return Optional.empty();
        }
        try {
            return h.createQuery("SELECT MAX(version) FROM toolgate_schema_version").mapTo(Integer.class).findOne();
        } catch (StatementException e) {
            throw new IllegalStateException("Cannot read the Toolgate schema version: " + e.getMessage(), e);
        }
    }

    /** Looks in the connection's current schema only, as unqualified statements do. */
    private static boolean versionTableExists(Handle h) {
        try {
            var metaData = h.getConnection().getMetaData();
            String schema = h.getConnection().getSchema();
            for (String name : new String[] {"toolgate_schema_version", "TOOLGATE_SCHEMA_VERSION"}) {
                try (var tables = metaData.getTables(null, schema, name, null)) {
                    if (tables.next()) {
                        return true;
                    }
                }
            }
            return false;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("Cannot inspect the database schema: " + e.getMessage(), e);
        }
    }

    static String script(Dialect dialect) {
        try (InputStream in = Schema.class.getClassLoader().getResourceAsStream(dialect.scriptResource())) {
            if (in == null) {
                throw new IllegalStateException("missing schema script " + dialect.scriptResource());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
