package dev.toolgate.context.docs;

import java.util.Objects;

/**
 * One page found by {@link DocsIndex#search(String, int)}.
 *
 * @param slug    the page to read with {@code docs.getDoc}
 * @param title   the page title
 * @param heading the {@code ##}/{@code ###} heading of the page's best-matching section, or null when the
 *                best match is in the text before the first such heading
 * @param snippet about 500 characters of the best section around the query's matches, cut on word
 *                boundaries, whitespace collapsed, with {@code …} where the text goes on
 * @param score   the BM25 relevance, rounded to three decimals: an ordering hint, not a probability
 */
public record DocHit(String slug, String title, String heading, String snippet, double score) {

    /** Checks the components; see the class description for what each must hold. */
    public DocHit {
        Objects.requireNonNull(slug, "slug");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(snippet, "snippet");
    }
}
