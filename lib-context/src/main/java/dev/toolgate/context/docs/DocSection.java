package dev.toolgate.context.docs;

import java.util.List;
import java.util.Objects;

/**
 * One {@code ##}/{@code ###} section of a page, as {@link DocsIndex#section(String, String)} reads it.
 *
 * @param slug      the page's slug
 * @param heading   the section's heading text, as the page spells it
 * @param text      the section's Markdown from its heading line up to the next heading of the same or a higher
 *                  level, cut to the index's page budget
 * @param truncated true when the section was longer than the page budget and {@code text} was cut
 * @param rest      the headings of the page still to read after this text: every later heading when the page's
 *                  content is truncated (none otherwise), and this section's own sub-headings cut off from
 *                  {@code text}
 */
public record DocSection(String slug, String heading, String text, boolean truncated, List<String> rest) {

    /** Checks the components and copies the headings. */
    public DocSection {
        Objects.requireNonNull(slug, "slug");
        Objects.requireNonNull(heading, "heading");
        Objects.requireNonNull(text, "text");
        rest = List.copyOf(rest);
    }
}
