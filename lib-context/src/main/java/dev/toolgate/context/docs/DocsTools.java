package dev.toolgate.context.docs;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Range;
import dev.toolgate.tool.Size;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.tool.ToolValidationException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The three read-only documentation tools of plugin {@value #PLUGIN_ID} over a {@link DocsIndex}:
 * <ul>
 *   <li>{@value #LIST_DOCS} {@code ({section?})}: every page's slug, title and description, the valid
 *       sections, and a note that a missing topic means the docs do not cover it;</li>
 *   <li>{@value #SEARCH_DOCS} {@code ({query, limit?})}: BM25-ranked hits (slug, title, heading, snippet,
 *       score) and a note judging them, so a model stops re-searching when nothing fits;</li>
 *   <li>{@value #GET_DOC} {@code ({slug, heading?})}: one page's Markdown, or with {@code heading} one of its
 *       {@code ##}/{@code ###} sections; a page cut to the page budget lists the headings still to read and
 *       says to read them by {@code heading}; an unknown slug names the closest real ones and never falls back
 *       to another page, an unknown heading names some of the page's headings.</li>
 * </ul>
 * All three are {@link Effect#READ}, so they run inline with no consent step; the rules passed to
 * {@link #tools(DocsIndex, String...)} are the only authorization.
 *
 * <pre>{@code
 * DocsIndex docs = DocsIndex.fromClasspath("docs");
 * Toolgate gate = Toolgate.builder()
 *         .provider(DocsTools.tools(docs, "docs.read"))
 *         .resultLimitBytes(Math.max(10 * 1024, DocsTools.resultLimitBytes(docs)))
 *         .build();
 * }</pre>
 *
 * <p><b>Result size.</b> The gate prunes every result to its result limit (10 KiB by default) by dropping
 * whole values. With the default {@linkplain DocsIndex.Builder#maxPageBytes(int) page budget}
 * ({@value DocsIndex#DEFAULT_MAX_PAGE_BYTES} bytes) a {@value #GET_DOC} result fits that limit, and a longer
 * page is read a section at a time. A host that raises the page budget gives the gate at least
 * {@link #resultLimitBytes(DocsIndex)}.
 */
public final class DocsTools {

    /** The plugin id the tools are registered under. */
    public static final String PLUGIN_ID = "docs";

    /** The qualified name of the sitemap tool. */
    public static final String LIST_DOCS = "docs.listDocs";

    /** The qualified name of the search tool. */
    public static final String SEARCH_DOCS = "docs.searchDocs";

    /** The qualified name of the page tool. */
    public static final String GET_DOC = "docs.getDoc";

    /** The number of hits {@value #SEARCH_DOCS} returns when the model passes no limit. */
    public static final int DEFAULT_LIMIT = 5;

    /** The most UTF-8 bytes of heading text a {@value #GET_DOC} result lists as still to read. */
    static final int MAX_LISTED_HEADING_BYTES = 1024;

    /** The most headings an unknown-heading error names. */
    static final int MAX_NAMED_HEADINGS = 5;

    private DocsTools() {
    }

    /**
     * The input of {@value #LIST_DOCS}.
     *
     * @param section only the pages of this section; all pages when absent
     */
    public record ListDocsInput(
            @JsonPropertyDescription("Only pages of this top-level section, one of the 'sections' a previous call "
                    + "returned; omit for every page.")
            @Size(min = 1, max = 200) Optional<String> section) {
    }

    /**
     * The input of {@value #SEARCH_DOCS}.
     *
     * @param query the keywords
     * @param limit the most hits, 1-10, {@value #DEFAULT_LIMIT} when absent
     */
    public record SearchDocsInput(
            @JsonPropertyDescription("Keywords of the question, such as 'roll back durable run'.")
            @Size(min = 1, max = 400) String query,
            @JsonPropertyDescription("The most hits to return, 1-10; default 5.")
            @Range(min = 1, max = 10) Optional<Integer> limit) {
    }

    /**
     * The input of {@value #GET_DOC}.
     *
     * @param slug    a slug returned by {@value #LIST_DOCS} or {@value #SEARCH_DOCS}
     * @param heading one of the page's {@code ##}/{@code ###} headings (exact text, any case): only that
     *                section; the whole page (cut to the page budget) when absent
     */
    public record GetDocInput(
            @JsonPropertyDescription("A slug exactly as docs.listDocs or docs.searchDocs returned it; never "
                    + "construct one from a topic name.")
            @Size(min = 1, max = 300) String slug,
            @JsonPropertyDescription("Read only this section of the page: one of its headings exactly as a "
                    + "search hit's 'heading' or a previous docs.getDoc 'headings' list gave it. Omit for the page.")
            @Size(min = 1, max = 300) Optional<String> heading) {
    }

    /**
     * The documentation tools over {@code index}, as plugin {@value #PLUGIN_ID}.
     *
     * @param index         the pages; shared, immutable
     * @param requiredRules the access rules a caller must hold to see and call the tools, such as
     *                      {@code docs.read}; none makes them available to every principal
     */
    public static ToolProvider tools(DocsIndex index, String... requiredRules) {
        Objects.requireNonNull(index, "index");
        return tools(() -> index, requiredRules);
    }

    /**
     * The documentation tools over an index that may still be building, such as
     * {@link DocsIndex#inBackground}'s: each call takes the index from {@code index} when it runs, so the
     * host's start-up does not wait for the build; the first call waits for it instead.
     *
     * @param index         gives the index; called on every tool call, so it must be cheap once built
     * @param requiredRules as for {@link #tools(DocsIndex, String...)}
     */
    public static ToolProvider tools(java.util.function.Supplier<DocsIndex> index, String... requiredRules) {
        Objects.requireNonNull(index, "index");
        List<String> rules = List.of(requiredRules);
        return ToolProvider.of(PLUGIN_ID, listDocs(index, rules), searchDocs(index, rules), getDoc(index, rules));
    }

    /**
     * The smallest gate result limit ({@code ToolgateBuilder.resultLimitBytes}) with which no result of these
     * tools over {@code index} is pruned: the largest of the full {@value #LIST_DOCS} result, any
     * {@value #GET_DOC} result (of a page or of any of its sections) and a full {@value #SEARCH_DOCS} result,
     * plus room for redaction markers.
     */
    public static int resultLimitBytes(DocsIndex index) {
        long largest = size(list(index, null));
        for (DocPage page : index.pages()) {
            largest = Math.max(largest, size(page(index, page)));
            for (String heading : page.headings()) {
                largest = Math.max(largest, size(section(index.section(page.slug(), heading).orElseThrow())));
            }
        }
        // ten hits of a ~500-character snippet with title, heading and slug, plus the note
        largest = Math.max(largest, 10L * 3 * (DocsIndex.SNIPPET_CHARS + 400) + 1024);
        return (int) Math.min(Integer.MAX_VALUE, largest + 1024);
    }

    private static Tool<ListDocsInput, ObjectNode> listDocs(java.util.function.Supplier<DocsIndex> indexes, List<String> rules) {
        return Tool.builder("listDocs", ListDocsInput.class)
                .title("List documentation pages")
                .description("List every page of the documentation (slug, title, description) and its sections. Use "
                        + "it to see what the docs cover and jump straight to a slug for docs.getDoc. If no title or "
                        + "description fits the question, the docs do not cover it: say so instead of searching.")
                .effect(Effect.READ)
                .requires(rules)
                .execute((in, ctx) -> {
                    DocsIndex index = indexes.get();
                    String section = in.section() == null ? null : in.section().orElse(null);
                    if (section != null && !index.sections().contains(section)) {
                        throw new ToolValidationException("/section", "unknown section '" + clip(section)
                                + "'; valid sections: " + (index.sections().isEmpty() ? "(none: the docs are empty)"
                                : String.join(", ", index.sections())) + ". Omit it to list every page.");
                    }
                    return list(index, section);
                })
                .build();
    }

    private static Tool<SearchDocsInput, ObjectNode> searchDocs(java.util.function.Supplier<DocsIndex> indexes, List<String> rules) {
        return Tool.builder("searchDocs", SearchDocsInput.class)
                .title("Search the documentation")
                .description("Keyword search over the documentation (BM25 over titles, headings and text). Returns "
                        + "the best pages with the matching section's heading, a snippet and a score, plus a 'note' "
                        + "saying what to do next: follow it. When the note says the results are weak or empty, the "
                        + "docs do not cover the topic; do not retry reworded queries.")
                .effect(Effect.READ)
                .requires(rules)
                .execute((in, ctx) -> {
                    DocsIndex index = indexes.get();
                    int limit = in.limit() == null ? DEFAULT_LIMIT : in.limit().orElse(DEFAULT_LIMIT);
                    DocSearch search = index.search(in.query(), limit);
                    ObjectNode out = Json.object();
                    ArrayNode hits = out.putArray("hits");
                    for (DocHit hit : search.hits()) {
                        ObjectNode json = hits.addObject();
                        json.put("slug", hit.slug());
                        json.put("title", hit.title());
                        if (hit.heading() != null) {
                            json.put("heading", hit.heading());
                        }
                        json.put("snippet", hit.snippet());
                        json.put("score", hit.score());
                    }
                    out.put("quality", search.quality().name().toLowerCase(java.util.Locale.ROOT));
                    out.put("note", search.note());
                    return out;
                })
                .build();
    }

    private static Tool<GetDocInput, ObjectNode> getDoc(java.util.function.Supplier<DocsIndex> indexes, List<String> rules) {
        return Tool.builder("getDoc", GetDocInput.class)
                .title("Read a documentation page")
                .description("Read one documentation page (Markdown). Pass a slug exactly as docs.listDocs or "
                        + "docs.searchDocs returned it. A long page comes back cut ('truncated': true) with the "
                        + "'headings' still to read: call again with one as 'heading' to read that section.")
                .effect(Effect.READ)
                .requires(rules)
                .execute((in, ctx) -> {
                    DocsIndex index = indexes.get();
                    DocPage page = index.page(in.slug()).orElseThrow(() -> unknownSlug(index, in.slug()));
                    String heading = in.heading() == null ? null : in.heading().orElse(null);
                    if (heading == null) {
                        return page(index, page);
                    }
                    return section(index.section(page.slug(), heading)
                            .orElseThrow(() -> unknownHeading(page, heading)));
                })
                .build();
    }

    private static ToolValidationException unknownHeading(DocPage page, String heading) {
        String message;
        if (page.headings().isEmpty()) {
            message = "page '" + page.slug() + "' has no ## or ### headings; omit 'heading' to read the page.";
        } else {
            // headings sharing a word with the input first, then the page's first ones
            java.util.Set<String> words = new java.util.HashSet<>(Tokenizer.terms(heading));
            List<String> named = new java.util.ArrayList<>();
            for (String h : page.headings()) {
                if (named.size() < MAX_NAMED_HEADINGS && !named.contains(h)
                        && !java.util.Collections.disjoint(words, Tokenizer.terms(h))) {
                    named.add(h);
                }
            }
            for (String h : page.headings()) {
                if (named.size() < MAX_NAMED_HEADINGS && !named.contains(h)) {
                    named.add(h);
                }
            }
            message = "page '" + page.slug() + "' has no heading '" + clip(heading) + "'. Its headings include: "
                    + String.join("; ", named) + (page.headings().size() > named.size() ? " (of "
                    + page.headings().size() + ")" : "") + ". Pass one exactly, or omit 'heading' to read the page.";
        }
        return new ToolValidationException("/heading", message);
    }

    private static ToolValidationException unknownSlug(DocsIndex index, String slug) {
        List<String> closest = index.suggestions(slug);
        String message = "no page '" + clip(slug) + "'. "
                + (closest.isEmpty() ? "No page slug shares a word with it."
                : "Closest pages: " + String.join(", ", closest) + ".")
                + " Use a slug exactly as docs.listDocs or docs.searchDocs returned it; call docs.listDocs to see "
                + "every page.";
        return new ToolValidationException("/slug", message);
    }

    static ObjectNode list(DocsIndex index, String section) {
        ObjectNode out = Json.object();
        ArrayNode pages = out.putArray("pages");
        for (DocPage page : index.pages()) {
            if (section != null && !page.section().equals(section)) {
                continue;
            }
            ObjectNode json = pages.addObject();
            json.put("slug", page.slug());
            json.put("title", page.title());
            if (page.description() != null) {
                json.put("description", page.description());
            }
        }
        ArrayNode sections = out.putArray("sections");
        index.sections().forEach(sections::add);
        out.put("note", index.size() == 0 ? "The documentation index is empty: the docs cover nothing; say so."
                : Notes.LIST);
        return out;
    }

    static ObjectNode page(DocsIndex index, DocPage page) {
        ObjectNode out = Json.object();
        out.put("slug", page.slug());
        out.put("title", page.title());
        if (page.description() != null) {
            out.put("description", page.description());
        }
        out.put("content", page.content());
        out.put("truncated", page.truncated());
        if (page.truncated()) {
            rest(out, page.slug(), index.unreadHeadings(page), "The page is longer than this content.");
        }
        return out;
    }

    static ObjectNode section(DocSection section) {
        ObjectNode out = Json.object();
        out.put("slug", section.slug());
        out.put("heading", section.heading());
        out.put("content", section.text());
        out.put("truncated", section.truncated());
        if (!section.rest().isEmpty()) {
            rest(out, section.slug(), section.rest(), section.truncated() ? "The section is longer than this content."
                    : "The page goes on after this section.");
        }
        return out;
    }

    /** Lists the headings still to read (up to {@link #MAX_LISTED_HEADING_BYTES}) and says how to read them. */
    private static void rest(ObjectNode out, String slug, List<String> headings, String what) {
        ArrayNode listed = out.putArray("headings");
        int bytes = 0;
        for (String heading : headings) {
            bytes += heading.getBytes(StandardCharsets.UTF_8).length + 3;
            if (bytes > MAX_LISTED_HEADING_BYTES) {
                break;
            }
            listed.add(heading);
        }
        String note = what + " Read a section with heading: docs.getDoc({\"slug\": \"" + slug
                + "\", \"heading\": <one of 'headings'>}).";
        if (headings.isEmpty()) {
            note = what + " The rest of it has no ## or ### heading, so it cannot be read with this tool.";
        } else if (listed.size() < headings.size()) {
            note += " " + (headings.size() - listed.size()) + " more headings follow the last one listed; reading "
                    + "that section lists them.";
        }
        out.put("note", note);
    }

    private static long size(ObjectNode node) {
        return Json.write(node).getBytes(StandardCharsets.UTF_8).length;
    }

    /** At most 120 characters of model input, echoed back in an error. */
    private static String clip(String text) {
        return text.length() <= 120 ? text : text.substring(0, Character.isHighSurrogate(text.charAt(119)) ? 119 : 120)
                + "…";
    }
}
