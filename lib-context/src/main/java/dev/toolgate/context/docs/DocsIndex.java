package dev.toolgate.context.docs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The host's Markdown documentation, indexed once at start-up for the {@link DocsTools docs tools}:
 * immutable, thread-safe, and identical on every instance built from the same files (pages are sorted by
 * slug and nothing depends on time, locale or hash order).
 *
 * <pre>{@code
 * DocsIndex docs = DocsIndex.fromClasspath("docs");           // every docs/**.md on the classpath, jars too
 * gate.registry().register(DocsTools.tools(docs, "docs.read"));
 * }</pre>
 *
 * <h2>Pages</h2>
 * Every {@code .md} file under the folder is a {@link DocPage}. Its <b>slug</b> is its path relative to the
 * folder, {@code /}-separated, without {@code .md}: {@code guides/setup.md} is {@code guides/setup}. A
 * {@code README.md} or {@code index.md} (any case) inside a sub-folder takes the folder's path, so
 * {@code lib-jdbc/README.md} is {@code lib-jdbc}; at the top of the folder it keeps its name
 * ({@code README}). If that folder slug already belongs to another page ({@code lib-jdbc.md}), the README keeps
 * its full path ({@code lib-jdbc/README}). When two sources hold the same path, the first one added wins
 * (for the classpath: class loader order) and the other is skipped with a warning.
 *
 * <p>A page's title is its front matter {@code title:}, else its first {@code #} heading, else its slug;
 * its description is the front matter {@code description:}. The body, front matter stripped, is indexed up to
 * {@value #INDEXED_BYTES} bytes of UTF-8 (or the page budget, if larger): only that text is searched and can be
 * read. A page's {@link DocPage#content() content} is cut further to {@linkplain Builder#maxPageBytes(int) a
 * per-page budget} ({@value #DEFAULT_MAX_PAGE_BYTES} bytes of UTF-8 by default, so that a {@code docs.getDoc}
 * result fits the gate's default 10 KiB result limit), and such a page says
 * {@link DocPage#truncated() truncated}; its {@code ##}/{@code ###} sections are read one at a time with
 * {@link #section(String, String)}, each cut to the same budget.
 *
 * <h2>Sections</h2>
 * A page's <b>section</b> for {@code docs.listDocs} is the first folder of its file's path (so
 * {@code lib-jdbc/README.md}, slug {@code lib-jdbc}, is in section {@code lib-jdbc}); pages at the top of the
 * folder are in {@value #ROOT_SECTION}.
 *
 * <h2>Ranking</h2>
 * {@link #search(String, int)} ranks with BM25 over the pages' sections (the text before the first
 * {@code ##}/{@code ###} heading, then one unit per heading), with field weights: page title and the
 * section's heading count three times, a {@code ###} section's parent heading and the page description one
 * and a half, the body once (length-normalized, k1 = 1.2, b = 0.75). A page scores as its best section,
 * whose heading and a snippet around the matches make the hit; ties break by slug. Pages and queries are
 * tokenized alike: Unicode letters and digits, lower case, English stop words and single letters dropped,
 * plural, {@code -ing}, {@code -ed} and final {@code e} endings removed.
 *
 * <h2>Knowing when to stop</h2>
 * A lexical ranker finds something for almost any query, so each {@link DocSearch} judges its best section:
 * <ul>
 *   <li>{@link DocSearch.Quality#EMPTY EMPTY}: no section holds any query term;</li>
 *   <li>{@link DocSearch.Quality#WEAK WEAK}: the query has no searchable word at all (only stop words or
 *       symbols: no hits); or the best section matches only <em>common</em> terms (found in more than a
 *       quarter of all sections, and in more than two) none of which is in its own heading; or it matches
 *       fewer than half of the query's uncommon terms (terms the docs never use count as uncommon, so
 *       "deploy on kubernetes" is weak when only "deploy" matches); or its score is under 15% of what the
 *       query could score at best;</li>
 *   <li>{@link DocSearch.Quality#STRONG STRONG} otherwise.</li>
 * </ul>
 * The note of an empty or weak result tells the model the docs most likely do not cover the topic and not
 * to retry near-identical queries; a strong one tells it to read the best page before answering.
 *
 * <h2>Jars</h2>
 * Classpath folders are found with {@link ClassLoader#getResources(String)}, which sees a folder inside a jar
 * only when the jar has the folder's own directory entry ({@code docs/}). Jars built by Maven, Gradle and the
 * {@code jar} tool have them; a jar written entry by entry without them is not found (a warning says the
 * folder is missing).
 */
public final class DocsIndex {

    /** The section of pages at the top of the docs folder. */
    public static final String ROOT_SECTION = "(root)";

    /**
     * The default per-page budget for a page's content or one section's text: 7 KiB of UTF-8, so that a
     * {@code docs.getDoc} result (the text as JSON, with slug, title, description, the headings still to read
     * and a note) fits the gate's default 10 KiB result limit with room to spare.
     */
    public static final int DEFAULT_MAX_PAGE_BYTES = 7 * 1024;

    /**
     * How much of a page's body is indexed (searched, and readable by section) when the page budget is smaller:
     * 64 KiB of UTF-8.
     */
    public static final int INDEXED_BYTES = 64 * 1024;

    /** The smallest per-page budget accepted. */
    public static final int MIN_MAX_PAGE_BYTES = 256;

    static final double K1 = 1.2;
    static final double B = 0.75;
    static final double W_TITLE = 3.0;
    static final double W_HEADING = 3.0;
    static final double W_PARENT = 1.5;
    static final double W_DESCRIPTION = 1.5;
    static final double W_BODY = 1.0;

    /**
     * A term in more than this share of the sections (and in more than two) is common: matching only such
     * terms is a weak hit.
     */
    static final double COMMON_SHARE = 0.25;
    /** A best hit matching less than this share of the query's uncommon terms (known or not) is weak. */
    static final double MIN_COVERAGE = 0.5;
    /** A best hit scoring less than this share of the query's attainable score is weak. */
    static final double MIN_RELATIVE_SCORE = 0.15;

    static final int SNIPPET_CHARS = 500;

    private final int maxPageBytes;
    private final List<DocPage> pages;
    private final String[] bodies;
    private final List<List<Markdown.Section>> pageSections;
    private final Map<String, DocPage> bySlug;
    private final List<String> sections;
    private final Unit[] units;
    private final Map<String, Postings> postings;
    /** The sources read, sorted by path, and the SHA-256 of each one's UTF-8 text. */
    private final String[] sourcePaths;
    private final byte[][] sourceHashes;

    /** One ranked section of a page. */
    record Unit(int page, String heading, int start, int end, int bodyStart) {
    }

    /**
     * Which sections hold a term, its weighted, length-normalized frequency in each, and whether it is in
     * the section's own heading (or its parent heading).
     */
    record Postings(int[] units, float[] tf, boolean[] inHeading) {
    }

    /** An index of pages already parsed and ranked: built now, or read from a prebuilt file as written. */
    private DocsIndex(int maxPageBytes, List<DocPage> pages, String[] bodies, List<List<Markdown.Section>> pageSections,
            Unit[] units, Map<String, Postings> postings, String[] sourcePaths, byte[][] sourceHashes) {
        this.maxPageBytes = maxPageBytes;
        this.pages = Collections.unmodifiableList(pages);
        this.bodies = bodies;
        this.pageSections = pageSections;
        Map<String, DocPage> map = new LinkedHashMap<>();
        Set<String> sectionNames = new TreeSet<>();
        for (DocPage page : this.pages) {
            map.put(page.slug(), page);
            sectionNames.add(page.section());
        }
        this.bySlug = Collections.unmodifiableMap(map);
        this.sections = List.copyOf(sectionNames);
        this.units = units;
        this.postings = postings;
        this.sourcePaths = sourcePaths;
        this.sourceHashes = sourceHashes;
    }

    static DocsIndex loaded(int maxPageBytes, List<DocPage> pages, String[] bodies,
            List<List<Markdown.Section>> pageSections, Unit[] units, Map<String, Postings> postings, String[] sourcePaths,
            byte[][] sourceHashes) {
        return new DocsIndex(maxPageBytes, pages, bodies, pageSections, units, postings, sourcePaths, sourceHashes);
    }

    /**
     * Indexes every {@code .md} file under the classpath folder {@code folder} (such as {@code "docs"}), from
     * directories and jars alike, with the thread's context class loader (else this class's loader).
     *
     * @param folder a classpath folder, without leading slash
     * @return the index; empty (with a warning logged) when no such folder is on the classpath
     */
    public static DocsIndex fromClasspath(String folder) {
        return builder().classpath(folder).build();
    }

    /** Indexes every {@code .md} file under the classpath folder {@code folder} as {@code loader} sees it. */
    public static DocsIndex fromClasspath(String folder, ClassLoader loader) {
        return builder().classpath(folder, loader).build();
    }

    /** Indexes every {@code .md} file under the directory {@code root}, recursively. */
    public static DocsIndex fromDirectory(Path root) {
        return builder().directory(root).build();
    }

    /**
     * Starts building an index on a daemon thread now and returns a supplier that waits for it (at
     * most {@code wait}), so the host's start-up does not: give it to
     * {@link DocsTools#tools(java.util.function.Supplier, String...)}. A build that fails, or one not done
     * within {@code wait}, fails the tool call that asked (the failure is recorded) and every later one
     * alike.
     *
     * <pre>{@code
     * gate.registry().register(DocsTools.tools(DocsIndex.inBackground(() -> DocsIndex.fromClasspath("docs"),
     *         Duration.ofSeconds(10))));
     * }</pre>
     */
    public static java.util.function.Supplier<DocsIndex> inBackground(java.util.function.Supplier<DocsIndex> build,
                                                                     java.time.Duration wait) {
        Objects.requireNonNull(build, "build");
        Objects.requireNonNull(wait, "wait");
        return BackgroundIndex.start(build, wait);
    }

    /**
     * Writes this index in the prebuilt binary format that {@link #readFrom(InputStream)} loads without
     * tokenizing or parsing again: a magic number ({@code TGDOCIDX}), the format version, the
     * {@linkplain #sourceDigest() SHA-256 of the source pages}, every source's path and SHA-256 (so
     * {@link DocsIndexTool} can name a changed page), then the pages, their bodies and sections, the term table
     * and the postings, and a CRC-32 of it all. The same pages and budget always give the same bytes. The stream
     * is flushed, not closed. Build the file at build time with {@code DocsIndexTool write}, and have CI run
     * {@code DocsIndexTool check} so that changed docs without a rebuilt file fail the build.
     *
     * @param out where to write; flushed, not closed
     * @throws IOException when {@code out} fails
     */
    public void writeTo(OutputStream out) throws IOException {
        Objects.requireNonNull(out, "out");
        PrebuiltWriter.write(this, out);
    }

    /**
     * Loads an index that {@link #writeTo(OutputStream)} wrote: it answers {@link #search}, {@link #pages()},
     * {@link #section}, {@link #suggestions} and the rest exactly as the index that was written. Reads {@code in}
     * to its end and does not close it.
     *
     * @param in the prebuilt file's bytes
     * @return the index
     * @throws IllegalArgumentException when the input is not a prebuilt index, is of another format version, is
     *         truncated or corrupt (the message says which); no index is returned then
     * @throws UncheckedIOException when reading {@code in} fails
     */
    public static DocsIndex readFrom(InputStream in) {
        Objects.requireNonNull(in, "in");
        return Prebuilt.read(in); // nothing logged: on a cold JVM that could cost more than the load
    }

    /**
     * Loads a prebuilt index (see {@link #readFrom(InputStream)}) from a classpath resource, such as
     * {@code "docs.idx"}, as the thread's context class loader (else this class's loader) sees it.
     *
     * <pre>{@code
     * DocsIndex docs = DocsIndex.fromPrebuilt("toolgate/docs.idx"); // written at build time by DocsIndexTool
     * }</pre>
     *
     * @param classpathResource the resource's name, without leading slash
     * @throws IllegalArgumentException when there is no such resource, or it is not a valid prebuilt index of
     *         this format version
     * @throws UncheckedIOException when reading it fails
     */
    public static DocsIndex fromPrebuilt(String classpathResource) {
        Objects.requireNonNull(classpathResource, "classpathResource");
        String name = classpathResource.startsWith("/") ? classpathResource.substring(1) : classpathResource;
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = DocsIndex.class.getClassLoader();
        }
        InputStream in = loader.getResourceAsStream(name);
        if (in == null) {
            throw new IllegalArgumentException("no prebuilt docs index on the classpath: " + name);
        }
        try (in) {
            return readFrom(in);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the prebuilt docs index " + name, e);
        }
    }

    /**
     * The hex SHA-256 that identifies the source pages this index was built from: over every page file read
     * (shadowed and skipped ones included), in path order, its path relative to the docs folder, a zero byte and
     * the SHA-256 of its text as read (its UTF-8 bytes). The same files give the same digest; a prebuilt index
     * keeps the digest of the files it was built from.
     *
     * @return 64 lower-case hex digits
     */
    public String sourceDigest() {
        return java.util.HexFormat.of().formatHex(Prebuilt.digest(sourcePaths, sourceHashes));
    }

    /** Starts an index of several sources, or with a different page budget. */
    public static Builder builder() {
        return new Builder();
    }

    /** Every page, sorted by slug. */
    public List<DocPage> pages() {
        return pages;
    }

    /** The page with this exact slug. */
    public Optional<DocPage> page(String slug) {
        return Optional.ofNullable(slug == null ? null : bySlug.get(slug));
    }

    /** The valid sections, sorted; see {@link DocPage#section()}. */
    public List<String> sections() {
        return sections;
    }

    /** The per-page budget in UTF-8 bytes for a page's content or one section's text. */
    public int maxPageBytes() {
        return maxPageBytes;
    }

    /** The number of pages. */
    public int size() {
        return pages.size();
    }

    /**
     * Ranks the pages for {@code query} and judges the result; see the class description.
     *
     * @param query free text; any characters (only letters and digits count)
     * @param limit the most hits to return, at least 1
     */
    public DocSearch search(String query, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1: " + limit);
        }
        return Ranker.search(this, query == null ? "" : query, limit);
    }

    /**
     * Up to three real slugs closest to {@code slug}: pages sharing the most of its words first, then the
     * smallest edit distance, then slug order. Pages sharing no word are suggested only when the edit
     * distance is small (a typo).
     */
    public List<String> suggestions(String slug) {
        return Suggestions.closest(slug == null ? "" : slug, bySlug.keySet(), 3);
    }

    /**
     * One {@code ##}/{@code ###} section of a page, cut to the {@linkplain #maxPageBytes() page budget}: the
     * first section whose heading is {@code heading} (case-insensitive; surrounding spaces ignored), from its
     * heading line up to the next heading of the same or a higher level, so a {@code ##} section holds its
     * {@code ###} sections.
     *
     * @return empty when there is no such page or the page has no such heading
     */
    public Optional<DocSection> section(String slug, String heading) {
        DocPage page = slug == null || heading == null ? null : bySlug.get(slug);
        if (page == null) {
            return Optional.empty();
        }
        int p = pageIndex(page);
        return SectionCut.section(page, bodies[p], pageSections.get(p), heading, maxPageBytes);
    }

    /**
     * The headings of a truncated page whose sections its {@link DocPage#content() content} does not show in
     * full, in page order; empty for a page that is not truncated.
     */
    public List<String> unreadHeadings(DocPage page) {
        Objects.requireNonNull(page, "page");
        if (!page.truncated() || bySlug.get(page.slug()) != page) {
            return List.of();
        }
        return SectionCut.unread(page, pageSections.get(pageIndex(page)));
    }

    private int pageIndex(DocPage page) {
        int p = Collections.binarySearch(slugs(), page.slug());
        if (p < 0 || pages.get(p) != page) {
            throw new IllegalArgumentException("not a page of this index: " + page.slug());
        }
        return p;
    }

    private List<String> slugs() {
        return new java.util.AbstractList<>() {
            @Override
            public String get(int index) {
                return pages.get(index).slug();
            }

            @Override
            public int size() {
                return pages.size();
            }
        };
    }

    /** The indexed body of page {@code p}: its content, or more of it when the page is truncated. */
    String body(int p) {
        return bodies[p];
    }

    Unit[] units() {
        return units;
    }

    List<Markdown.Section> sectionsOf(int page) {
        return pageSections.get(page);
    }

    String[] sourcePaths() {
        return sourcePaths.clone();
    }

    byte[][] sourceHashes() {
        byte[][] copy = new byte[sourceHashes.length][];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = sourceHashes[i].clone();
        }
        return copy;
    }

    Map<String, Postings> postings() {
        return postings;
    }

    @Override
    public String toString() {
        return "DocsIndex[" + pages.size() + " pages, " + units.length + " sections]";
    }

    /**
     * Collects sources for a {@link DocsIndex}. Sources are read when {@link #build()} runs, in the order
     * they were added. Not thread-safe.
     */
    public static final class Builder {

        private final List<IndexBuild.SourceSupplier> sources = new ArrayList<>();
        private int maxPageBytes = DEFAULT_MAX_PAGE_BYTES;

        private Builder() {
        }

        /**
         * The per-page budget in UTF-8 bytes for a page's content and for one section's text (default
         * {@value DocsIndex#DEFAULT_MAX_PAGE_BYTES}); a budget over {@value DocsIndex#INDEXED_BYTES} also indexes
         * that much of each page.
         */
        public Builder maxPageBytes(int bytes) {
            if (bytes < MIN_MAX_PAGE_BYTES) {
                throw new IllegalArgumentException("maxPageBytes must be at least " + MIN_MAX_PAGE_BYTES + ": " + bytes);
            }
            this.maxPageBytes = bytes;
            return this;
        }

        /** Adds the classpath folder {@code folder} as the thread's context class loader sees it. */
        public Builder classpath(String folder) {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            return classpath(folder, loader != null ? loader : DocsIndex.class.getClassLoader());
        }

        /** Adds the classpath folder {@code folder} as {@code loader} sees it: every directory and jar with it. */
        public Builder classpath(String folder, ClassLoader loader) {
            String normalized = DocSources.normalizeFolder(folder);
            Objects.requireNonNull(loader, "loader");
            sources.add(IndexBuild.classpath(normalized, loader));
            return this;
        }

        /** Adds the {@code .md} files under a directory. */
        public Builder directory(Path root) {
            Objects.requireNonNull(root, "root");
            sources.add(IndexBuild.directory(root));
            return this;
        }

        /**
         * Adds one page from text, as if it were the file {@code path} ({@code /}-separated, ending in
         * {@code .md}, relative to the docs folder).
         */
        public Builder page(String path, String markdown) {
            sources.add(IndexBuild.page(path, markdown));
            return this;
        }

        /** Reads the sources and builds the index. */
        public DocsIndex build() {
            return IndexBuild.build(sources, maxPageBytes);
        }
    }
}
