package dev.toolgate.mcp;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An RFC 6570 level-1 URI template ({@code test://template/{id}/data}): literal text and simple
 * {@code {name}} variables. Matching is against the URI exactly as the client sent it: a variable
 * matches one or more characters other than {@code / ? #} (so it never spans a path segment, a query
 * or a fragment), then is percent-decoded as UTF-8; a malformed escape or invalid UTF-8 is no match.
 * Decoded values are data: {@code %2F} becomes {@code /} inside the value, after the template was chosen.
 */
final class UriTemplate {

    private static final Pattern EXPRESSION = Pattern.compile("\\{([^{}]*)}");
    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z0-9_]{1,64}");

    private final String template;
    private final List<String> variables;
    private final Pattern pattern;

    private UriTemplate(String template, List<String> variables, Pattern pattern) {
        this.template = template;
        this.variables = List.copyOf(variables);
        this.pattern = pattern;
    }

    /** Parses a template; a clear {@link IllegalArgumentException} says what is wrong. */
    static UriTemplate parse(String template) {
        McpResource.checkUri(template, "uriTemplate");
        List<String> variables = new ArrayList<>();
        StringBuilder regex = new StringBuilder();
        Matcher matcher = EXPRESSION.matcher(template);
        int last = 0;
        while (matcher.find()) {
            String literal = template.substring(last, matcher.start());
            checkLiteral(template, literal);
            if (literal.isEmpty() && !variables.isEmpty()) {
                throw new IllegalArgumentException("uriTemplate '" + template + "': variables {" + variables.get(variables.size() - 1)
                        + "} and {" + matcher.group(1) + "} are adjacent, so a URI cannot be split between them");
            }
            regex.append(Pattern.quote(literal));
            String name = matcher.group(1);
            if (!VARIABLE.matcher(name).matches()) {
                throw new IllegalArgumentException("uriTemplate '" + template + "': {" + name + "} is not supported; only simple "
                        + "variables {name} of 1-64 letters, digits or _ (RFC 6570 level 1)");
            }
            if (variables.contains(name)) {
                throw new IllegalArgumentException("uriTemplate '" + template + "': variable {" + name + "} appears twice");
            }
            variables.add(name);
            regex.append("([^/?#]+)");
            last = matcher.end();
        }
        String tail = template.substring(last);
        checkLiteral(template, tail);
        regex.append(Pattern.quote(tail));
        if (variables.isEmpty()) {
            throw new IllegalArgumentException("uriTemplate '" + template + "' has no {variable}; register a fixed McpResource instead");
        }
        return new UriTemplate(template, variables, Pattern.compile(regex.toString(), Pattern.DOTALL));
    }

    private static void checkLiteral(String template, String literal) {
        if (literal.indexOf('{') >= 0 || literal.indexOf('}') >= 0) {
            throw new IllegalArgumentException("uriTemplate '" + template + "' has an unbalanced { or }");
        }
    }

    String template() {
        return template;
    }

    List<String> variables() {
        return variables;
    }

    /** The decoded value of each variable, in template order, or null when {@code uri} does not match. */
    Map<String, String> match(String uri) {
        Matcher matcher = pattern.matcher(uri);
        if (!matcher.matches()) {
            return null;
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < variables.size(); i++) {
            String decoded = decode(matcher.group(i + 1));
            if (decoded == null) {
                return null;
            }
            values.put(variables.get(i), decoded);
        }
        return values;
    }

    /** Strict percent-decoding as UTF-8; null on a malformed escape or invalid UTF-8. */
    static String decode(String raw) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length()) {
                    return null;
                }
                int high = Character.digit(raw.charAt(i + 1), 16);
                int low = Character.digit(raw.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    return null;
                }
                bytes.write(high * 16 + low);
                i += 2;
            } else {
                int end = Character.isHighSurrogate(c) && i + 1 < raw.length() ? i + 2 : i + 1;
                byte[] encoded = raw.substring(i, end).getBytes(StandardCharsets.UTF_8);
                bytes.write(encoded, 0, encoded.length);
                i = end - 1;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
