package dev.toolgate.json;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Removes secrets from JSON trees and free text by key, before they are logged, audited or shown.
 *
 * <p>A key is <em>sensitive</em> when its normalized form contains the normalized form of one of the
 * redactor's fragments. Normalizing lowercases (in {@link Locale#ROOT}) and removes {@code -}, {@code _},
 * {@code .} and spaces, so the fragment {@code apikey} matches {@code API_KEY}, {@code X-Api-Key} and
 * {@code apiKeyHeader}, and {@code secret} matches {@code clientSecret}.
 *
 * <p>The {@linkplain #defaults() default} fragments are {@code token}, {@code secret}, {@code password},
 * {@code passwd}, {@code authorization}, {@code apikey}, {@code api_key}, {@code cookie},
 * {@code privatekey} and {@code credential}. Session identifiers are deliberately not among them:
 * Toolgate records them in the audit trail to correlate calls. Matching by containment is broad on
 * purpose (a secret that leaks is worse than a field that is hidden); note that {@code token} also matches
 * counters such as {@code max_tokens}.
 *
 * <p>Redaction is best effort for free text: {@link #redactText(String)} recognizes common spellings of
 * secrets, not every one, and should not be the only protection.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class Redactor {

    /** What a redacted value is replaced with. */
    public static final String REDACTED = "[REDACTED]";

    private static final Redactor DEFAULTS = ofKeys(List.of("token", "secret", "password", "passwd",
            "authorization", "apikey", "api_key", "cookie", "privatekey", "credential"));

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /**
     * Toolgate proposal tokens, {@code propose:<id>.<64 hex digits>}; the id part is matched separately,
     * see {@link #redactProposalTokens(String)}.
     */
    private static final Pattern PROPOSAL_PREFIX = Pattern.compile("propose:(?=\\S)");
    private static final Pattern PROPOSAL_SIGNATURE = Pattern.compile("\\.\\p{XDigit}{64}(?!\\p{XDigit})");

    /**
     * A key followed by {@code =} or {@code :}, optionally quoted or JSON-escaped-quoted:
     * {@code password=}, {@code X-Api-Key: }, {@code "token" : }, {@code \"token\":}. The key starts at a
     * word boundary and is matched possessively so that scanning stays linear.
     */
    private static final Pattern KEY_AND_SEPARATOR =
            Pattern.compile("(?<![\\w.-])([\\w.-]++)(?:\\\\?[\"'])?[ \\t]*+[:=][ \\t]*+");

    /** An HTTP authorization scheme in front of a credential, kept when the credential is redacted. */
    private static final Pattern AUTH_SCHEME = Pattern.compile("(?i:bearer|basic)[ \\t]++");

    /** A bearer credential (RFC 6750 {@code b64token}). */
    private static final Pattern BEARER =
            Pattern.compile("(?<![\\w-])((?i:bearer)[ \\t]++)([\\w\\-.~+/]++=*+)");

    /** A basic credential: base64 of {@code user:password} (RFC 7617). */
    private static final Pattern BASIC =
            Pattern.compile("(?<![\\w-])((?i:basic)[ \\t]++)([A-Za-z0-9+/]++=*+)");

    /** Normalized fragments of HTTP headers whose whole value is a credential, however many words it has. */
    private static final List<String> HEADER_VALUED_KEYS = List.of("authorization", "cookie");

    /** Characters that end an unquoted value in free text. */
    private static final String VALUE_TERMINATORS = ",;&\"'<>()[]{}";

    private final Set<String> fragments;

    private Redactor(Set<String> fragments) {
        this.fragments = fragments;
    }

    /**
     * The redactor with the default fragments listed in the {@linkplain Redactor class documentation}.
     *
     * @return the shared default redactor
     */
    public static Redactor defaults() {
        return DEFAULTS;
    }

    /**
     * A redactor for which a key is sensitive when it contains any of the given fragments, compared in
     * normalized form.
     *
     * @param sensitiveKeyFragments the fragments, for example {@code apiKey} or {@code session_id}
     * @return the redactor
     * @throws IllegalArgumentException when a fragment is empty once normalized, since it would make
     *                                  every key sensitive
     */
    public static Redactor ofKeys(Collection<String> sensitiveKeyFragments) {
        Set<String> normalized = new TreeSet<>();
        for (String fragment : sensitiveKeyFragments) {
            String n = normalize(Objects.requireNonNull(fragment, "fragment"));
            if (n.isEmpty()) {
                throw new IllegalArgumentException(
                        "sensitive key fragment '" + fragment + "' is empty once normalized");
            }
            normalized.add(n);
        }
        return new Redactor(Collections.unmodifiableSet(normalized));
    }

    /**
     * The fragments, normalized and sorted.
     *
     * @return an unmodifiable set
     */
    public Set<String> fragments() {
        return fragments;
    }

    /**
     * Whether a key is sensitive: its normalized form contains a normalized fragment.
     *
     * @param key an object key, header name or parameter name
     * @return true if values under this key are redacted
     */
    public boolean isSensitive(String key) {
        String normalized = normalize(key);
        for (String fragment : fragments) {
            if (normalized.contains(fragment)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A deep copy of a tree in which the value of every member with a sensitive key, at any depth and
     * inside arrays too, is replaced by the string {@value #REDACTED}, whatever the value was (including
     * objects, arrays and {@code null}).
     *
     * @param node the tree; not modified
     * @return the redacted copy, sharing no nodes with the input
     */
    public JsonNode redact(JsonNode node) {
        Objects.requireNonNull(node, "node");
        if (node.isObject()) {
            ObjectNode copy = NODES.objectNode();
            for (Map.Entry<String, JsonNode> member : node.properties()) {
                String key = member.getKey();
                copy.set(key, isSensitive(key) ? NODES.stringNode(REDACTED) : redact(member.getValue()));
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = NODES.arrayNode(node.size());
            for (JsonNode element : node) {
                copy.add(redact(element));
            }
            return copy;
        }
        return node.deepCopy();
    }

    /**
     * Free text, such as an exception message, with secrets replaced by {@value #REDACTED}. Recognized:
     * <ul>
     *   <li>values after sensitive keys: {@code password=abc}, {@code password: abc},
     *       {@code "password":"abc"} (the quotes are kept), {@code 'password': 'abc'} and JSON escaped
     *       inside a string, {@code \"password\":\"abc\"}; an unquoted value ends at whitespace or at one
     *       of {@code , ; & " ' < > ( ) [ ] { }}, except after an authorization or cookie key
     *       ({@code Authorization: Digest a="1", b="2"}, {@code Cookie: a=1; b=2}), whose whole header
     *       value is secret and runs to the end of the line;</li>
     *   <li>HTTP credentials: {@code Authorization: Bearer xyz} becomes
     *       {@code Authorization: Bearer [REDACTED]} (the scheme is kept when it is Bearer or Basic) and
     *       {@code Bearer xyz} anywhere becomes {@code Bearer [REDACTED]}; {@code Basic xyz} likewise
     *       when {@code xyz} is base64 of {@code user:password}, so prose such as "basic validation" is
     *       left alone;</li>
     *   <li>Toolgate proposal tokens, {@code propose:<id>.<64 hex digits>}, replaced whole.</li>
     * </ul>
     * A sensitive word followed by a value without {@code =} or {@code :} ({@code token abc}) is not
     * recognized.
     *
     * @param text the text, or null
     * @return the redacted text, or null for null
     */
    public String redactText(String text) {
        if (text == null) {
            return null;
        }
        String redacted = redactProposalTokens(text);
        redacted = redactKeyValues(redacted);
        redacted = BEARER.matcher(redacted).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + REDACTED));
        return BASIC.matcher(redacted).replaceAll(m -> Matcher.quoteReplacement(
                isBasicCredential(m.group(2)) ? m.group(1) + REDACTED : m.group()));
    }

    /**
     * Replaces each {@code propose:<id>.<signature>} token. The token runs up to the first signature
     * within the same run of non-space characters; scanning each run once keeps this linear.
     */
    private static String redactProposalTokens(String text) {
        Matcher prefix = PROPOSAL_PREFIX.matcher(text);
        Matcher signature = PROPOSAL_SIGNATURE.matcher(text);
        StringBuilder out = new StringBuilder(text.length());
        int copied = 0;
        int from = 0;
        while (from < text.length() && prefix.find(from)) {
            int runEnd = endOfRun(text, prefix.end());
            signature.region(prefix.end() + 1, runEnd);
            if (signature.find()) {
                out.append(text, copied, prefix.start()).append(REDACTED);
                copied = signature.end();
                from = signature.end();
            } else {
                from = runEnd;
            }
        }
        return out.append(text, copied, text.length()).toString();
    }

    private static int endOfRun(String text, int from) {
        int i = from;
        while (i < text.length() && !Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Replaces the value after each sensitive key followed by {@code =} or {@code :}. */
    private String redactKeyValues(String text) {
        Matcher key = KEY_AND_SEPARATOR.matcher(text);
        Matcher scheme = AUTH_SCHEME.matcher(text);
        StringBuilder out = new StringBuilder(text.length());
        int copied = 0;
        int from = 0;
        while (from < text.length() && key.find(from)) {
            from = key.end();
            if (!isSensitive(key.group(1))) {
                continue; // scan on from the separator: the value may itself hold a key, as in a URL
            }
            int valueStart = key.end();
            String quote = openingQuote(text, valueStart);
            int valueEnd;
            if (!quote.isEmpty()) {
                valueEnd = endOfQuoted(text, valueStart + quote.length(), quote);
            } else {
                if (scheme.region(valueStart, text.length()).lookingAt()) {
                    valueStart = scheme.end();
                }
                valueEnd = isHeaderValued(key.group(1)) ? endOfLine(text, valueStart) : endOfUnquoted(text, valueStart);
            }
            if (valueEnd == valueStart) {
                continue;
            }
            out.append(text, copied, valueStart).append(quote).append(REDACTED).append(quote);
            copied = valueEnd;
            from = valueEnd;
        }
        return out.append(text, copied, text.length()).toString();
    }

    private static boolean isHeaderValued(String key) {
        String normalized = normalize(key);
        return HEADER_VALUED_KEYS.stream().anyMatch(normalized::contains);
    }

    /** The quote opening a value at {@code start}: {@code "}, {@code '}, JSON-escaped {@code \"}, or none. */
    private static String openingQuote(String text, int start) {
        if (text.startsWith("\\\"", start)) {
            return "\\\"";
        }
        if (text.startsWith("\"", start) || text.startsWith("'", start)) {
            return text.substring(start, start + 1);
        }
        return "";
    }

    /** The end of a quoted value, after its closing quote; an unterminated one runs to the end of the text. */
    private static int endOfQuoted(String text, int contentStart, String quote) {
        for (int i = contentStart; i < text.length(); i++) {
            if (text.startsWith(quote, i)) {
                return i + quote.length();
            }
            if (text.charAt(i) == '\\') {
                i++; // skip the escaped character
            }
        }
        return text.length();
    }

    private static int endOfUnquoted(String text, int start) {
        int i = start;
        while (i < text.length() && !Character.isWhitespace(text.charAt(i))
                && VALUE_TERMINATORS.indexOf(text.charAt(i)) < 0) {
            i++;
        }
        return i;
    }

    private static int endOfLine(String text, int start) {
        int i = start;
        while (i < text.length() && text.charAt(i) != '\n' && text.charAt(i) != '\r') {
            i++;
        }
        return i;
    }

    private static boolean isBasicCredential(String candidate) {
        try {
            String decoded = new String(Base64.getDecoder().decode(candidate), StandardCharsets.UTF_8);
            return decoded.indexOf(':') >= 0;
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
    }

    /**
     * Describes the redactor by its normalized fragments.
     *
     * @return for example {@code Redactor[apikey, token]}
     */
    @Override
    public String toString() {
        return "Redactor" + fragments;
    }

    private static String normalize(String key) {
        StringBuilder normalized = new StringBuilder(key.length());
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c != '-' && c != '_' && c != '.' && c != ' ') {
                normalized.append(c);
            }
        }
        return normalized.toString().toLowerCase(Locale.ROOT);
    }
}
