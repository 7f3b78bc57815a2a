package dev.toolgate.jdbc.source;

import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.source.SourceContext;
import dev.toolgate.source.SourceTool;
import dev.toolgate.source.SourceToolException;
import dev.toolgate.source.ToolSource;
import dev.toolgate.tool.Effect;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A database as a tool source: a read-only SQL query tool and a table listing over a
 * {@link DataSource} the host owns. The source's id is {@code db:<name>}, its tools
 * {@code db:<name>.query} and {@code db:<name>.tables}, both {@link Effect#READ}, so they run
 * directly wherever the policy lets READ tools run, and only for principals holding the rules given to
 * {@link Builder#requires(String...)}.
 *
 * <pre>{@code
 * Toolgate gate = Toolgate.builder()
 *         .source(DatabaseSource.builder("reports", reportsDataSource)
 *                 .displayName("Reports warehouse")
 *                 .requires("reports.read")
 *                 .build())
 *         .build();
 * }</pre>
 *
 * <p>Three barriers keep a query from changing anything. Before anything reaches the database a
 * guard reads the text and refuses all but one read statement ({@code SELECT}, {@code WITH},
 * {@code VALUES}, {@code TABLE}): no second statement, no data-modifying CTE, no
 * {@code SELECT ... INTO}, no {@code FOR UPDATE}, no function with effects outside the query
 * ({@code pg_terminate_backend}, {@code set_config}, {@code lo_import}, {@code nextval},
 * {@code CSVWRITE}, ...), and nothing two databases would read differently (nested comments,
 * backslashes in literals, dollar quotes). The statement then runs in a read-only transaction
 * ({@code SET TRANSACTION READ ONLY} on PostgreSQL) with a statement timeout (default 5 seconds)
 * and is always rolled back. Third, give the source a database user that may only read: H2 does not
 * enforce read-only transactions, and no guard knows every function a database may have installed.
 *
 * <p>A query returns {@code {"columns": [...], "rows": [{...}, ...], "rowCount": n, "truncated": b}},
 * each row an object keyed by column label,
 * with at most {@link Builder#maxRows(int) maxRows} rows (default 100); {@code truncated} is true when
 * there were more. The gate redacts and caps the result like every other. A refused statement, a
 * database error or a timeout fails the call with a message for the model; a database that cannot be
 * reached makes the call fail with {@link SourceUnavailableException}.
 */
@SuppressWarnings("try") // close() may throw what a source's client throws; the gate closes sources itself
public final class DatabaseSource implements ToolSource {

    private static final Logger LOG = LoggerFactory.getLogger(DatabaseSource.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,32}");
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    static final String QUERY = "query";
    static final String TABLES = "tables";

    private final String id;
    private final String displayName;
    private final DataSource dataSource;
    private final Duration statementTimeout;
    private final int maxRows;
    private final Set<String> rules;
    private final SqlGuard guard;
    private volatile String product = "SQL";

    private DatabaseSource(Builder builder) {
        this.id = "db:" + builder.name;
        this.displayName = builder.displayName == null ? id : builder.displayName;
        this.dataSource = builder.dataSource;
        this.statementTimeout = builder.statementTimeout;
        this.maxRows = builder.maxRows;
        this.rules = Set.copyOf(builder.rules);
        this.guard = new SqlGuard(builder.deniedFunctions);
    }

    /**
     * Starts a source named {@code name} over {@code dataSource}.
     *
     * @param name       1-32 characters of {@code A-Za-z0-9_-}; the source's id is {@code db:<name>}
     * @param dataSource where connections come from; the host owns and closes it
     */
    public static Builder builder(String name, DataSource dataSource) {
        return new Builder(name, dataSource);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String displayName() {
        return displayName;
    }

    /** The longest a statement may run. */
    public Duration statementTimeout() {
        return statementTimeout;
    }

    /** The most rows a query returns. */
    public int maxRows() {
        return maxRows;
    }

    /**
     * Connects once (so an unreachable database is reported at listing) and offers the two tools.
     *
     * @throws SourceUnavailableException if no connection can be had
     */
    @Override
    public List<SourceTool> listTools(SourceContext context) {
        try (Connection connection = dataSource.getConnection()) {
            product = connection.getMetaData().getDatabaseProductName();
        } catch (SQLException e) {
            throw new SourceUnavailableException(null, null, id, "the database " + displayName + " cannot be reached: "
                    + firstLine(e.getMessage()));
        }
        return List.of(queryTool(), tablesTool());
    }

    private SourceTool queryTool() {
        ObjectNode schema = JSON.objectNode().put("type", "object").put("additionalProperties", false);
        ObjectNode properties = schema.putObject("properties");
        properties.putObject("sql").put("type", "string").put("minLength", 1).put("maxLength", SqlGuard.MAX_LENGTH)
                .put("description", "One read-only statement: SELECT, WITH, VALUES or TABLE. Use ? for values.");
        ObjectNode params = properties.putObject("params").put("type", "array").put("maxItems", 100)
                .put("description", "The values of the statement's ? placeholders, in order.");
        params.putObject("items").putArray("type").add("string").add("number").add("boolean").add("null");
        schema.putArray("required").add("sql");
        String description = "Run one read-only SQL query on the " + product + " database " + displayName
                + ". Only SELECT, WITH, VALUES and TABLE statements are accepted; pass values as params with ? "
                + "placeholders. Returns columns and rows (at most " + maxRows + "; truncated: true when there were "
                + "more). A statement running longer than " + seconds(statementTimeout) + " s is cancelled. Call "
                + TABLES + " first to see the tables and columns.";
        return new SourceTool(QUERY, "Query " + displayName, description, Effect.READ, schema, null, rules, false);
    }

    private SourceTool tablesTool() {
        ObjectNode schema = JSON.objectNode().put("type", "object").put("additionalProperties", false);
        schema.putObject("properties").putObject("schema").put("type", "string").put("maxLength", 128)
                .put("description", "Only the tables of this schema; all schemas the user may see by default.");
        String description = "List the tables and views of the " + product + " database " + displayName
                + " with their columns and column types.";
        return new SourceTool(TABLES, "Tables of " + displayName, description, Effect.READ, schema, null, rules, false);
    }

    @Override
    public JsonNode callTool(String tool, JsonNode arguments, SourceContext context) {
        return switch (tool) {
            case QUERY -> query(arguments.path("sql").asString(""), arguments.path("params"));
            case TABLES -> tables(arguments.path("schema").isString() ? arguments.path("schema").asString() : null);
            default -> throw new SourceToolException("the database source " + id + " has no tool " + tool);
        };
    }

    private JsonNode query(String sql, JsonNode params) {
        String statement;
        try {
            statement = guard.check(sql);
        } catch (SqlGuard.Refused refused) {
            LOG.debug("Statement refused for {}: {}", id, refused.getMessage());
            throw new SourceToolException("The statement was " + refused.describe());
        }
        return runChecked(statement, params);
    }

    /** Runs a statement the guard passed: the transaction's barriers alone (tests prove them without the guard). */
    JsonNode runChecked(String statement, JsonNode params) {
        return inReadOnlyTransaction(connection -> Results.query(connection, statement, params, maxRows,
                seconds(statementTimeout)));
    }

    private JsonNode tables(String schema) {
        return inReadOnlyTransaction(connection -> Results.tables(connection, schema));
    }

    @FunctionalInterface
    private interface Work {
        JsonNode run(Connection connection) throws SQLException;
    }

    /** Runs {@code work} in a read-only transaction with the statement timeout, and rolls it back. */
    private JsonNode inReadOnlyTransaction(Work work) {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            throw new SourceUnavailableException(null, null, id, "the database " + displayName + " cannot be reached: "
                    + firstLine(e.getMessage()));
        }
        boolean autoCommit = true;
        boolean readOnly = false;
        try (connection) {
            autoCommit = connection.getAutoCommit();
            readOnly = connection.isReadOnly();
            connection.setAutoCommit(false);
            connection.setReadOnly(true);
            if (isPostgres(connection)) {
                try (var statement = connection.createStatement()) {
                    statement.execute("SET TRANSACTION READ ONLY");
                    statement.execute("SET LOCAL statement_timeout = " + statementTimeout.toMillis());
                }
            }
            try {
                return work.run(connection);
            } finally {
                connection.rollback();
                connection.setReadOnly(readOnly);
                connection.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            // a driver's query timeout, or PostgreSQL's statement_timeout (57014 query_canceled)
            if (e instanceof SQLTimeoutException || "57014".equals(e.getSQLState())) {
                throw new SourceToolException("The statement ran longer than " + seconds(statementTimeout)
                        + " s and was cancelled");
            }
            if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
                throw new SourceUnavailableException(null, null, id, "the database " + displayName
                        + " was lost during the call: " + firstLine(e.getMessage()));
            }
            throw new SourceToolException("The database refused the statement"
                    + (e.getSQLState() == null ? "" : " (SQLSTATE " + e.getSQLState() + ")") + ": " + firstLine(e.getMessage()));
        }
    }

    private static boolean isPostgres(Connection connection) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        return meta.getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres");
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "no message";
        }
        int eol = message.indexOf('\n');
        return eol < 0 ? message : message.substring(0, eol);
    }

    private static int seconds(Duration duration) {
        return (int) Math.max(1, (duration.toMillis() + 999) / 1000);
    }

    @Override
    public String toString() {
        return "DatabaseSource[" + id + "]";
    }

    /** Settings of a {@link DatabaseSource}; {@link #build()} checks them. */
    public static final class Builder {
        private final String name;
        private final DataSource dataSource;
        private String displayName;
        private Duration statementTimeout = Duration.ofSeconds(5);
        private int maxRows = 100;
        private final Set<String> rules = new LinkedHashSet<>();
        private final Set<String> deniedFunctions = new LinkedHashSet<>();

        private Builder(String name, DataSource dataSource) {
            Objects.requireNonNull(name, "name");
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("A database source's name must be 1-32 characters of A-Za-z0-9_-, not '"
                        + name + "'");
            }
            this.name = name;
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** A name for people and the model, such as {@code Reports warehouse}; the id by default. */
        public Builder displayName(String displayName) {
            this.displayName = Objects.requireNonNull(displayName, "displayName");
            return this;
        }

        /** The longest a statement may run before the database cancels it: 1 second to 10 minutes, default 5 s. */
        public Builder statementTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.compareTo(Duration.ofSeconds(1)) < 0 || timeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("statementTimeout must be from 1 second to 10 minutes, not " + timeout);
            }
            this.statementTimeout = timeout;
            return this;
        }

        /** The most rows a query returns, 1 to 10,000; default 100. */
        public Builder maxRows(int maxRows) {
            if (maxRows < 1 || maxRows > 10_000) {
                throw new IllegalArgumentException("maxRows must be from 1 to 10000, not " + maxRows);
            }
            this.maxRows = maxRows;
            return this;
        }

        /** Access rules a principal must hold, all of them, to see and call the source's tools. */
        public Builder requires(String... rules) {
            for (String rule : rules) {
                this.rules.add(Objects.requireNonNull(rule, "rule"));
            }
            return this;
        }

        /**
         * Functions the guard refuses besides its own list: ones the host installed that write or reach
         * outside the database. Compared without case.
         */
        public Builder denyFunctions(String... names) {
            for (String function : names) {
                deniedFunctions.add(Objects.requireNonNull(function, "function").toLowerCase(Locale.ROOT));
            }
            return this;
        }

        /** The source. */
        public DatabaseSource build() {
            return new DatabaseSource(this);
        }
    }
}
