package dev.toolgate.jdbc.source;

import dev.toolgate.jdbc.PostgresDatabase;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** The database source on a real PostgreSQL, whose read-only transaction refuses writes on its own. */
class PostgresDatabaseSourceTest extends DatabaseSourceContract {

    private String url;

    @Override
    String freshUrl() {
        if (url == null) {
            url = PostgresDatabase.freshSchema("db_source");
        }
        return url;
    }

    @Override
    String schema() {
        return "tg_db_source";
    }

    @Override
    long nextSequenceValue(Statement statement) throws SQLException {
        try (ResultSet rows = statement.executeQuery("SELECT nextval('accounts_seq')")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    @Override
    String slowRead() {
        return "SELECT count(*) FROM generate_series(1, 2000000000) a";
    }

    @Override
    List<String> writesTheDatabaseRefuses() {
        return List.of("SELECT nextval('accounts_seq')", "CREATE TABLE stolen (a int)",
                "SELECT * INTO stolen FROM accounts", "WITH gone AS (DELETE FROM accounts RETURNING *) SELECT * FROM gone",
                "SELECT * FROM accounts FOR UPDATE");
    }
}
