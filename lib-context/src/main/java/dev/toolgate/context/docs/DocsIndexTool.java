package dev.toolgate.context.docs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;

/**
 * Builds a prebuilt {@link DocsIndex} file at build time, and checks in CI that it still matches the docs:
 *
 * <pre>
 * java -cp ... dev.toolgate.context.docs.DocsIndexTool write src/main/docs target/classes/docs.idx
 * java -cp ... dev.toolgate.context.docs.DocsIndexTool check src/main/docs src/main/resources/docs.idx
 * </pre>
 *
 * {@code write} indexes every {@code .md} file under the docs directory (as {@link DocsIndex#fromDirectory}
 * does, with the default page budget) and writes the index with {@link DocsIndex#writeTo}. {@code check}
 * compares the pages the index was built from (paths and SHA-256 of their bytes) with the pages in the
 * directory now: exit code 0 when they are the same, 1 naming the first changed, added or removed page (in path
 * order) when they differ, or when the index file cannot be read; 2 for a wrong command line. The host then
 * loads the file with {@link DocsIndex#fromPrebuilt(String)}.
 */
public final class DocsIndexTool {

    private DocsIndexTool() {
    }

    /**
     * Runs the tool and exits with its {@linkplain #run(String[], PrintStream) exit code}.
     *
     * @param args {@code write <docs-dir> <out-file>} or {@code check <docs-dir> <index-file>}
     */
    public static void main(String[] args) {
        int code = run(args, System.out);
        System.out.flush();
        System.exit(code);
    }

    /**
     * Runs the tool without exiting, printing what it did or what is wrong to {@code out}.
     *
     * @param args {@code write <docs-dir> <out-file>} or {@code check <docs-dir> <index-file>}
     * @param out  where messages go
     * @return 0 when written or fresh, 1 when the index is stale or unreadable (or the docs cannot be read), 2
     *         for a wrong command line
     */
    public static int run(String[] args, PrintStream out) {
        if (args == null || args.length != 3 || !(args[0].equals("write") || args[0].equals("check"))) {
            out.println("usage: DocsIndexTool write <docs-dir> <out-file>");
            out.println("       DocsIndexTool check <docs-dir> <index-file>");
            return 2;
        }
        Path docs = Path.of(args[1]);
        Path file = Path.of(args[2]);
        if (!Files.isDirectory(docs)) {
            out.println("not a docs directory: " + docs);
            return 1;
        }
        try {
            return args[0].equals("write") ? write(docs, file, out) : check(docs, file, out);
        } catch (UncheckedIOException e) {
            out.println("cannot read the docs under " + docs + ": " + e.getMessage());
            return 1;
        }
    }

    private static int write(Path docs, Path file, PrintStream out) {
        DocsIndex index = DocsIndex.fromDirectory(docs);
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            // written next to the target and moved: a failed write never leaves a half file behind
            Path temporary = Files.createTempFile(parent, file.getFileName().toString(), ".tmp");
            try {
                try (OutputStream stream = Files.newOutputStream(temporary)) {
                    index.writeTo(stream);
                }
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(temporary);
            }
            out.println("wrote " + file + ": " + index.size() + " pages, sources " + index.sourceDigest() + ", "
                    + Files.size(file) + " bytes");
            return 0;
        } catch (IOException e) {
            out.println("cannot write " + file + ": " + e.getMessage());
            return 1;
        }
    }

    private static int check(Path docs, Path file, PrintStream out) {
        DocsIndex index;
        try (InputStream in = Files.newInputStream(file)) {
            index = DocsIndex.readFrom(in);
        } catch (IOException | UncheckedIOException e) {
            out.println("cannot read the docs index " + file + ": " + e.getMessage());
            return 1;
        } catch (IllegalArgumentException e) {
            out.println("the docs index " + file + " is not usable (" + e.getMessage() + "): rebuild it with "
                    + "DocsIndexTool write " + docs + " " + file);
            return 1;
        }
        String difference = difference(index.sourcePaths(), index.sourceHashes(), DocSources.directory(docs));
        if (difference == null) {
            out.println("docs index " + file + " is up to date: " + index.size() + " pages, sources "
                    + index.sourceDigest());
            return 0;
        }
        out.println("docs index " + file + " is stale: " + difference + "; rebuild it with DocsIndexTool write "
                + docs + " " + file);
        return 1;
    }

    /** The first difference, in path order, between the indexed sources and the pages now; null when none. */
    static String difference(String[] indexedPaths, byte[][] indexedHashes, List<DocSources.Source> now) {
        // both lists are sorted by path
        int i = 0;
        int j = 0;
        while (i < indexedPaths.length || j < now.size()) {
            int order = i >= indexedPaths.length ? 1 : j >= now.size() ? -1 : indexedPaths[i].compareTo(now.get(j).path());
            if (order < 0) {
                return "page removed: " + indexedPaths[i];
            }
            if (order > 0) {
                return "page added: " + now.get(j).path();
            }
            if (!Arrays.equals(indexedHashes[i], Prebuilt.sha256(now.get(j).text()))) {
                return "page changed: " + indexedPaths[i];
            }
            i++;
            j++;
        }
        return null;
    }
}
