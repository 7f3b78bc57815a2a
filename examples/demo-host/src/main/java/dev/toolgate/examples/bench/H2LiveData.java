package dev.toolgate.examples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import org.h2.mvstore.MVStoreTool;

/**
 * The live data of an H2 file database: the size of a fully compacted copy of its {@code .mv.db} file
 * ({@link MVStoreTool#compact(String, boolean)} rewrites only what the latest version references).
 * The database's own file is never touched; the copy is taken while the database is closed or quiet.
 */
final class H2LiveData {

    private H2LiveData() {
    }

    /** A closed database's file (or one of another process, read as it is now): its compacted copy's size. */
    static long ofFile(Path mvDb) throws IOException {
        Path copy = Files.createTempFile(mvDb.getParent(), "live-", ".mv.db");
        try {
            Files.copy(mvDb, copy, StandardCopyOption.REPLACE_EXISTING);
            return compactedSize(copy);
        } finally {
            Files.deleteIfExists(copy);
        }
    }

    /**
     * The soak's H2 check: the files a few seconds after the load (the server idle but running) against
     * the live data, the size of a compacted copy of the file once the server has stopped (closing the
     * database adds and removes no data); the files at the end of the load are printed too.
     */
    static String check(Path mvDb, long underLoad, long settled, long settleMs, double factor) {
        if (underLoad < 0 || settled < 0 || !Files.exists(mvDb)) {
            return "no size of the H2 files at the end of the load and after it ... FAILED";
        }
        try {
            long live = ofFile(mvDb);
            return String.format(Locale.ROOT, "%.1f MB of live data (a compacted copy); H2 files %.1f MB at the end of"
                            + " the load (%.2f x), %.1f MB %d s later (%.2f x), limit %.1f x", live / 1048576.0,
                    underLoad / 1048576.0, (double) underLoad / live, settled / 1048576.0, settleMs / 1000,
                    (double) settled / live, factor) + (settled <= factor * live ? " ... ok" : " ... FAILED");
        } catch (IOException | RuntimeException e) {
            return "cannot measure the live data of " + mvDb + ": " + e + " ... FAILED";
        }
    }

    private static long compactedSize(Path file) throws IOException {
        MVStoreTool.compact(file.toAbsolutePath().toString(), false);
        return Files.size(file);
    }
}
