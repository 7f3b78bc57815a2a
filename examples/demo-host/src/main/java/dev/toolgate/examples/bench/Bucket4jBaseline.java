package dev.toolgate.examples.bench;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Bucket4j's PostgreSQL backend (advisory-lock proxy manager) configured as "cap per window": a
 * bucket of {@code cap} tokens refilled with {@code cap} tokens every window.
 */
final class Bucket4jBaseline {

    private static final String TABLE = "bench_bucket";

    private final ProxyManager<Long> buckets;
    private final BucketConfiguration configuration;

    Bucket4jBaseline(DataSource dataSource, int cap, Duration window) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            s.execute("CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY, state BYTEA)");
        }
        this.buckets = Bucket4jPostgreSQL.advisoryLockBasedBuilder(dataSource).table(TABLE).build();
        this.configuration = BucketConfiguration.builder()
                .addLimit(Bandwidth.builder().capacity(cap).refillIntervally(cap, window).build())
                .build();
    }

    /** One admission attempt for the principal with this number. */
    boolean tryConsume(long principal) {
        return buckets.builder().build(principal, () -> configuration).tryConsume(1);
    }
}
