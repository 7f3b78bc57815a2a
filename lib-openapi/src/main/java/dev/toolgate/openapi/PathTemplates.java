package dev.toolgate.openapi;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The path templates of an OpenAPI document, checked so that no value of their placeholders can leave
 * the operation's server: a plain absolute path, whole placeholders, no dot segment or encoded slash.
 */
final class PathTemplates {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([^{}/]*)}");

    private PathTemplates() {
    }

    /** The placeholders of a path template, after checking the template cannot leave the server. */
    static List<String> checkTemplate(String path, URI server, String where) {
        if (!path.startsWith("/") || path.startsWith("//") || path.contains("?")
                || path.contains("\\") || path.chars().anyMatch(c -> c < 0x21 || c == 0x7f)) {
            throw new OpenApiDocumentException(where, "the path '" + ParsedDocument.shorten(path)
                    + "' is not a plain absolute path");
        }
        List<String> placeholders = new ArrayList<>();
        Matcher matcher = PLACEHOLDER.matcher(path);
        StringBuilder sample = new StringBuilder();
        while (matcher.find()) {
            placeholders.add(matcher.group(1));
            matcher.appendReplacement(sample, "x");
        }
        matcher.appendTail(sample);
        for (String segment : sample.toString().split("/", -1)) {
            if (segment.contains("{") || segment.contains("}")) {
                throw new OpenApiDocumentException(where, "the path '" + ParsedDocument.shorten(path)
                        + "' has a broken placeholder");
            }
            // as a server may read the segment: percent-decoded (%2e%2e, %2F), and without ;parameters (..;)
            String decoded = decoded(segment);
            String name = decoded.split(";", 2)[0];
            if (name.equals(".") || name.equals("..") || decoded.indexOf('/') >= 0 || decoded.indexOf('\\') >= 0) {
                throw new OpenApiDocumentException(where, "the path '" + ParsedDocument.shorten(path)
                        + "' has a dot segment or an encoded slash");
            }
        }
        try {
            Servers.checkUnder(server, URI.create(server + sample.toString()));
        } catch (IllegalArgumentException e) {
            throw new OpenApiDocumentException(where, "the path '" + ParsedDocument.shorten(path) + "' " + e.getMessage());
        }
        return placeholders;
    }

    /** A path segment percent-decoded until it no longer changes (at most three times); bad escapes stay. */
    private static String decoded(String segment) {
        String text = segment;
        for (int round = 0; round < 3 && text.indexOf('%') >= 0; round++) {
            StringBuilder out = new StringBuilder(text.length());
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                int high = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
                int low = high >= 0 ? Character.digit(text.charAt(i + 2), 16) : -1;
                if (c == '%' && low >= 0) {
                    out.append((char) (high * 16 + low));
                    i += 2;
                } else {
                    out.append(c);
                }
            }
            if (out.toString().equals(text)) {
                break;
            }
            text = out.toString();
        }
        return text;
    }
}
