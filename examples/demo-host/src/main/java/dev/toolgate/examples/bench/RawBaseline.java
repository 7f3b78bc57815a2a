package dev.toolgate.examples.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The physical limit a governed call is compared with: plain JDBC on its own pool of the same size,
 * writing to {@code bench_raw_call}, a table created from the very statements that create
 * {@code toolgate_call} (same columns, same indexes), with ids in time order as Toolgate's are
 * (version-7 UUIDs: random ones would cost the baseline a random page of the primary key per insert).
 */
final class RawBaseline implements AutoCloseable {

    static final String TABLE = "bench_raw_call";

    private static final String COLUMNS = "id, tool_name, effect, principal, tenant_id, session_id, transport, status, mode,"
            + " mode_source, arguments_hash, created_at, summary, payload_json, token_digest, expires_at, result_json,"
            + " completed_at, duration_millis";
    private static final String INSERT_EXECUTED = "INSERT INTO " + TABLE + " (" + COLUMNS + ") VALUES (?, ?, 'read', ?, 'acme', ?,"
            + " 'java', 'executed', 'allow', 'inferred_default', ?, CURRENT_TIMESTAMP, NULL, NULL, NULL, NULL, '{\"pong\":true}',"
            + " CURRENT_TIMESTAMP, 0)";
    private static final String INSERT_PROPOSED = "INSERT INTO " + TABLE + " (" + COLUMNS + ") VALUES (?, 'bench.touch', 'mutate',"
            + " ?, 'acme', ?, 'java', 'proposed', 'require_approval', 'inferred_default', ?, CURRENT_TIMESTAMP, 'Touch k',"
            + " '{\"key\":\"k\"}', ?, CURRENT_TIMESTAMP + INTERVAL '10' MINUTE, NULL, NULL, NULL)";
    private static final String APPLY = "UPDATE " + TABLE + " SET status = 'applied', applied_by = ?, applied_at = CURRENT_TIMESTAMP"
            + " WHERE id = ? AND status = 'proposed' AND expires_at > CURRENT_TIMESTAMP";
    /** The claim as Toolgate makes it: single use, unexpired, with the time its outcome is due. */
    private static final String CLAIM = "UPDATE " + TABLE + " SET status = 'applying', applied_by = ?, applied_at = CURRENT_TIMESTAMP,"
            + " outcome_due_at = CURRENT_TIMESTAMP + INTERVAL '40' SECOND"
            + " WHERE id = ? AND status = 'proposed' AND expires_at > CURRENT_TIMESTAMP";
    /** The outcome as Toolgate writes it: only onto its own claim. */
    private static final String OUTCOME = "UPDATE " + TABLE + " SET status = 'applied', result_json = '\"touched k\"',"
            + " completed_at = CURRENT_TIMESTAMP, duration_millis = 0 WHERE id = ? AND status = 'applying'";
    private static final String HASH = "5f2b51ca2fdc5baa31ec02e002f69aec1b8d9e3b4b4a9d12e6b0dc1f1a0f7a11";

    private static final AtomicLong LAST_STAMP = new AtomicLong();

    private final HikariDataSource pool;

