package dev.toolgate.jdbc;

import java.nio.file.Path;

/** The crash test on PostgreSQL: the parent's store stays open while the child runs and dies. */
class PostgresCrashTest extends CrashContract {

    @Override
    String newDatabase(Path dir) {
        return PostgresDatabase.freshSchema("crash");
    }

    @Override
    boolean oneProcessAtATime() {
        return false;
    }
}
