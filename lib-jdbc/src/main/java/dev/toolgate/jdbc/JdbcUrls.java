package dev.toolgate.jdbc;

import java.util.Locale;

/**
 * The JDBC URLs {@link JdbcStore} opens: an embedded H2 file's URL made interrupt-safe and given small
 * pages, and any URL without its credentials, for logs.
 */
final class JdbcUrls {

    /** The prefix {@link #interruptSafe} gives an embedded file URL's name. */
    static final String SAFE = H2InterruptSafePath.SCHEME + ":";

    private JdbcUrls() {
    }

    /**
     * The URL of an embedded H2 file database on the file system {@code interruptsafe:}
     * ({@link H2InterruptSafePath}, registered with H2 here), which no interrupt can close; any other URL
     * as it is. On H2's default file system ({@code file:}, or no prefix) the file is a
     * {@code FileChannel}, and a thread interrupted while H2 reads or writes it (a tool's timeout, a
     * host's {@code shutdownNow}, an HTTP watchdog) closes the channel for every thread: H2 then closes
     * the database and every call fails until it is reopened, and a commit in flight fails.
     * {@code interruptsafe:} reads and writes the same file through H2's own channel on the calling thread,
     * reopens it when an interrupt closed it and repeats the I/O, and keeps the interrupted thread's
     * interrupt for its own code. An explicit file system prefix ({@code nio:}, {@code async:},
     * {@code retry:}, {@code split:}...) is the host's choice and kept, and so is a URL with
     * {@code AUTO_SERVER=TRUE} (other processes reach that database under its plain name).
     */
    static String interruptSafe(String url) {
        H2InterruptSafePath.register();
        String prefix = "jdbc:h2:";
        if (!url.regionMatches(true, 0, prefix, 0, prefix.length())
                || url.toUpperCase(Locale.ROOT).replace(" ", "").contains(";AUTO_SERVER=TRUE")) {
            return url;
        }
        String name = url.substring(prefix.length());
        if (name.regionMatches(true, 0, "file:", 0, 5)) {
            return prefix + SAFE + name.substring(5);
        }
        int settings = name.indexOf(';');
        String path = settings < 0 ? name : name.substring(0, settings);
        // as H2 reads a name: a scheme is what precedes a colon at index 2 or later (C:/ is a drive)
        return path.indexOf(':') < 2 && !path.isEmpty() ? prefix + SAFE + name : url;
    }

    /**
     * The URL with H2's {@code PAGE_SIZE} set to {@value JdbcStore#H2_PAGE_SIZE} bytes when it is an
     * embedded file URL on the file system {@code interruptsafe:} (what {@link #interruptSafe} makes of a file
     * URL) that names no page size; any other URL as it is. The page size is where H2 splits a B-tree page,
     * and a commit writes a new copy of each page it touched: for a governed call, a leaf and its path
     * to the root in each of the call table's 12 B-trees. With H2's 16 KB, the MCP load benchmark's H2
     * file grew by 23.6 KB per call with the compaction off, with 4 KB by 13.9 KB, at the same
     * calls per second; so the compaction has 40% less to rewrite (see the module's README). With it,
     * {@code ANALYZE_AUTO=0}: no automatic table statistics inside a caller's commit.
     */
    static String smallPages(String url) {
        if (!url.startsWith("jdbc:h2:" + SAFE)
                || url.toUpperCase(Locale.ROOT).replace(" ", "").contains(";PAGE_SIZE=")) {
            return url;
        }
        // ANALYZE_AUTO=0: H2's automatic ANALYZE runs inside a caller's commit after the commit itself, and
        // scanning while chunks are freed it can fail with "Chunk N not found" (h2database #4383): the
        // MCP soak saw a committed insert reported as failed
        return url + ";PAGE_SIZE=" + JdbcStore.H2_PAGE_SIZE + ";ANALYZE_AUTO=0";
    }

    /** A URL without credentials, for logs. */
    static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
