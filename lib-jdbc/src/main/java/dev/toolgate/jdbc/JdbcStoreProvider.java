package dev.toolgate.jdbc;

import dev.toolgate.spi.StoreProvider;
import dev.toolgate.spi.StoreSettings;
import dev.toolgate.spi.ToolgateStore;
import java.time.Duration;
import java.util.Locale;

/**
 * Opens a {@link JdbcStore} for {@code Toolgate.builder()} when {@code toolgate-jdbc} is on the
 * classpath (registered in {@code META-INF/services/dev.toolgate.spi.StoreProvider}, priority 100, so it
 * wins over the in-memory store). A store passed to the builder explicitly wins over discovery.
 *
 * <p>Settings, each also readable from the system property {@code toolgate.<key>} or the environment
 * variable {@code TOOLGATE_<KEY>} (see {@link StoreSettings}):
 * <ul>
 *   <li>{@value #URL}: the JDBC URL; default {@value JdbcStore#DEFAULT_URL}</li>
 *   <li>{@value #USERNAME}, {@value #PASSWORD}: credentials</li>
 *   <li>{@value #POOL_SIZE}: connections in the pool (default {@value JdbcStore#DEFAULT_POOL_SIZE})</li>
 *   <li>{@value #CONNECTION_TIMEOUT_MS}: milliseconds to wait for a connection (default 5000)</li>
 *   <li>{@value #SCHEMA}: {@code apply} (default), {@code validate} or {@code none}</li>
 *   <li>{@value #H2_COMPACT_INTERVAL_MS}: for an embedded H2 file, milliseconds between compaction
 *       rounds, 0 for none (default 250; see {@link JdbcStore.Builder#h2Compaction})</li>
 *   <li>{@value #H2_COMPACT_FILL_RATE}: for an embedded H2 file, the percentage of live data below which
 *       a round compacts (default 80)</li>
 *   <li>{@value #H2_RETENTION_TIME_MS}: for an embedded H2 file, milliseconds before a dead chunk's space
 *       is reused (default 2000; H2's own default, 45000, keeps that much more of the last writes in
 *       the file; below 1000 H2 can fail a call that reads a chunk it has just freed)</li>
 *   <li>{@value #WRITE_BEHIND_MS}: milliseconds within which the audit rows of calls that changed
 *       nothing are written in batches behind the calls, 0 for a commit on each call's path (default 0;
 *       a crash loses the rows still waiting: see {@link JdbcStore.Builder#writeBehind})</li>
 * </ul>
 */
public final class JdbcStoreProvider implements StoreProvider {

    public static final String URL = "jdbc.url";
    public static final String USERNAME = "jdbc.username";
    public static final String PASSWORD = "jdbc.password";
    public static final String POOL_SIZE = "jdbc.pool-size";
    public static final String CONNECTION_TIMEOUT_MS = "jdbc.connection-timeout-ms";
    public static final String SCHEMA = "jdbc.schema";
    public static final String H2_COMPACT_INTERVAL_MS = "jdbc.h2.compact-interval-ms";
    public static final String H2_COMPACT_FILL_RATE = "jdbc.h2.compact-fill-rate";
    public static final String H2_RETENTION_TIME_MS = "jdbc.h2.retention-time-ms";
    public static final String WRITE_BEHIND_MS = "jdbc.write-behind-ms";

    /** For {@link java.util.ServiceLoader}. */
    public JdbcStoreProvider() {
    }

    @Override
    public String name() {
        return "jdbc";
    }

    @Override
    public int priority() {
        return 100;
    }

    @Override
    public ToolgateStore open(StoreSettings settings) {
        JdbcStore.Builder builder = JdbcStore.builder()
                .poolSize(settings.getInt(POOL_SIZE, JdbcStore.DEFAULT_POOL_SIZE))
                .connectionTimeout(Duration.ofMillis(settings.getInt(CONNECTION_TIMEOUT_MS,
                        (int) JdbcStore.DEFAULT_CONNECTION_TIMEOUT.toMillis())));
        builder = builder.url(settings.get(URL).orElse(JdbcStore.DEFAULT_URL));
        if (settings.get(USERNAME).isPresent()) {
            builder = builder.username(settings.get(USERNAME).get());
        }
        if (settings.get(PASSWORD).isPresent()) {
            builder = builder.password(settings.get(PASSWORD).get());
        }
        if (settings.get(SCHEMA).isPresent()) {
            builder = builder.schema(SchemaMode.parse(settings.get(SCHEMA).get()));
        }
        int interval = settings.getInt(H2_COMPACT_INTERVAL_MS, (int) H2Compaction.DEFAULT_INTERVAL.toMillis());
        int fillRate = settings.getInt(H2_COMPACT_FILL_RATE, H2Compaction.DEFAULT_FILL_RATE);
        if (interval < 0 || fillRate < 1 || fillRate > 99) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%s must be 0 or more (got %d) and %s from 1"
                    + " to 99 (got %d)", H2_COMPACT_INTERVAL_MS, interval, H2_COMPACT_FILL_RATE, fillRate));
        }
        int retention = settings.getInt(H2_RETENTION_TIME_MS, (int) H2Compaction.DEFAULT_RETENTION.toMillis());
        if (retention < 0) {
            throw new IllegalArgumentException(H2_RETENTION_TIME_MS + " must be 0 or more (got " + retention + ")");
        }
        int behind = settings.getInt(WRITE_BEHIND_MS, 0);
        if (behind < 0 || behind > 60_000) {
            throw new IllegalArgumentException(WRITE_BEHIND_MS + " must be from 0 to 60000 (got " + behind + ")");
        }
        return builder.h2Compaction(Duration.ofMillis(interval), fillRate, Duration.ofMillis(retention))
                .writeBehind(Duration.ofMillis(behind)).build();
    }

    @Override
    public String toString() {
        return "JdbcStoreProvider";
    }
}
