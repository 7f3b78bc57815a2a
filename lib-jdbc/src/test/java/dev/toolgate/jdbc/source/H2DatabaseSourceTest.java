package dev.toolgate.jdbc.source;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

/** The database source on embedded H2, which has no read-only transactions: the guard and the rollback hold. */
class H2DatabaseSourceTest extends DatabaseSourceContract {

    private final String url = "jdbc:h2:mem:bank-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

    @Override
    String freshUrl() {
        return url;
    }

    @Override
    String schema() {
        return "PUBLIC";
    }

    @Override
    long nextSequenceValue(Statement statement) throws SQLException {
        try (ResultSet rows = statement.executeQuery("SELECT NEXT VALUE FOR accounts_seq")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    @Override
    String slowRead() {
        return "SELECT count(*) FROM SYSTEM_RANGE(1, 1000000) a, SYSTEM_RANGE(1, 1000000) b WHERE a.X + b.X = 3";
    }

    @Override
    List<String> writesTheDatabaseRefuses() {
        return List.of();
    }
}
