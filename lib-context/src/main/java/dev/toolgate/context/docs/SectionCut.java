package dev.toolgate.context.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One {@code ##}/{@code ###} section of a page cut to the page budget, and the headings of a page that
 * its shown text leaves unread: what {@link DocsIndex#section} and {@link DocsIndex#unreadHeadings} read
 * from a page's indexed body and sections.
 */
final class SectionCut {

    private SectionCut() {
    }

    /** The first section of {@code page} headed {@code heading}; its indexed {@code body} and {@code sections}. */
    static Optional<DocSection> section(DocPage page, String body, List<Markdown.Section> sections, String heading,
                                        int maxPageBytes) {
        String wanted = heading.strip();
        for (int i = 0; i < sections.size(); i++) {
            Markdown.Section section = sections.get(i);
            if (section.heading() == null || !section.heading().equalsIgnoreCase(wanted)) {
                continue;
            }
            int end = body.length();
            int next = sections.size();
            for (int j = i + 1; j < sections.size(); j++) {
                if (sections.get(j).level() <= section.level()) {
                    end = sections.get(j).start();
                    next = j;
                    break;
                }
            }
            String text = body.substring(section.start(), end);
            boolean truncated = Markdown.tooLong(text, maxPageBytes);
            if (truncated) {
                text = Markdown.cut(text, maxPageBytes);
            }
            // what is left to read: sub-sections cut off here, and later sections the page's content does not show
            List<String> rest = new ArrayList<>();
            int shownEnd = section.start() + text.length();
            for (int j = i + 1; j < sections.size(); j++) {
                Markdown.Section later = sections.get(j);
                if (later.heading() != null && later.end() > (j >= next ? page.content().length() : shownEnd)) {
                    rest.add(later.heading());
                }
            }
            return Optional.of(new DocSection(page.slug(), section.heading(), text, truncated, rest));
        }
        return Optional.empty();
    }

    /** The headings of a truncated {@code page} whose {@code sections} its content does not show in full. */
    static List<String> unread(DocPage page, List<Markdown.Section> sections) {
        List<String> rest = new ArrayList<>();
        for (Markdown.Section section : sections) {
            if (section.heading() != null && section.end() > page.content().length()) {
                rest.add(section.heading());
            }
        }
        return rest;
    }
}
