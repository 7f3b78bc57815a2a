package dev.toolgate.jdbc;

/** Budget exactness on PostgreSQL (one statement re-checking the budget row under its row lock). */
class PostgresConcurrencyTest extends ConcurrencyContract {

    @Override
    JdbcStore openStore() {
        String url = PostgresDatabase.freshSchema("concurrency");
        return JdbcStore.builder().url(url).poolSize(16).build();
    }
}