    RawBaseline(String url, String script, int poolSize) throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(poolSize);
        config.setPoolName("bench-raw");
        this.pool = new HikariDataSource(config);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            for (String statement : callTableStatements(script)) {
                s.execute(statement);
            }
        }
    }

    /** A version-7 UUID: milliseconds, then a sequence within the millisecond, then random bits. */
    static String newId() {
        long now = System.currentTimeMillis() << 12;
        long stamp = LAST_STAMP.updateAndGet(last -> Math.max(now, last + 1));
        long msb = ((stamp >>> 12) << 16) | 0x7000L | (stamp & 0xFFF);
        long lsb = (ThreadLocalRandom.current().nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb).toString();
    }

    DataSource dataSource() {
        return pool;
    }

    /** One autocommit insert of a finished read call's row: the one-commit limit. */
    void insertExecuted(String toolName, String principal, String session) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement p = c.prepareStatement(INSERT_EXECUTED)) {
            p.setString(1, newId());
            p.setString(2, toolName);
            p.setString(3, principal);
            p.setString(4, session);
            p.setString(5, HASH);
            p.executeUpdate();
        }
    }

    /** A proposal row inserted, then claimed with the guarded single-use update (two autocommit statements). */
    void proposeThenApply(String principal, String session) throws SQLException {
        String id = newId();
        try (Connection c = pool.getConnection()) {
            insertProposed(c, id, principal, session);
            updateOwnRow(c, APPLY, principal, id, "the raw guarded update lost its own row");
        }
    }

    /**
     * What Toolgate's mutation path commits, with the same durability: the proposal row inserted
     * (durable), claimed with the guarded single-use update (durable: a claim that is not durable before
     * the tool runs could run it twice after a crash), then its outcome written (on PostgreSQL without
     * waiting for the write-ahead log flush, as Toolgate's outcome is). Three autocommit statements.
     *
     * @return {@link System#nanoTime()} when the proposal's insert had committed
     */
    long proposeClaimComplete(String principal, String session, boolean postgres) throws SQLException {
        String id = newId();
        long inserted;
        try (Connection c = pool.getConnection()) {
            insertProposed(c, id, principal, session);
            inserted = System.nanoTime();
            updateOwnRow(c, CLAIM, principal, id, "the raw claim lost its own row");
            try (PreparedStatement p = c.prepareStatement(postgres ? OUTCOME.replace(" WHERE ", ASYNC_FROM + " WHERE ") : OUTCOME)) {
                p.setString(1, id);
                if (p.executeUpdate() != 1) {
                    throw new IllegalStateException("the raw outcome lost its own claim");
                }
            }
        }
        return inserted;
    }

    /** The proposal row {@code id}, one autocommit insert. */
    private static void insertProposed(Connection c, String id, String principal, String session) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(INSERT_PROPOSED)) {
            p.setString(1, id);
            p.setString(2, principal);
            p.setString(3, session);
            p.setString(4, HASH);
            p.setString(5, HASH);
            p.executeUpdate();
        }
    }

    /** A guarded update of row {@code id} by {@code principal} ({@code sql}: who, then id) that must change it. */
    private static void updateOwnRow(Connection c, String sql, String principal, String id, String lost) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setString(1, principal);
            p.setString(2, id);
            if (p.executeUpdate() != 1) {
                throw new IllegalStateException(lost);
            }
        }
    }

    /** PostgreSQL: commit this autocommit statement without waiting for the WAL flush (as toolgate-jdbc does). */
    private static final String ASYNC_FROM = " FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit";

    /** Admission times per principal of the rows of one tool. */
    Map<String, List<Instant>> admissions(String table, String toolName, String principalPrefix) throws SQLException {
        Map<String, List<Instant>> byPrincipal = new java.util.HashMap<>();
        try (Connection c = pool.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT principal, created_at FROM " + table
                     + " WHERE tool_name = ? AND principal LIKE ?")) {
            p.setString(1, toolName);
            p.setString(2, principalPrefix + "%");
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    byPrincipal.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                            .add(rs.getObject(2, OffsetDateTime.class).toInstant());
                }
            }
        }
        return byPrincipal;
    }

    /**
     * The statements that shape {@code toolgate_call} and its indexes ({@code CREATE}, and the
     * {@code ALTER TABLE}s later schema versions add), in script order, renamed to {@link #TABLE}.
     */
    private static List<String> callTableStatements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder sql = new StringBuilder();
        for (String line : script.split("\n")) {
            if (!line.trim().startsWith("--")) {
                sql.append(line).append('\n');
            }
        }
        for (String statement : sql.toString().split(";")) {
            String s = statement.trim();
            if ((s.startsWith("CREATE") || s.startsWith("ALTER")) && s.matches("(?s).*\\btoolgate_call\\b.*")) {
                out.add(s.replace("toolgate_call", TABLE));
            }
        }
        return out;
    }

    /** The schema script toolgate-jdbc ships for a database. */
    static String script(boolean postgres) {
        String name = "dev/toolgate/jdbc/schema/" + (postgres ? "postgresql.sql" : "h2.sql");
        try (InputStream in = RawBaseline.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}
