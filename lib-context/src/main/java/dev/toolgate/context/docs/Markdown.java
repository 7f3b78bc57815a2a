package dev.toolgate.context.docs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one Markdown page: front matter ({@code title:}, {@code description:}), the title heading, the
 * {@code ##}/{@code ###} headings outside fenced code, the body cut to a UTF-8 byte budget, and the body's
 * sections. Pure functions; no Markdown is rendered.
 */
final class Markdown {

    private Markdown() {
    }

    /** A {@code ##}/{@code ###} section of a page body (or the text before the first one, with no heading). */
    record Section(String heading, String parent, int start, int end) {
    }

    /** Parses {@code markdown} as the page {@code slug} of {@code section}, cutting its body to {@code maxBytes} UTF-8 bytes. */
    static DocPage parse(String slug, String section, String markdown, int maxBytes) {
        String text = markdown;
        if (!text.isEmpty() && text.charAt(0) == '\uFEFF') {
            text = text.substring(1);
        }
        text = text.replace("\r\n", "\n").replace('\r', '\n');
        String title = null;
        String description = null;
        List<String> lines = lines(text);
        if (!lines.isEmpty() && lines.get(0).strip().equals("---")) {
            for (int i = 1; i < lines.size(); i++) {
                String line = lines.get(i);
                String bare = line.strip();
                if (bare.equals("---") || bare.equals("...")) {
                    int offset = 0;
                    for (int k = 0; k <= i; k++) {
                        offset += lines.get(k).length() + 1;
                    }
                    text = offset >= text.length() ? "" : text.substring(offset);
                    break;
                }
                int colon = line.indexOf(':');
                if (colon > 0 && !Character.isWhitespace(line.charAt(0))) {
                    String key = line.substring(0, colon).strip();
                    String value = unquote(line.substring(colon + 1).strip());
                    if (key.equals("title") && !value.isEmpty()) {
                        title = value;
                    } else if (key.equals("description") && !value.isEmpty()) {
                        description = value;
                    }
                }
                if (i == lines.size() - 1) {
                    // no closing fence: not front matter after all
                    title = null;
                    description = null;
                }
            }
        }
        text = stripLeadingBlankLines(text);
        boolean truncated = false;
        if ((long) text.length() * 3 > maxBytes && text.getBytes(StandardCharsets.UTF_8).length > maxBytes) {
            text = cut(text, maxBytes);
            truncated = true;
        }
        List<String> headings = new ArrayList<>();
        String firstH1 = null;
        boolean fenced = false;
        String fence = null;
        for (String line : lines(text)) {
            String bare = line.stripLeading();
            if (bare.startsWith("```") || bare.startsWith("~~~")) {
                String marker = bare.substring(0, 3);
                if (!fenced) {
                    fenced = true;
                    fence = marker;
                } else if (marker.equals(fence)) {
                    fenced = false;
                }
                continue;
            }
            if (fenced || line.startsWith("    ")) {
                continue;
            }
            int level = level(bare);
            if (level == 1 && firstH1 == null) {
                firstH1 = headingText(bare, 1);
            } else if (level == 2 || level == 3) {
                String heading = headingText(bare, level);
                if (!heading.isEmpty()) {
                    headings.add(heading);
                }
            }
        }
        if (title == null) {
            title = firstH1 != null && !firstH1.isEmpty() ? firstH1 : slug;
        }
        return new DocPage(slug, section, title, description, headings, text, truncated);
    }

    /** The sections of a page body: the text before the first {@code ##}/{@code ###}, then one per heading. */
    static List<Section> sections(String content) {
        List<Section> sections = new ArrayList<>();
        String heading = null;
        String parent = null;
        String currentH2 = null;
        int start = 0;
        boolean fenced = false;
        String fence = null;
        int pos = 0;
        int length = content.length();
        while (pos < length) {
            int newline = content.indexOf('\n', pos);
            int lineEnd = newline < 0 ? length : newline;
            String line = content.substring(pos, lineEnd);
            String bare = line.stripLeading();
            if (bare.startsWith("```") || bare.startsWith("~~~")) {
                String marker = bare.substring(0, 3);
                if (!fenced) {
                    fenced = true;
                    fence = marker;
                } else if (marker.equals(fence)) {
                    fenced = false;
                }
            } else if (!fenced && !line.startsWith("    ")) {
                int level = level(bare);
                if (level == 2 || level == 3) {
                    String text = headingText(bare, level);
                    if (!text.isEmpty()) {
                        if (pos > start || heading != null) {
                            sections.add(new Section(heading, parent, start, pos));
                        }
                        heading = text;
                        if (level == 2) {
                            currentH2 = text;
                            parent = null;
                        } else {
                            parent = currentH2;
                        }
                        start = pos;
                    }
                }
            }
            pos = lineEnd + 1;
        }
        if (length > start || heading != null || sections.isEmpty()) {
            sections.add(new Section(heading, parent, start, length));
        }
        return sections;
    }

    private static int level(String bare) {
        int hashes = 0;
        while (hashes < bare.length() && bare.charAt(hashes) == '#') {
            hashes++;
        }
        if (hashes == 0 || hashes > 6) {
            return 0;
        }
        if (hashes < bare.length() && bare.charAt(hashes) != ' ' && bare.charAt(hashes) != '\t') {
            return 0;
        }
        return hashes;
    }

    private static String headingText(String bare, int level) {
        String text = bare.substring(level).strip();
        int end = text.length();
        while (end > 0 && text.charAt(end - 1) == '#') {
            end--;
        }
        if (end < text.length() && (end == 0 || Character.isWhitespace(text.charAt(end - 1)))) {
            text = text.substring(0, end).strip();
        }
        return text;
    }

    private static String unquote(String value) {
        if (value.length() >= 2) {
            char first = value.charAt(0);
            char last = value.charAt(value.length() - 1);
            if ((first == '"' || first == '\'') && last == first) {
                return value.substring(1, value.length() - 1).strip();
            }
        }
        return value;
    }

    private static String stripLeadingBlankLines(String text) {
        int i = 0;
        int lineStart = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\n') {
                lineStart = i + 1;
            } else if (!Character.isWhitespace(c)) {
                break;
            }
            i++;
        }
        return lineStart == 0 ? text : text.substring(lineStart);
    }

    private static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        int pos = 0;
        while (pos <= text.length()) {
            int newline = text.indexOf('\n', pos);
            if (newline < 0) {
                if (pos < text.length()) {
                    lines.add(text.substring(pos));
                }
                break;
            }
            lines.add(text.substring(pos, newline));
            pos = newline + 1;
        }
        return lines;
    }

    /**
     * The longest prefix of {@code text} whose UTF-8 form fits {@code maxBytes}, never splitting a surrogate
     * pair, and ending at a line break when one lies in the last tenth of it.
     */
    static String cut(String text, int maxBytes) {
        int bytes = 0;
        int i = 0;
        while (i < text.length()) {
            int cp = text.codePointAt(i);
            int size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (Character.isSurrogate(text.charAt(i)) && Character.charCount(cp) == 1) {
                size = 3; // a lone surrogate is written as '?'-like replacement; count it generously
            }
            if (bytes + size > maxBytes) {
                break;
            }
            bytes += size;
            i += Character.charCount(cp);
        }
        int newline = text.lastIndexOf('\n', i - 1);
        if (newline > 0 && newline >= i - i / 10) {
            i = newline + 1;
        }
        return text.substring(0, i);
    }
}
