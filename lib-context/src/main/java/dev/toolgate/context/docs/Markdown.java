package dev.toolgate.context.docs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one Markdown page: front matter ({@code title:}, {@code description:}), the title heading, the
 * {@code ##}/{@code ###} headings outside fenced and indented code, the body cut to a UTF-8 byte budget,
 * and the body's sections. Pure functions; no Markdown is rendered.
 */
final class Markdown {

    private Markdown() {
    }

    /**
     * A {@code ##}/{@code ###} section of a page body (or the text before the first one, with no heading and
     * level 0): from its heading line to the next {@code ##}/{@code ###} heading.
     */
    record Section(String heading, String parent, int level, int start, int end) {
    }

    /**
     * A parsed page, its indexed body (the text searched and read by section; the page's content is a prefix
     * of it) and the body's sections.
     */
    record Parsed(DocPage page, String body, List<Section> sections) {
    }

    /**
     * Parses {@code markdown} as the page {@code slug} of {@code section}: the body is cut to {@code indexBytes}
     * UTF-8 bytes, the page's content to {@code maxBytes} of that.
     */
    static Parsed parse(String slug, String section, String markdown, int maxBytes, int indexBytes) {
        String text = markdown;
        if (!text.isEmpty() && text.charAt(0) == '\uFEFF') {
            text = text.substring(1);
        }
        if (text.indexOf('\r') >= 0) {
            text = text.replace("\r\n", "\n").replace('\r', '\n');
        }
        String title = null;
        String description = null;
        int from = 0; // where the body starts: the text is copied once, after front matter and blank lines
        int firstEnd = lineEnd(text, 0);
        if (text.substring(0, firstEnd).strip().equals("---")) {
            String foundTitle = null;
            String foundDescription = null;
            int pos = firstEnd + 1;
            while (pos < text.length()) {
                int end = lineEnd(text, pos);
                String line = text.substring(pos, end);
                String bare = line.strip();
                if (bare.equals("---") || bare.equals("...")) {
                    title = foundTitle;
                    description = foundDescription;
                    from = Math.min(end + 1, text.length());
                    break;
                }
                int colon = line.indexOf(':');
                if (colon > 0 && !Character.isWhitespace(line.charAt(0))) {
                    String key = line.substring(0, colon).strip();
                    String value = unquote(line.substring(colon + 1).strip());
                    if (key.equals("title") && !value.isEmpty()) {
                        foundTitle = value;
                    } else if (key.equals("description") && !value.isEmpty()) {
                        foundDescription = value;
                    }
                }
                pos = end + 1;
            }
            // without a closing fence it was not front matter: the text stays whole
        }
        from = skipLeadingBlankLines(text, from);
        text = text.substring(from);
        boolean truncated = false;
        if (tooLong(text, indexBytes)) {
            text = cut(text, indexBytes);
            truncated = true;
        }
        String content = text;
        if (maxBytes < indexBytes && tooLong(text, maxBytes)) {
            content = cut(text, maxBytes);
            truncated = true;
        }
        String[] firstH1 = new String[1];
        List<Section> sections = sections(text, firstH1);
        List<String> headings = new ArrayList<>(sections.size());
        for (Section s : sections) {
            if (s.heading() != null) {
                headings.add(s.heading());
            }
        }
        if (title == null) {
            title = firstH1[0] != null && !firstH1[0].isEmpty() ? firstH1[0] : slug;
        }
        return new Parsed(new DocPage(slug, section, title, description, headings, content, truncated), text, sections);
    }

    /** True when {@code text} is over {@code maxBytes} of UTF-8. */
    static boolean tooLong(String text, int maxBytes) {
        // more chars than bytes allowed is too long whatever they are; only the middle ground is encoded
        return text.length() > maxBytes || ((long) text.length() * 3 > maxBytes
                && text.getBytes(StandardCharsets.UTF_8).length > maxBytes);
    }

    /**
     * The sections of a page body: the text before the first {@code ##}/{@code ###}, then one per heading. The
     * first {@code #} heading outside code goes to {@code firstH1[0]}.
     */
    static List<Section> sections(String content, String[] firstH1) {
        List<Section> sections = new ArrayList<>();
        String heading = null;
        String parent = null;
        int headingLevel = 0;
        String currentH2 = null;
        int start = 0;
        boolean fenced = false;
        char fence = 0;
        int pos = 0;
        int length = content.length();
        while (pos < length) {
            int lineEnd = lineEnd(content, pos);
            int indent = 0;
            int at = pos;
            while (at < lineEnd && (content.charAt(at) == ' ' || content.charAt(at) == '\t')) {
                indent += content.charAt(at) == '\t' ? 4 : 1;
                at++;
            }
            char first = at < lineEnd ? content.charAt(at) : 0;
            if ((first == '`' || first == '~') && at + 2 < lineEnd && content.charAt(at + 1) == first
                    && content.charAt(at + 2) == first) {
                if (!fenced) {
                    fenced = true;
                    fence = first;
                } else if (first == fence) {
                    fenced = false;
                }
            } else if (!fenced && indent < 4 && first == '#') {
                int level = level(content, at, lineEnd);
                if (level == 1) {
                    if (firstH1 != null && firstH1[0] == null) {
                        String text = headingText(content.substring(at, lineEnd), 1);
                        firstH1[0] = text.isEmpty() ? null : text;
                    }
                } else if (level == 2 || level == 3) {
                    String text = headingText(content.substring(at, lineEnd), level);
                    if (!text.isEmpty()) {
                        if (pos > start || heading != null) {
                            sections.add(new Section(heading, parent, headingLevel, start, pos));
                        }
                        heading = text;
                        headingLevel = level;
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
            sections.add(new Section(heading, parent, headingLevel, start, length));
        }
        return sections;
    }

    private static int lineEnd(String text, int from) {
        int newline = text.indexOf('\n', from);
        return newline < 0 ? text.length() : newline;
    }

    private static int level(String text, int at, int end) {
        int hashes = 0;
        while (at + hashes < end && text.charAt(at + hashes) == '#') {
            hashes++;
        }
        if (hashes > 6) {
            return 0;
        }
        if (at + hashes < end && text.charAt(at + hashes) != ' ' && text.charAt(at + hashes) != '\t') {
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

    /** Where {@code text} goes on after the blank lines that start at {@code from}. */
    private static int skipLeadingBlankLines(String text, int from) {
        int i = from;
        int lineStart = from;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\n') {
                lineStart = i + 1;
            } else if (!Character.isWhitespace(c)) {
                break;
            }
            i++;
        }
        return lineStart;
    }

    /**
     * The longest prefix of {@code text} whose UTF-8 form fits {@code maxBytes}, never splitting a surrogate
     * pair, and ending at a line break when one lies in the last tenth of it.
     */
    static String cut(String text, int maxBytes) {
        // a plain loop over a copy of the chars that can fit (at most maxBytes of them): fast on a cold JVM
        int length = Math.min(text.length(), maxBytes + 1);
        char[] chars = new char[length];
        text.getChars(0, length, chars, 0);
        int bytes = 0;
        int i = 0;
        while (i < length) {
            char c = chars[i];
            int size;
            int count = 1;
            if (c < 0x80) {
                size = 1;
            } else if (c < 0x800) {
                size = 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(i + 1 < length ? chars[i + 1] : text.charAt(i + 1))) {
                size = 4; // a pair, as String.codePointAt reads it
                count = 2;
            } else {
                size = 3; // a lone surrogate counts as String.codePointAt gives it
            }
            if (bytes + size > maxBytes) {
                break;
            }
            bytes += size;
            i += count;
        }
        int newline = text.lastIndexOf('\n', i - 1);
        if (newline > 0 && newline >= i - i / 10) {
            i = newline + 1;
        }
        return text.substring(0, i);
    }
}
