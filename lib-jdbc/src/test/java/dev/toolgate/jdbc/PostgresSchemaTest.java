package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.testkit.Together;
import org.junit.jupiter.api.Test;

class PostgresSchemaTest extends SchemaContract {

    @Override
    String emptyDatabase(String name) {
        return PostgresDatabase.freshSchema("schema_" + name);
    }

    @Test
    void instancesStartingTogetherAllApplyTheSchema() throws Exception {
        String url = emptyDatabase("together");
        int instances = 4;
        Together.run(instances, i -> {
            JdbcStore.builder().url(url).poolSize(1).build().close();
            return null;
        });
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_schema_version")).isEqualTo(1);
    }
}
