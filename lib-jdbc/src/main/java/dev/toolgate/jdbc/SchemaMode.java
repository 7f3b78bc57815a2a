package dev.toolgate.jdbc;

import java.util.Locale;

/**
 * What {@link JdbcStore} does with the database schema at start.
 *
 * <p>In every mode except {@link #NONE}, a database whose recorded schema version is newer than the
 * one this library knows makes the start fail with a message naming both versions.
 */
public enum SchemaMode {

    /**
     * Create or update the tables by running the bundled script for the database (the default). The
     * scripts are idempotent, so this is safe at every start and on many instances at once.
     */
    APPLY,

    /**
     * Only check that the schema is installed at the expected version; the host applies the scripts
     * itself, for example with Flyway. Fails at start when it is missing, older or newer.
     */
    VALIDATE,

    /** Touch nothing and check nothing; the host takes full responsibility for the schema. */
    NONE;

    /** Parses {@code apply}, {@code validate} or {@code none}, case-insensitively. */
    public static SchemaMode parse(String value) {
        for (SchemaMode mode : values()) {
            if (mode.name().equalsIgnoreCase(value.trim())) {
                return mode;
            }
        }
        throw new IllegalArgumentException("schema mode must be apply, validate or none, got '" + value + "'");
    }

    /** The lower-case name used in settings. */
    public String settingValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
