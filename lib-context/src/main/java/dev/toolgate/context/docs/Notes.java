package dev.toolgate.context.docs;

import java.util.List;

/** The model-facing notes of the docs tools, in one place. */
final class Notes {

    private Notes() {
    }

    static final String LIST = "These are all the documentation pages. If no title or description fits the question, "
            + "the docs do not cover it: say so instead of searching again. Otherwise call docs.getDoc with the "
            + "page's slug.";

    static String empty() {
        return "No page matches this query: the docs do not cover it. Do not retry with reworded or near-identical "
                + "queries. Call docs.listDocs once to check the page titles; if none fits, tell the user the "
                + "documentation does not cover this.";
    }

    static String onlyCommonWords() {
        return "The query has only common words or symbols, which match nothing specific: nothing was searched. "
                + "Search once with the question's distinctive terms, or call docs.listDocs; do not repeat this query.";
    }

    static String commonOnly(List<String> terms) {
        return "Weak results: the hits match only words that most pages share (" + String.join(", ", terms)
                + "), so the docs most likely do not cover this. Do not retry near-identical queries. Call "
                + "docs.listDocs once; if no title or description fits, say the docs do not cover it.";
    }

    static String weak(String bestSlug) {
        return "Weak results: the best hit matches only part of the query, so the docs most likely do not cover "
                + "this. Do not retry near-identical queries. Check the snippet of '" + bestSlug + "' or call "
                + "docs.listDocs once; if nothing fits, say the docs do not cover it.";
    }

    static String strong(String bestSlug) {
        return "Good match. Read the best page with docs.getDoc({\"slug\": \"" + bestSlug + "\"}) before answering: "
                + "snippets are excerpts, not the whole page.";
    }
}
