package dev.toolgate.jdbc;

/** Budget exactness on PostgreSQL (one statement re-checking the budget row under its row lock). */
class PostgresConcurrencyTest extends ConcurrencyContract {

    @Override
    String newDatabase() {
        return PostgresDatabase.freshSchema("concurrency");
    }
}
