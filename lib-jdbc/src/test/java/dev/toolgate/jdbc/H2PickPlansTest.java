package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.spi.CallStore.Purge;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's batch changes (the expiry and interrupt sweeps, the purges) on H2 with a backlog many
 * times a batch: each batch reads about one batch of rows and locks at most one batch, whatever the
 * backlog. H2 2.x locks every row that satisfies a {@code FOR UPDATE} query before it applies the
 * {@code LIMIT}, and chose a purge's plan that sorts every finished call: a batch of 100 on 60,000 calls
 * locked 27,000 rows and took over a second. H2 keeps no table statistics here ({@code ANALYZE_AUTO=0},
 * see {@code JdbcStore}), so these are also the plans it makes without them.
 */
class H2PickPlansTest {

    private static final int BACKLOG = 3_000;
    private static final int BATCH = 50;
    private static final Pattern SCAN_COUNT = Pattern.compile("scanCount: (\\d+)");

    @TempDir
    Path dir;

    @Test
    void everyBatchReadsAboutOneBatchWhateverTheBacklog() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("plans").toAbsolutePath();
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).h2Compaction(Duration.ZERO, 80).build();
             Connection c = DriverManager.getConnection(JdbcStore.Builder.interruptSafe(url))) {
            fill(c);
            Instant cutoff = Instant.now().minus(Duration.ofHours(1));
            Map<String, PickedRows> picks = ((JdbcCallStore) store.calls()).picks();
            assertThat(picks).containsOnlyKeys("expiry sweep", "interrupt sweep", "finished calls", "closed proposals", "run purge");
            // the sweeps first, as the sweeper runs them: a purge's range on completed_at starts at the rows
            // that have none (pending proposals, claims), which H2's index keeps first
            assertBounded(c, "expiry sweep", picks, cutoff);
            assertBounded(c, "interrupt sweep", picks, cutoff);
            // and the batches do their work: each takes one batch, oldest first, until none is left
            int expired = 0;
            for (int n; (n = store.calls().expireDue(BATCH).size()) > 0; ) {
                expired += n;
            }
            assertThat(expired).isEqualTo(BACKLOG);
            int interrupted = 0;
            for (int n; (n = store.calls().interruptOverdue(BATCH).size()) > 0; ) {
                interrupted += n;
            }
            assertThat(interrupted).isEqualTo(BACKLOG);
            assertBounded(c, "finished calls", picks, cutoff);
            assertBounded(c, "closed proposals", picks, cutoff);
            assertBounded(c, "run purge", picks, cutoff);
            int purged = 0;
            for (int n; (n = store.calls().purge(Purge.FINISHED_CALLS, cutoff, BATCH)) > 0; ) {
                assertThat(n).isLessThanOrEqualTo(BATCH);
                purged += n;
            }
            assertThat(purged).as("finished calls completed before the cutoff").isEqualTo(BACKLOG);
            int closed = 0;
            for (int n; (n = store.calls().purge(Purge.CLOSED_PROPOSALS, cutoff, BATCH)) > 0; ) {
                closed += n;
            }
            assertThat(closed).as("proposals closed before the cutoff").isEqualTo(BACKLOG);
            int runs = 0;
            for (int n; (n = store.executions().purge(cutoff, BATCH)) > 0; ) {
                runs += n;
            }
            assertThat(runs).isEqualTo(BACKLOG);
            assertThat(count(c, "SELECT COUNT(*) FROM toolgate_call WHERE status = 'executed'"))
                    .as("calls finished after the cutoff are kept").isEqualTo(BATCH);
            assertThat(count(c, "SELECT COUNT(*) FROM toolgate_call")).as("and the calls expired and interrupted just now")
                    .isEqualTo(BATCH + 2L * BACKLOG);
        }
    }

    @Test
    void theInboxOfATenantReadsItsProposalsNotItsAuditTrail() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("inbox").toAbsolutePath();
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).h2Compaction(Duration.ZERO, 80).build();
             Connection c = DriverManager.getConnection(JdbcStore.Builder.interruptSafe(url))) {
            fill(c); // BACKLOG proposals (expired), claims, applied and rejected calls of tenant acme
            JdbcCallStore calls = (JdbcCallStore) store.calls();
            for (CallStatus status : new CallStatus[] {CallStatus.PROPOSED, CallStatus.APPLYING, CallStatus.INTERRUPTED}) {
                String plan = explainQuery(c, calls.querySql(CallQuery.latest(BATCH).status(status).tenant("acme")), status, "acme");
                Matcher scanned = SCAN_COUNT.matcher(plan);
                assertThat(scanned.find()).as(plan).isTrue();
                // the rows of that status (BACKLOG, or none), not the tenant's 4 x BACKLOG calls
                assertThat(Long.parseLong(scanned.group(1))).as("%s: %s", status, plan).isLessThanOrEqualTo(BACKLOG + 1L);
            }
            List<CallRecord> inbox = calls.query(CallQuery.latest(BATCH).status(CallStatus.PROPOSED).tenant("acme"));
            assertThat(inbox).hasSize(BATCH).allMatch(r -> r.status() == CallStatus.PROPOSED && "acme".equals(r.tenantId()));
            assertThat(inbox).extracting(CallRecord::createdAt).isSortedAccordingTo(java.util.Comparator.reverseOrder());
            List<String> newest = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM toolgate_call"
                    + " WHERE status = 'proposed' ORDER BY created_at DESC, id LIMIT " + BATCH)) {
                while (rs.next()) {
                    newest.add(rs.getString(1));
                }
            }
            assertThat(inbox).extracting(CallRecord::id).as("the newest proposals").isEqualTo(newest);
            assertThat(calls.query(CallQuery.latest(BATCH).status(CallStatus.PROPOSED).tenant("other"))).isEmpty();
            // a status many calls have keeps H2's own plan (the tenant's time index, newest first)
            assertThat(calls.querySql(CallQuery.latest(BATCH).status(CallStatus.APPLIED).tenant("acme"))).doesNotContain("USE INDEX");
            assertThat(calls.querySql(CallQuery.latest(BATCH).status(CallStatus.PROPOSED).session("s"))).doesNotContain("USE INDEX");
        }
    }

    private static String explainQuery(Connection c, String sql, CallStatus status, String tenant) throws Exception {
        String bound = sql.replace(":status", "'" + status.wireName() + "'").replace(":tenant_id", "'" + tenant + "'")
                .replace(":limit", Integer.toString(BATCH));
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN ANALYZE " + bound)) {
            rs.next();
            return rs.getString(1).replaceAll("\\s+", " ");
        }
    }

    /**
     * BACKLOG each of: calls applied two hours ago, proposals rejected two hours ago, proposals expired
     * a minute ago, claims overdue by a minute, runs finished two hours ago; and BATCH calls executed now.
     */
    private static void fill(Connection c) throws Exception {
        OffsetDateTime old = OffsetDateTime.now(ZoneOffset.UTC).minusHours(2);
        OffsetDateTime past = OffsetDateTime.now(ZoneOffset.UTC).minusMinutes(1);
        c.setAutoCommit(false);
        try (PreparedStatement p = c.prepareStatement("INSERT INTO toolgate_call (id, tool_name, effect, principal, tenant_id,"
                + " session_id, transport, status, mode, mode_source, arguments_hash, created_at, expires_at, completed_at,"
                + " outcome_due_at) VALUES (?, 'notes.touch', 'mutate', ?, 'acme', ?, 'java', ?, 'require_approval',"
                + " 'inferred_default', 'h', ?, ?, ?, ?)")) {
            int id = 0;
            for (int i = 0; i < BACKLOG; i++) {
                OffsetDateTime at = old.plusNanos(i * 1000L);
                id = call(p, id, i, "applied", at, null, at, null);
                id = call(p, id, i, "rejected", at, null, at, null);
                id = call(p, id, i, "proposed", at, past, null, null);
                id = call(p, id, i, "applying", at, null, null, past);
                if (i < BATCH) {
                    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
                    id = call(p, id, i, "executed", now, null, now, null);
                }
                if (i % 500 == 499) {
                    p.executeBatch();
                }
            }
            p.executeBatch();
        }
        try (PreparedStatement p = c.prepareStatement("INSERT INTO toolgate_execution (id, program, principal, principal_rules,"
                + " transport, auto_approve, input_json, status, attempt, created_at, updated_at, completed_at, logs)"
                + " VALUES (?, 'p', 'user:u', '[]', 'java', FALSE, '{}', 'succeeded', 1, ?, ?, ?, '[]')")) {
            for (int i = 0; i < BACKLOG; i++) {
                p.setString(1, String.format("run-%08d", i));
                p.setObject(2, old);
                p.setObject(3, old);
                p.setObject(4, old.plusNanos(i * 1000L));
                p.addBatch();
            }
            p.executeBatch();
        }
        c.commit();
        c.setAutoCommit(true);
    }

    private static int call(PreparedStatement p, int id, int i, String status, OffsetDateTime created, OffsetDateTime expires,
            OffsetDateTime completed, OffsetDateTime due) throws Exception {
        p.setString(1, String.format("%08d", id));
        p.setString(2, "user:u" + (i % 40));
        p.setString(3, "session-" + (i % 400));
        p.setString(4, status);
        p.setObject(5, created);
        p.setObject(6, expires);
        p.setObject(7, completed);
        p.setObject(8, due);
        p.addBatch();
        return id + 1;
    }

    /** The pick reads at most a few batches of rows for a batch, and locks none: a backlog many times a batch waits. */
    private static void assertBounded(Connection c, String name, Map<String, PickedRows> picks, Instant cutoff) throws Exception {
        String sql = picks.get(name).pickSql();
        assertThat(sql).as(name).doesNotContain("FOR UPDATE");
        String plan = explain(c, sql, cutoff);
        Matcher scanned = SCAN_COUNT.matcher(plan);
        assertThat(scanned.find()).as("%s: %s", name, plan).isTrue();
        // BACKLOG rows qualify; a plan that sorts or locks them all reads them all
        assertThat(Long.parseLong(scanned.group(1))).as("rows the %s reads for a batch of %d of %d: %s", name, BATCH, BACKLOG, plan)
                .isLessThanOrEqualTo(3L * BATCH);
        // the lock of the batch's ids reads those rows on the primary key, not a range of the backlog
        List<String> ids = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(bind(sql, cutoff))) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        assertThat(ids).as(name).hasSize(BATCH);
        String lock = picks.get(name).lockSql(BATCH);
        for (int i = BATCH - 1; i >= 0; i--) {
            lock = lock.replace(":k" + i, "'" + ids.get(i) + "'");
        }
        String lockPlan = explain(c, lock, cutoff);
        Matcher locked = SCAN_COUNT.matcher(lockPlan);
        assertThat(locked.find()).as("%s: %s", name, lockPlan).isTrue();
        assertThat(Long.parseLong(locked.group(1))).as("rows the %s's lock reads for %d ids: %s", name, BATCH, lockPlan)
                .isLessThanOrEqualTo(BATCH + 1L);
        // and so does the change of the locked ids (EXPLAIN only: its plan, without running it)
        String change = picks.get(name).changeSql(BATCH);
        for (int i = BATCH - 1; i >= 0; i--) {
            change = change.replace(":k" + i, "'" + ids.get(i) + "'");
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN " + bind(change, cutoff))) {
            rs.next();
            String changePlan = rs.getString(1).replaceAll("\\s+", " ");
            assertThat(changePlan).as("the %s's change", name).containsPattern("PRIMARY_KEY_[0-9A-F]*: ID IN\\(");
        }
    }

    private static String bind(String sql, Instant before) {
        return sql.replace(":limit", Integer.toString(BATCH))
                .replace(":before", "TIMESTAMP WITH TIME ZONE '" + before + "'")
                .replace(":now", "CAST(NULL AS TIMESTAMP WITH TIME ZONE)");
    }

    private static String explain(Connection c, String sql, Instant before) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN ANALYZE " + bind(sql, before))) {
            rs.next();
            return rs.getString(1).replaceAll("\\s+", " ");
        }
    }

    private static long count(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
