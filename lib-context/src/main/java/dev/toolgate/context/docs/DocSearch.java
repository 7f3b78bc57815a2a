package dev.toolgate.context.docs;

import java.util.List;
import java.util.Objects;

/**
 * The outcome of {@link DocsIndex#search(String, int)}: the hits, best first, how good they are, and the
 * note a model reads to decide its next step.
 *
 * @param hits    the pages found, best first, ties broken by slug
 * @param quality how well the best hit answers the query
 * @param note    next-step guidance for the model, derived from {@code quality}
 */
public record DocSearch(List<DocHit> hits, Quality quality, String note) {

    /** Checks the components and copies the hits; see the class description for what each must hold. */
    public DocSearch {
        hits = List.copyOf(hits);
        Objects.requireNonNull(quality, "quality");
        Objects.requireNonNull(note, "note");
    }

    /** How well the hits answer the query. */
    public enum Quality {
        /** Nothing matched: the docs do not cover the query. */
        EMPTY,
        /**
         * Something matched, but only on words most pages share, on a small part of the query, or with a
         * score far below what the query could reach: most likely the docs do not cover it.
         */
        WEAK,
        /** The best hit matches the query's distinctive terms: read it. */
        STRONG
    }
}
