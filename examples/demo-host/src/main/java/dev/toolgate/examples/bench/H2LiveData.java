package dev.toolgate.examples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
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
     * The soak's H2 check: how soon after the load (the server idle but running) the files come within
     * {@code factor} times the live data, the size of a compacted copy of the file once the server has
     * stopped (closing the database adds and removes no data). {@code afterLoad} holds the samples taken
     * after the load stopped, each {milliseconds since it stopped, bytes of the files}, in time order up
     * to {@code limitMs}; the check passes when the last one is within the factor (the file settled near
     * its data), and it prints when the files first came within it, and the ratio at the end of the load
     * and 3 s after it (the soak's earlier single sample).
     */
    static String check(Path mvDb, long underLoad, List<long[]> afterLoad, long limitMs, double factor) {
        if (underLoad < 0 || afterLoad.isEmpty() || !Files.exists(mvDb)) {
            return "no size of the H2 files at the end of the load and after it ... FAILED";
        }
        try {
            long live = ofFile(mvDb);
            String head = String.format(Locale.ROOT, "%.1f MB of live data (a compacted copy); H2 files %.1f MB at the end"
                    + " of the load (%.2f x)", live / 1048576.0, underLoad / 1048576.0, (double) underLoad / live);
            long[] at3s = afterLoad.stream().filter(x -> x[0] >= 3_000).findFirst().orElse(afterLoad.get(afterLoad.size() - 1));
            String three = String.format(Locale.ROOT, "%.2f x at %.1f s", (double) at3s[1] / live, at3s[0] / 1000.0);
            long[] last = afterLoad.get(afterLoad.size() - 1);
            long[] first = afterLoad.stream().filter(x -> x[1] <= factor * live).findFirst().orElse(null);
            String when = first == null ? "never within " + factor + " x"
                    : String.format(Locale.ROOT, "first within %.1f x %.1f s after it", factor, first[0] / 1000.0);
            return String.format(Locale.ROOT, "%s; %.1f MB %.1f s after it (%.2f x; %s; %s), limit %.1f x ... %s", head,
                    last[1] / 1048576.0, last[0] / 1000.0, (double) last[1] / live, when, three, factor,
                    last[0] >= limitMs && last[1] <= factor * live ? "ok" : "FAILED");
        } catch (IOException | RuntimeException e) {
            return "cannot measure the live data of " + mvDb + ": " + e + " ... FAILED";
        }
    }

    private static long compactedSize(Path file) throws IOException {
        MVStoreTool.compact(file.toAbsolutePath().toString(), false);
        return Files.size(file);
    }
}
