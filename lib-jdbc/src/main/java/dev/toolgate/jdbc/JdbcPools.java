package dev.toolgate.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.toolgate.spi.StoreUnavailableException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection pool {@link JdbcStore} creates when it is given a URL rather than a data source: on
 * the URL made safe for H2 files ({@link JdbcUrls}), after H2's recovery of a killed process's last
 * commits, joining a file this process already has open.
 */
final class JdbcPools {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcStore.class);
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final String url;
    private final String username;
    private final String password;
    private final int poolSize;
    private final Duration connectionTimeout;

    /** A pool's settings; {@code url} null for {@link JdbcStore#DEFAULT_URL}. */
    JdbcPools(String url, String username, String password, int poolSize, Duration connectionTimeout) {
        this.url = url;
        this.username = username;
        this.password = password;
        this.poolSize = poolSize;
        this.connectionTimeout = connectionTimeout;
    }

    /** Opens the pool. */
    HikariDataSource open() {
        String given = this.url != null ? this.url : JdbcStore.DEFAULT_URL;
        String url = JdbcUrls.smallPages(JdbcUrls.interruptSafe(given));
        if (url.regionMatches(true, 0, "jdbc:h2:", 0, 8)) {
            H2Recovery.beforeOpen(url); // a killed process's last commits, which H2's own open can miss
        }
        if (url.equals(given)) {
            return pool(url);
        }
        try {
            return pool(url);
        } catch (StoreUnavailableException e) {
            if (!alreadyOpenInThisProcess(e)) {
                throw e;
            }
            // the host has this file open through its own URL: H2 lets one process open a file once,
            // so the store joins that database, on a file system an interrupt can close
            LOG.warn("The H2 file database {} is already open in this process under that URL; the store joins it"
                    + " there, where a thread interrupted during H2's file I/O closes the database for every"
                    + " thread. Open it as {} everywhere to avoid that", JdbcUrls.redact(given), JdbcUrls.redact(url));
            return pool(given);
        }
    }

    /** H2's "Database may be already in use" for a file this process has open under another name. */
    private static boolean alreadyOpenInThisProcess(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && sql.getErrorCode() == 90020) {
                return true;
            }
        }
        return false;
    }

    private HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("toolgate-" + POOLS.incrementAndGet());
        config.setJdbcUrl(url);
        config.setUsername(username);
        config.setPassword(password);
        config.setMaximumPoolSize(poolSize);
        config.setConnectionTimeout(connectionTimeout.toMillis());
        config.setValidationTimeout(Math.max(250L, Math.min(connectionTimeout.toMillis(), 5_000L)));
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        config.setAutoCommit(true);
        NetworkTimeouts.configure(config, url, connectionTimeout);
        config.setExceptionOverride(new LostConnections()); // the store retires them, without a WARN each
        if (url.startsWith("jdbc:h2:") && !url.toUpperCase(Locale.ROOT).contains("LOCK_TIMEOUT")) {
            // admissions of one principal queue on its budget row; H2's default wait is one second
            config.setConnectionInitSql("SET LOCK_TIMEOUT 10000");
        }
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw StoreFaults.cannotOpen("Toolgate store unavailable: cannot connect to " + JdbcUrls.redact(url) + " ("
                    + rootMessage(e) + ")", e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage();
    }
}
