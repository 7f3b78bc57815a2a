package dev.toolgate.jdbc;

import com.zaxxer.hikari.HikariConfig;
import java.time.Duration;
import java.util.Locale;

/**
 * Keeps a call from hanging on a database that stopped answering (a hung server, a dropped network:
 * connections open and silent). On PostgreSQL the pool's connections get the driver's timeouts, each set
 * only if the URL does not set it already:
 * <ul>
 *   <li>{@code socketTimeout}: the longest one statement waits for the server's answer; past it the
 *       driver closes the connection, the pool drops it, and the call fails with
 *       {@link dev.toolgate.spi.StoreUnavailableException} ({@code TIMEOUT});</li>
 *   <li>{@code connectTimeout} and {@code loginTimeout}: the longest opening a connection may take, so
 *       the pool's thread that opens connections never waits on a silent server for long;</li>
 *   <li>{@code tcpKeepAlive}: a connection whose peer vanished is found dead by the operating system.</li>
 * </ul>
 * All three timeouts are the store's connection timeout rounded up to whole seconds (the driver's unit),
 * at least {@value #MIN_SECONDS} s: one setting bounds both the wait for a connection and the wait for an
 * answer. The schema script, which may build indexes on a large table, runs without the socket timeout
 * ({@link #unbounded}).
 *
 * <p>H2 embedded has no network to hang on; H2 over TCP has no such driver setting.
 */
final class NetworkTimeouts {

    /** The least timeout given to the driver, in seconds. */
    static final int MIN_SECONDS = 2;

    private NetworkTimeouts() {
    }

    /** Sets the PostgreSQL driver's timeouts on {@code config} for {@code url}; other databases unchanged. */
    static void configure(HikariConfig config, String url, Duration connectionTimeout) {
        if (!url.regionMatches(true, 0, "jdbc:postgresql:", 0, 16)) {
            return;
        }
        String seconds = String.valueOf(seconds(connectionTimeout));
        String lower = url.toLowerCase(Locale.ROOT);
        for (String property : new String[] {"socketTimeout", "connectTimeout", "loginTimeout"}) {
            if (!lower.contains(property.toLowerCase(Locale.ROOT) + "=")) {
                config.addDataSourceProperty(property, seconds);
            }
        }
        if (!lower.contains("tcpkeepalive=")) {
            config.addDataSourceProperty("tcpKeepAlive", "true");
        }
    }

    /** {@code timeout} in whole seconds, rounded up, at least {@value #MIN_SECONDS}. */
    static int seconds(Duration timeout) {
        long millis = timeout.toMillis();
        return (int) Math.max(MIN_SECONDS, Math.min(Integer.MAX_VALUE, (millis + 999) / 1000));
    }

    /**
     * Runs {@code work} on {@code connection} without a network timeout (a long schema statement), and
     * restores the connection's timeout after it; a connection that cannot change it runs as it is.
     */
    static <R> R unbounded(java.sql.Connection connection, java.util.function.Supplier<R> work) {
        int before;
        try {
            before = connection.getNetworkTimeout();
            if (before == 0) {
                return work.get();
            }
            connection.setNetworkTimeout(Runnable::run, 0);
        } catch (java.sql.SQLException | UnsupportedOperationException | AbstractMethodError e) {
            return work.get();
        }
        try {
            return work.get();
        } finally {
            try {
                connection.setNetworkTimeout(Runnable::run, before);
            } catch (java.sql.SQLException ignored) {
                // the pool resets a connection's network timeout when it comes back
            }
        }
    }
}
