package dev.toolgate.context.docs;

import java.util.List;
import java.util.Objects;

/**
 * One page of the host's documentation, as indexed.
 *
 * @param slug        the page's stable id: its path relative to the docs folder, {@code /}-separated,
 *                    without {@code .md}; a {@code README.md} or {@code index.md} inside a folder takes the
 *                    folder's path (see {@link DocsIndex})
 * @param section     the section it is listed under: the first folder of its file's path, or
 *                    {@link DocsIndex#ROOT_SECTION} for a file at the top of the docs folder
 * @param title       the front matter {@code title:}, else the first {@code #} heading, else the slug
 * @param description the front matter {@code description:}, or null when the page has none
 * @param headings    the page's {@code ##} and {@code ###} heading texts, in order
 * @param content     the Markdown body with its front matter stripped, cut to the index's page budget
 * @param truncated   true when the body was longer than the page budget and {@code content} was cut
 */
public record DocPage(String slug, String section, String title, String description, List<String> headings, String content,
        boolean truncated) {

    /** Checks the components and copies the headings; see the class description for what each must hold. */
    public DocPage {
        Objects.requireNonNull(slug, "slug");
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(title, "title");
        headings = List.copyOf(headings);
        Objects.requireNonNull(content, "content");
    }
}
