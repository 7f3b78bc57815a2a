package dev.toolgate.spi;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Settings for a {@link StoreProvider}, such as {@code jdbc.url}. A key is looked up in the settings
 * given to the builder, then in the system property {@code toolgate.<key>}, then in the environment
 * variable {@code TOOLGATE_<KEY>} (upper case, dots and dashes as underscores), so
 * {@code jdbc.url} can come from {@code -Dtoolgate.jdbc.url=...} or {@code TOOLGATE_JDBC_URL}.
 */
public final class StoreSettings {

    private final Map<String, String> explicit;
    private final boolean useEnvironment;

    private StoreSettings(Map<String, String> explicit, boolean useEnvironment) {
        this.explicit = Map.copyOf(explicit);
        this.useEnvironment = useEnvironment;
    }

    /** Explicit settings, falling back to system properties and the environment. */
    public static StoreSettings of(Map<String, String> explicit) {
        return new StoreSettings(explicit, true);
    }

    /** Only the explicit settings (for tests). */
    public static StoreSettings only(Map<String, String> explicit) {
        return new StoreSettings(explicit, false);
    }

    /** The value of {@code key}, if set anywhere. */
    public Optional<String> get(String key) {
        String value = explicit.get(key);
        if (value == null && useEnvironment) {
            value = System.getProperty("toolgate." + key);
            if (value == null) {
                value = System.getenv("TOOLGATE_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
            }
        }
        return Optional.ofNullable(value).filter(v -> !v.isBlank());
    }

    /** The value of {@code key} as an int, or {@code fallback}. */
    public int getInt(String key, int fallback) {
        Optional<String> value = get(key);
        if (value.isEmpty()) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.get().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("setting " + key + " must be a whole number, got '" + value.get() + "'", e);
        }
    }

    @Override
    public String toString() {
        return "StoreSettings" + new TreeMap<>(explicit).keySet();
    }
}
