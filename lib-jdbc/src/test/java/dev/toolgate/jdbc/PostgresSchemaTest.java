package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
        ExecutorService pool = Executors.newFixedThreadPool(instances);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> starts = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            starts.add(pool.submit(() -> {
                start.await();
                JdbcStore.builder().url(url).poolSize(1).build().close();
                return null;
            }));
        }
        start.countDown();
        try {
            for (Future<?> f : starts) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_schema_version")).isEqualTo(1);
    }
}
