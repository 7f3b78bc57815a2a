package dev.toolgate.jdbc;

import java.nio.file.Path;

/**
 * The crash test on an H2 file database. An H2 file belongs to one process at a time, so the parent
 * closes its store before the child opens the file and reopens it after the kill.
 */
class H2CrashTest extends CrashContract {

    @Override
    String newDatabase(Path dir) {
        return "jdbc:h2:file:" + dir.resolve("toolgate").toAbsolutePath();
    }

    @Override
    boolean oneProcessAtATime() {
        return true;
    }
}
