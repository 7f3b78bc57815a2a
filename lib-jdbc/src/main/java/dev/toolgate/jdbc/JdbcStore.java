package dev.toolgate.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.ConversationStore;
import dev.toolgate.spi.ExecutionStore;
import dev.toolgate.spi.PolicyStore;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.spi.ToolgateStore;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Durable Toolgate storage in a relational database through JDBI and HikariCP: the audit trail, the
 * proposal tokens, the per-principal budget, the policy overrides and the runs of durable executions,
 * shared by every instance of a host that points at the same database. Embedded H2 is the zero-setup
 * default; PostgreSQL is the database for many instances.
 *
 * <pre>{@code
 * JdbcStore store = JdbcStore.builder()
 *         .url("jdbc:postgresql://db:5432/app").username("app").password(secret)
 *         .poolSize(10)
 *         .build();
 * Toolgate gate = Toolgate.builder().store(store).build();   // the host closes the store
 * }</pre>
 *
 * <p>Or add {@code toolgate-jdbc} to the classpath and set {@code toolgate.jdbc.url} (or
 * {@code TOOLGATE_JDBC_URL}): {@link JdbcStoreProvider} opens the store for {@code Toolgate.builder()}.
 *
 * <p><b>Default database.</b> Without a URL or a data source the store opens the H2 file database
 * {@value #DEFAULT_URL} (the files {@code ~/.toolgate/toolgate.mv.db}, created on first use). H2 in
 * file mode belongs to one process; use PostgreSQL when several instances share the store.
 *
 * <p><b>Interrupts.</b> The store opens an embedded H2 file URL ({@code jdbc:h2:file:...}, or a path
 * without a prefix) on the file system {@code interruptsafe:}, which the store registers with H2: on H2's
 * default one, a thread interrupted while H2 reads or writes the file (a tool's timeout, a host's
 * {@code shutdownNow}) closes the file for every thread, and H2 then fails every call with "The database
 * has been closed". On {@code interruptsafe:} the file is H2's own, read and written on the calling
 * thread, reopened when an interrupt closed it; the interrupted thread's call completes and the thread
 * keeps its interrupt. H2 opens a file once per process: to open the same file elsewhere in the process
 * while the store is open, use the {@code jdbc:h2:interruptsafe:} URL too (if the host opened it first
 * under its plain URL, the store joins that database and warns). An explicit prefix ({@code nio:},
 * {@code async:}, {@code retry:}...) and {@code AUTO_SERVER=TRUE}
 * URLs are used as given.
 *
 * <p><b>Connections.</b> With a URL the store creates its own HikariCP pool ({@link Builder#poolSize},
 * default {@value #DEFAULT_POOL_SIZE}; READ COMMITTED; {@link Builder#connectionTimeout}, default 5 s)
 * and closes it in {@link #close()}. With {@link Builder#dataSource} it uses the host's data source, never
 * creates a pool, and never closes it; the data source must use READ COMMITTED (the default of H2 and
 * PostgreSQL) and autocommit.
 *
 * <p><b>Schema (version 5).</b> Tables are prefixed {@code toolgate_}: {@code toolgate_call} (the audit
 * trail, one row per call and one column per {@link dev.toolgate.audit.CallRecord} component; a
 * proposal's row is also its token, holding only the nonce's digest; a step of a durable execution is a
 * call row carrying its run's id and step number, unique per run, and a rollback's revert one naming
 * the call it reverts, unique too), {@code toolgate_execution} (one row per run of a program, one column
 * per {@link dev.toolgate.audit.ExecutionRecord} component), {@code toolgate_budget} (one row
 * per metered principal: its next admission number and newest admission time, and on H2 its lock) with
 * {@code toolgate_budget_admission} (its admissions in the window, by number), on PostgreSQL the
 * function {@code toolgate_admit} (one admission in one statement),
 * {@code toolgate_session} (one row per session that proposed: on an H2 database other processes reach the
 * lock behind the pending cap; on an embedded H2 a lock of this JVM is, and on PostgreSQL the function
 * {@code toolgate_session_room} takes an advisory lock of the session instead),
 * {@code toolgate_mode_override}, {@code toolgate_tool_review} and {@code toolgate_schema_version}. The
 * scripts {@code dev/toolgate/jdbc/schema/h2.sql} and {@code postgresql.sql} in this jar are plain SQL,
 * idempotent ({@code CREATE ... IF NOT EXISTS}, {@code ADD COLUMN IF NOT EXISTS}) and cumulative (run
 * on a database of an earlier version they upgrade it: version 3 adds four columns and two unique
 * indexes to {@code toolgate_call} and the table {@code toolgate_execution}, rewriting no row; version 4
 * adds two columns to {@code toolgate_budget}, the table {@code toolgate_budget_admission} and, on
 * PostgreSQL, the function {@code toolgate_admit}, and moves each principal's version-3 log of
 * admission times into rows; version 5 adds, on PostgreSQL, the function {@code toolgate_session_room};
 * see the README), and record their version. By default ({@link SchemaMode#APPLY}) the store runs the script
 * at every start. A host that manages its schema
 * itself, for example with Flyway, copies the script for its database unchanged into its migrations
 * (for example {@code db/migration/V7__toolgate.sql}; a later Toolgate version's script is cumulative
 * and idempotent and goes in as a new migration) and sets {@link SchemaMode#VALIDATE}, which checks the
 * recorded version at start, or {@link SchemaMode#NONE}. A database whose recorded version is newer
 * than this library's fails the start with a message naming both versions (and, under
 * {@code VALIDATE}, one whose version is older).
 *
 * <p><b>Time.</b> By default every timestamp, expiry check and budget window uses the database's
 * clock ({@code statement_timestamp()} on PostgreSQL, {@code CURRENT_TIMESTAMP} on H2), so instances
 * with skewed clocks still agree on when a token expires or a window rolls: a token's TTL is checked
 * by the database, never by the instance that applies it. An injected {@link Builder#clock(Clock)}
 * replaces the database clock for every timestamp and check at once; it is meant for tests and
 * single-instance hosts.
 *
 * <p><b>Atomicity.</b> A governed read costs one durable commit: its audit row, written once with
 * its outcome before the result is released. When the principal is metered, the admission before
 * the tool runs is one more statement, exact under any concurrency across instances because each
 * admission decides under the principal's lock (H2: its budget row's; PostgreSQL: an advisory lock, so a
 * refusal writes nothing) on the log its predecessor committed; on
 * PostgreSQL it commits without waiting for the write-ahead log flush (visible to every instance at
 * once; a database crash can forget only the last fraction of a second of admissions). A principal
 * refused here is refused again without a statement until the slot that refusal waits for frees,
 * which ends no later than the database's own refusal would. A proposal is
 * one durable insert (with the session's row lock when the pending cap applies). Apply's single use is
 * one durable guarded update ({@code proposed} to {@code applying}, only if unexpired by the store's
 * clock, setting when its outcome is due) whose row count decides the one winner. The outcome after
 * it ({@code applied} or {@code failed}) commits asynchronously on PostgreSQL.
 *
 * <p><b>Rows written behind (opt-in).</b> With {@link Builder#writeBehind} the row of a call that
 * changed nothing (a read, a refusal, an invalid or failed call; never a step of a run) is written by a
 * background thread in a batch, one transaction per batch, at most the configured time after the call,
 * so such a call costs no statement at all when unmetered. A crash loses the rows still waiting; see
 * that method for everything it trades and everything it keeps durable.
 *
 * <p><b>Durable executions.</b> A run costs one update to finish it, committed asynchronously on
 * PostgreSQL, and its row in {@code toolgate_execution}, written in the transaction of its first step
 * (no commit of its own), plus its steps, each exactly
 * what the same single call costs (a step is an ordinary call row: the unique index on
 * {@code (execution_id, step_seq)} logs it once, adding no statement). A pause, an approval's resume
 * and a takeover are one durable guarded update each ({@code WHERE id = ? AND status = ? [AND attempt
 * = ?]}, the row count decides, so of concurrent approvals on every instance exactly one replays). A
 * finish a database crash forgot leaves the run running with every step logged; after the quiet
 * period the sweep takes it over, serves every step from the log and finishes it again. Every
 * operation's statements are listed in {@code JdbcCallStore}, {@code JdbcExecutionStore} and the
 * README.
 *
 * <p><b>Crashes.</b> A claim is never lost. If the outcome is (the instance died while the tool ran,
 * or a database crash forgot an outcome committed in its last fraction of a second), the call stays
 * {@code applying} until its outcome is due and is then marked {@code interrupted} (in doubt) by the
 * sweep ({@link CallStore#interruptOverdue}): it never reads applied without its outcome, and it is
 * never run again; an operator resolves it. A run whose instance died between steps reads running, and
 * is taken over by a sweep once quiet; one whose step is in doubt ends interrupted, re-running
 * nothing. On H2 the store sets the database's {@code WRITE_DELAY} to 0 at start, so each commit is in
 * the file before it returns and survives the process being killed (not a power loss). As H2 then runs
 * none of its own housekeeping, the store compacts an H2 file on a background thread
 * ({@link Builder#h2Compaction}) with a retention time of 2 s, which holds the file near twice its data
 * under a write-heavy load. Where H2's own open after a kill would go back to an older commit (a chunk
 * written into a hole of the file is named by no header H2 reads), the store, opening the file by URL,
 * first finds the newest complete commit by reading every chunk and makes the file point at it
 * ({@code H2Recovery}); a host that opens the file itself (its own data source, H2's console) before
 * the store does gets H2's own open, and a warning at start.
 *
 * <p><b>Retention.</b> {@link CallStore#purge} deletes finished calls, closed proposals (never a step
 * of a run that is running or paused), idle session rows and idle budget rows in small batches,
 * {@link ExecutionStore#purge} finished runs, and {@link CallStore#endSession} a session's row: each
 * batch picks its rows with {@code FOR UPDATE SKIP LOCKED} and re-checks them, so purges run safely on
 * every instance at once and never lose an admission, a proposal or an outcome that races them.
 *
 * <p><b>Failure.</b> Every database failure is classified once ({@code StoreFaults}): one that is the
 * database's (unreachable, shutting down, no answer or no connection in time, a conflict, read-only, no
 * space, an H2 file locked or corrupt) fails the operation with {@link StoreUnavailableException} of its
 * {@link dev.toolgate.spi.StoreFault}, retryable with a suggested delay when it is transient; the gate
 * then fails closed and runs nothing unrecorded. On PostgreSQL a statement waits for the server's answer
 * at most the connection timeout (rounded up to whole seconds, at least 2 s), so a hung server cannot
 * hang a call. An outage is logged once (WARN) and its end once (INFO, with its length and the refusals);
 * see the module README, "When the database fails". Thread-safe.
 */
public final class JdbcStore implements ToolgateStore {

    /** The H2 file database used when neither a URL nor a data source is configured. */
    public static final String DEFAULT_URL = "jdbc:h2:file:~/.toolgate/toolgate";
    /** H2's page size for the embedded file databases the store opens: see {@code JdbcUrls.smallPages}. */
    static final int H2_PAGE_SIZE = 4096;
    /** Connections in a pool the store creates, unless configured. */
    public static final int DEFAULT_POOL_SIZE = 10;
    /** How long an operation waits for a pooled connection before failing, unless configured. */
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(JdbcStore.class);

    private final Db db;
    private final HikariDataSource ownedPool;
    private final JdbcCallStore calls;
    private final JdbcPolicyStore policies;
    private final JdbcExecutionStore executions;
    private final JdbcConversationStore conversations;
    private final String description;
    private final H2Compaction compaction;
    private final WriteBehind behind;

    private JdbcStore(Db db, HikariDataSource ownedPool, String description, H2Compaction compaction, Duration writeBehind) {
        this.db = db;
        this.ownedPool = ownedPool;
        this.compaction = compaction;
        db.refreshEstimate(); // the first reading of the database clock, before any call needs it
        this.behind = writeBehind == null ? null : new WriteBehind(db, writeBehind, WriteBehind.MAX_ROWS);
        this.executions = new JdbcExecutionStore(db);
        this.calls = new JdbcCallStore(db, executions, behind);
        this.policies = new JdbcPolicyStore(db);
        this.conversations = new JdbcConversationStore(db);
        this.description = description;
    }

    /** Starts a builder (defaults: the H2 file database, pool of 10, 5 s timeout, schema applied, database clock). */
    public static Builder builder() {
        return new Builder(new Settings(null, null, null, null, DEFAULT_POOL_SIZE, DEFAULT_CONNECTION_TIMEOUT,
                SchemaMode.APPLY, null, H2Compaction.Config.defaults(), null));
    }

    @Override
    public CallStore calls() {
        return calls;
    }

    @Override
    public PolicyStore policies() {
        return policies;
    }

    @Override
    public ExecutionStore executions() {
        return executions;
    }

    @Override
    public ConversationStore conversations() {
        return conversations;
    }

    /**
     * Writes the audit rows still {@linkplain Builder#writeBehind written behind}, then closes the pool
     * the store created; a host's data source is left open. Idempotent.
     */
    @Override
    public void close() {
        if (behind != null) {
            behind.close();
        }
        db.markClosed();
        if (compaction != null) {
            compaction.close();
        }
        if (ownedPool != null && !ownedPool.isClosed()) {
            ownedPool.close();
        }
    }

    /** The writer of rows written behind, or null. */
    WriteBehind writeBehind() {
        return behind;
    }

    /** The outage log of this store's operations (for tests and diagnostics). */
    StoreOutage outage() {
        return db.outage();
    }

    /** The compaction of an embedded H2 file, or null. */
    H2Compaction compaction() {
        return compaction;
    }

    @Override
    public String toString() {
        return "JdbcStore[" + description + "]";
    }

    private record Settings(String url, String username, String password, DataSource dataSource, int poolSize,
                            Duration connectionTimeout, SchemaMode schema, Clock clock, H2Compaction.Config h2,
                            Duration writeBehind) {
    }

    /**
     * Configures a {@link JdbcStore}. Immutable: every method returns a new builder, so a partly
     * configured builder can be shared and specialized.
     */
    public static final class Builder {

        private final Settings s;

        private Builder(Settings settings) {
            this.s = settings;
        }

        /** The JDBC URL, such as {@code jdbc:postgresql://db:5432/app} or {@code jdbc:h2:file:/var/lib/app/toolgate}. */
        public Builder url(String url) {
            return new Builder(new Settings(Objects.requireNonNull(url, "url"), s.username, s.password, s.dataSource,
                    s.poolSize, s.connectionTimeout, s.schema, s.clock, s.h2, s.writeBehind));
        }

        /** The database user, for a URL. */
        public Builder username(String username) {
            return new Builder(new Settings(s.url, username, s.password, s.dataSource, s.poolSize, s.connectionTimeout,
                    s.schema, s.clock, s.h2, s.writeBehind));
        }

        /** The database password, for a URL. Never logged. */
        public Builder password(String password) {
            return new Builder(new Settings(s.url, s.username, password, s.dataSource, s.poolSize, s.connectionTimeout,
                    s.schema, s.clock, s.h2, s.writeBehind));
        }

        /**
         * The host's data source. The store then creates no pool and never closes it; URL, user,
         * password and pool size must not be set.
         */
        public Builder dataSource(DataSource dataSource) {
            return new Builder(new Settings(s.url, s.username, s.password, Objects.requireNonNull(dataSource, "dataSource"),
                    s.poolSize, s.connectionTimeout, s.schema, s.clock, s.h2, s.writeBehind));
        }

        /** Connections in the pool the store creates (default {@value JdbcStore#DEFAULT_POOL_SIZE}). */
        public Builder poolSize(int poolSize) {
            if (poolSize < 1) {
                throw new IllegalArgumentException("poolSize must be at least 1, got " + poolSize);
            }
            return new Builder(new Settings(s.url, s.username, s.password, s.dataSource, poolSize, s.connectionTimeout,
                    s.schema, s.clock, s.h2, s.writeBehind));
        }

        /**
         * How long an operation waits for a pooled connection (or a new one) before failing with
         * {@link StoreUnavailableException} (default 5 s, at least 250 ms). On PostgreSQL, a URL that does
         * not set them gets the driver's {@code socketTimeout}, {@code connectTimeout} and
         * {@code loginTimeout} of the same length rounded up to whole seconds (at least 2 s): the longest one
         * statement waits for an answer (the schema script at start excepted).
         */
        public Builder connectionTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.toMillis() < 250) {
                throw new IllegalArgumentException("connectionTimeout must be at least 250 ms, got " + timeout);
            }
            return new Builder(new Settings(s.url, s.username, s.password, s.dataSource, s.poolSize, timeout, s.schema,
                    s.clock, s.h2, s.writeBehind));
        }

        /** What to do with the schema at start (default {@link SchemaMode#APPLY}). */
        public Builder schema(SchemaMode mode) {
            return new Builder(new Settings(s.url, s.username, s.password, s.dataSource, s.poolSize, s.connectionTimeout,
                    Objects.requireNonNull(mode, "mode"), s.clock, s.h2, s.writeBehind));
        }

        /**
         * Takes all time from {@code clock} instead of the database: every timestamp, expiry check and
         * budget window. For tests (a controllable clock) and single-instance hosts only: instances
         * with their own clocks would disagree on expiry and windows by their clock skew.
         */
        public Builder clock(Clock clock) {
            return new Builder(new Settings(s.url, s.username, s.password, s.dataSource, s.poolSize, s.connectionTimeout,
                    s.schema, Objects.requireNonNull(clock, "clock"), s.h2, s.writeBehind));
        }

        /**
         * How an embedded H2 file database is kept near its live data: every {@code interval} a
         * background thread rewrites the sparsest chunks and moves chunks to truncate the file when
         * less than {@code fillRatePercent} of the chunks, or of the file, is live (default every 250 ms,
         * 80%, retention time 2 s; measured to hold the file within about twice its live data under a
         * write-heavy load, see the README). {@link Duration#ZERO} switches it off. Ignored for PostgreSQL and for in-memory or
         * remote H2 databases.
         *
         * @throws IllegalArgumentException if the interval is negative or the rate is not 1 to 99
         */
        public Builder h2Compaction(Duration interval, int fillRatePercent) {
            return h2Compaction(interval, fillRatePercent, s.h2.retention());
        }

        /**
         * As {@link #h2Compaction(Duration, int)}, and how long H2 keeps a dead chunk's space before
         * reusing it, and a chunk before it may be rewritten (default 2 s). A longer one (H2's own
         * default is 45 s) keeps that much more of the last writes in the file beyond its live data:
         * under a write-heavy load many times the data. A shorter one, 0 above all, lets H2 free a chunk
         * that a thread walking an older root of a map still reads, and fail that call (a COMMIT with
         * "Chunk N not found" was seen at 0): below one second the store warns at start. It does not
         * decide whether a killed process's commits survive: the store's check before it opens the file
         * does (see the README, "The H2 file on disk").
         */
        public Builder h2Compaction(Duration interval, int fillRatePercent, Duration retention) {
            H2Compaction.Config h2 = new H2Compaction.Config(Objects.requireNonNull(interval, "interval"), fillRatePercent,
                    Objects.requireNonNull(retention, "retention"));
            return new Builder(new Settings(s.url, s.username, s.password, s.dataSource, s.poolSize, s.connectionTimeout,
                    s.schema, s.clock, h2, s.writeBehind));
        }

        /**
         * Writes the audit rows of calls that changed nothing (reads, refusals, invalid and failed calls
         * outside a run) in batches on a background thread, each at most {@code within} after its call,
         * instead of one durable commit on each call's path; {@link Duration#ZERO} (the default) commits
         * each row before the call returns.
         *
         * <p><b>This trades durability for speed; read what it costs.</b> A process that dies loses the
         * rows still waiting, up to {@code within} of calls, and other instances see a row only once its
         * batch commits. A read changes nothing, so no call can run twice because of it; what is lost is
         * the record that the read happened. Everything that governs a mutation is unchanged and durable
         * before the tool runs: proposals, claims, outcomes, budget admissions (a metered call's
         * admission still commits on its path), and every step of a run. At most
         * {@value WriteBehind#MAX_ROWS} rows and 8 MiB of their text wait; beyond that a call writes its
         * own row. If a batch cannot be written, nothing is dropped: it waits at the head of the queue and,
         * until the database takes it, every call writes its own row again and so fails closed with
         * {@link StoreUnavailableException} like any other. On this instance a lookup of one call finds its
         * waiting row, and an audit query first writes every waiting row; {@link JdbcStore#close} writes
         * them all. Measured in the README ("Writing read rows behind").
         *
         * @throws IllegalArgumentException if {@code within} is negative or over one minute
         */
        public Builder writeBehind(Duration within) {
            Objects.requireNonNull(within, "within");
            if (within.isNegative() || within.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("writeBehind must be from 0 to 1 minute, got " + within);
            }
            return new Builder(new Settings(s.url, s.username, s.password, s.dataSource, s.poolSize, s.connectionTimeout,
                    s.schema, s.clock, s.h2, within.isZero() ? null : within));
        }

        /**
         * Opens the store: creates the pool (unless a data source was given), detects the database,
         * and applies or checks the schema.
         *
         * @throws StoreUnavailableException if the database cannot be reached
         * @throws IllegalStateException     if the schema is missing (in VALIDATE mode), from a newer
         *                                   version, or the database is neither H2 nor PostgreSQL
         */
        public JdbcStore build() {
            if (s.dataSource != null && (s.url != null || s.username != null || s.password != null)) {
                throw new IllegalStateException("Configure either a data source or a URL with credentials, not both");
            }
            HikariDataSource pool = s.dataSource == null
                    ? new JdbcPools(s.url, s.username, s.password, s.poolSize, s.connectionTimeout).open() : null;
            DataSource dataSource = pool != null ? pool : s.dataSource;
            Duration timeout = pool != null ? s.connectionTimeout : null;
            try {
                Jdbi jdbi = Db.jdbi(dataSource);
                Dialect dialect = jdbi.withHandle(h -> {
                    Dialect detected = JdbcOpenChecks.detect(h.getConnection());
                    if (pool == null) {
                        JdbcOpenChecks.requireDefaults(h.getConnection());
                    }
                    if (detected == Dialect.H2) {
                        JdbcOpenChecks.writeCommitsAtOnce(h);
                    }
                    NetworkTimeouts.unbounded(h.getConnection(), () -> {
                        Schema.prepare(h, detected, s.schema);
                        return null;
                    });
                    return detected;
                });
                Db db = new Db(jdbi, dataSource, dialect, s.clock, timeout);
                H2Compaction compaction = dialect != Dialect.H2 ? null
                        : jdbi.withHandle(h -> H2Compaction.startIfFile(dataSource, h.getConnection(), s.h2));
                if (pool == null && dialect == Dialect.H2 && jdbi.withHandle(h -> H2Compaction.isEmbeddedFile(h.getConnection()))) {
                    LOG.warn("The H2 file database behind the host's data source was opened before the store could check"
                            + " it: after a killed process H2's own open can go back to an older commit, losing the last"
                            + " ones (claims included). Give the store its URL instead, or see lib-jdbc's README,"
                            + " \"The H2 file on disk\"");
                }
                String description = dialect.productName() + " " + (pool != null ? redact(pool.getJdbcUrl()) : "host data source");
                LOG.info("Toolgate JDBC store on {} (schema {}, {} clock{}{})", description, s.schema.settingValue(),
                        s.clock == null ? "database" : "injected", compaction == null ? "" : ", file compacted every "
                                + s.h2.interval().toMillis() + " ms below " + s.h2.fillRate() + "% live",
                        s.writeBehind == null ? "" : ", rows of calls that changed nothing written behind within "
                                + s.writeBehind.toMillis() + " ms");
                return new JdbcStore(db, pool, description, compaction, s.writeBehind);
            } catch (RuntimeException e) {
                if (pool != null) {
                    pool.close();
                }
                throw Db.translate(e, timeout);
            }
        }

        /** See {@link JdbcUrls#interruptSafe}. */
        static String interruptSafe(String url) {
            return JdbcUrls.interruptSafe(url);
        }

        /** See {@link JdbcUrls#smallPages}. */
        static String smallPages(String url) {
            return JdbcUrls.smallPages(url);
        }

        /** A URL without credentials, for logs (see {@link JdbcUrls#redact}). */
        static String redact(String url) {
            return JdbcUrls.redact(url);
        }
    }
}
