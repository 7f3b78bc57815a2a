package dev.toolgate.context.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link DocsIndex.Builder} reads its sources and builds the index: a path met twice keeps its
 * first source, a folder's README or index page takes the folder's slug when free, pages are parsed one
 * by one in slug order, and every source's SHA-256 is kept for the index's digest.
 */
final class IndexBuild {

    /** The logger, made when first used: loading a prebuilt index does not start slf4j. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(DocsIndex.class);
    }

    private IndexBuild() {
    }

    /** The pages of one source, read when the index is built. */
    @FunctionalInterface
    interface SourceSupplier {
        List<DocSources.Source> get();
    }

    /** The {@code .md} files under the classpath folder {@code normalized}, as {@code loader} sees it. */
    static SourceSupplier classpath(String normalized, ClassLoader loader) {
        return new SourceSupplier() { // no lambdas on the start-up path: each costs a bootstrap
            @Override
            public List<DocSources.Source> get() {
                return DocSources.classpath(normalized, loader);
            }
        };
    }

    /** The {@code .md} files under a directory. */
    static SourceSupplier directory(Path root) {
        return new SourceSupplier() {
            @Override
            public List<DocSources.Source> get() {
                return DocSources.directory(root);
            }
        };
    }

    /** One page. */
    private static SourceSupplier page(DocSources.Source source) {
        return new SourceSupplier() {
            @Override
            public List<DocSources.Source> get() {
                return List.of(source);
            }
        };
    }

    /** One page from text, as if it were the file {@code path}; see {@link DocsIndex.Builder#page}. */
    static SourceSupplier page(String path, String markdown) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(markdown, "markdown");
        String p = path.replace('\\', '/');
        while (p.startsWith("/")) {
            p = p.substring(1);
        }
        if (!p.toLowerCase(Locale.ROOT).endsWith(".md") || p.length() <= 3) {
            throw new IllegalArgumentException("a page path ends in .md: " + path);
        }
        String finalPath = p;
        DocSources.Source source = new DocSources.Source(finalPath, markdown, "page ".concat(finalPath));
        return page(source);
    }

    /** Reads {@code sources} in order and builds the index. */
    static DocsIndex build(List<SourceSupplier> sources, int maxPageBytes) {
        long started = System.nanoTime();
        Map<String, DocSources.Source> byPath = new LinkedHashMap<>();
        for (SourceSupplier source : sources) {
            for (DocSources.Source file : source.get()) {
                DocSources.Source earlier = byPath.putIfAbsent(file.path(), file);
                if (earlier != null) {
                    Log.LOG.warn("Docs page {} from {} is shadowed by the same path from {}", file.path(), file.origin(),
                            earlier.origin());
                }
            }
        }
        List<Map.Entry<String, DocSources.Source>> bySlug = new ArrayList<>(slugs(byPath.values()).entrySet());
        int budget = maxPageBytes;
        int indexed = Math.max(DocsIndex.INDEXED_BYTES, maxPageBytes);
        // one by one in slug order: at start-up (a cold JVM) a parallel stream costs more than it saves
        List<Markdown.Parsed> pages = new ArrayList<>(bySlug.size());
        for (Map.Entry<String, DocSources.Source> entry : bySlug) {
            String path = entry.getValue().path();
            int slash = path.indexOf('/');
            String section = slash < 0 ? DocsIndex.ROOT_SECTION : path.substring(0, slash);
            pages.add(Markdown.parse(entry.getKey(), section, entry.getValue().text(), budget, indexed));
        }
        TreeMap<String, DocSources.Source> sorted = new TreeMap<>(byPath);
        String[] sourcePaths = new String[sorted.size()];
        byte[][] sourceHashes = new byte[sorted.size()][];
        int s = 0;
        java.security.MessageDigest sha256 = Prebuilt.sha256();
        for (DocSources.Source file : sorted.values()) {
            sourcePaths[s] = file.path();
            sourceHashes[s++] = sha256.digest(file.text().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        DocsIndex index = built(maxPageBytes, pages, sourcePaths, sourceHashes);
        if (Log.LOG.isDebugEnabled()) {
            Log.LOG.debug("Indexed {} docs pages ({} sections, {} terms) in {} ms", pages.size(), index.units().length,
                    index.postings().size(), (System.nanoTime() - started) / 1_000_000);
        }
        return index;
    }

    private static Map<String, DocSources.Source> slugs(Iterable<DocSources.Source> files) {
        TreeMap<String, DocSources.Source> bySlug = new TreeMap<>();
        List<DocSources.Source> readmes = new ArrayList<>();
        for (DocSources.Source file : files) {
            String path = withoutExtension(file.path());
            int slash = path.lastIndexOf('/');
            String name = path.substring(slash + 1).toLowerCase(Locale.ROOT);
            if (slash > 0 && (name.equals("readme") || name.equals("index"))) {
                readmes.add(file);
            } else {
                bySlug.put(path, file);
            }
        }
        for (DocSources.Source file : readmes) {
            String path = withoutExtension(file.path());
            String folder = path.substring(0, path.lastIndexOf('/'));
            if (!bySlug.containsKey(folder)) {
                bySlug.put(folder, file);
            } else if (!bySlug.containsKey(path)) {
                bySlug.put(path, file);
            } else {
                Log.LOG.warn("Docs page {} from {} has no free slug and is skipped", file.path(), file.origin());
            }
        }
        return bySlug;
    }

    private static String withoutExtension(String path) {
        return path.substring(0, path.length() - 3);
    }

    /** An index built from parsed pages: the pages as given, ranked now. */
    private static DocsIndex built(int maxPageBytes, List<Markdown.Parsed> parsed, String[] sourcePaths,
                                   byte[][] sourceHashes) {
        List<DocPage> pages = new ArrayList<>(parsed.size());
        String[] bodies = new String[parsed.size()];
        List<List<Markdown.Section>> sectionsOfPages = new ArrayList<>(parsed.size());
        for (Markdown.Parsed p : parsed) {
            bodies[pages.size()] = p.body();
            pages.add(p.page());
            sectionsOfPages.add(p.sections());
        }
        Ranker.Built ranked = Ranker.build(parsed);
        return DocsIndex.loaded(maxPageBytes, pages, bodies, sectionsOfPages, ranked.units(), ranked.postings(),
                sourcePaths, sourceHashes);
    }
}
