package dev.toolgate.json;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognizes secrets by their shape, whatever key or text they appear in, for {@link Redactor}.
 *
 * <p>Every pattern here runs in linear time on any input: runs are matched possessively, groups repeat a
 * bounded number of times, and every scan resumes after the end of the previous match or candidate.
 */
final class SecretShapes {

    private static final String REDACTED = Redactor.REDACTED;

    /**
     * Toolgate proposal tokens, {@code propose:<id>.<64 hex digits>}; the id part is matched separately,
     * see {@link #proposalTokens(String)}.
     */
    private static final Pattern PROPOSAL_PREFIX = Pattern.compile("propose:(?=\\S)");
    private static final Pattern PROPOSAL_SIGNATURE = Pattern.compile("\\.\\p{XDigit}{64}(?!\\p{XDigit})");

    /** A PEM (RFC 7468) or SSH2 (RFC 4716) begin line; group 1 is the label. */
    private static final Pattern PEM_BEGIN = Pattern.compile("-{4,5}+ ?BEGIN ([A-Z0-9][A-Z0-9 ]{0,80}+)-{4,5}+");

    /** A PEM or SSH2 end line, whatever its label. */
    private static final Pattern PEM_END = Pattern.compile("-{4,5}+ ?END [A-Z0-9 ]{0,80}+-{4,5}+");

    /**
     * Labels of PEM blocks that hold only public material and are kept: certificates, certificate
     * requests and revocation lists, public keys, parameters, signatures. Every other block, above all
     * every {@code ... PRIVATE KEY} and {@code PGP PRIVATE KEY BLOCK}, and any label not listed, is
     * redacted whole.
     */
    static final Set<String> PUBLIC_PEM_LABELS = Set.of(
            "CERTIFICATE", "TRUSTED CERTIFICATE", "X509 CERTIFICATE", "ATTRIBUTE CERTIFICATE",
            "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST", "X509 CRL",
            "PUBLIC KEY", "RSA PUBLIC KEY", "SSH2 PUBLIC KEY", "PGP PUBLIC KEY BLOCK", "PGP SIGNATURE",
            "PKCS7", "CMS", "DH PARAMETERS", "EC PARAMETERS");

    /** A scheme and {@code ://}: where a URL's authority, and maybe credentials, start. */
    private static final Pattern URL_SCHEME = Pattern.compile("(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}+://");

    /** Characters that end a URL's authority (besides whitespace and control characters). */
    private static final String AUTHORITY_END = "/?#\"'<>\\`";

    /** An HTTP bearer credential (RFC 6750 {@code b64token}) after the scheme, which is kept. */
    private static final Pattern BEARER =
            Pattern.compile("(?<![A-Za-z0-9_-])((?i:bearer)[ \\t]++)([A-Za-z0-9\\-._~+/]++=*+)");

    /** A single word, as in "Bearer token" or "Bearer Authentication": prose rather than a credential. */
    private static final Pattern PLAIN_WORD = Pattern.compile("[A-Za-z][a-z]{0,23}");

    /** An HTTP basic credential: base64 of {@code user:password} (RFC 7617), after the kept scheme. */
    private static final Pattern BASIC =
            Pattern.compile("(?<![A-Za-z0-9_-])((?i:basic)[ \\t]++)([A-Za-z0-9+/]++=*+)");

    /**
     * JSON Web Tokens, signed (three base64url segments, the last one possibly empty) or encrypted (five);
     * the header is base64url JSON and so starts with {@code eyJ}.
     */
    private static final String JWT =
            "eyJ[A-Za-z0-9_-]{8,}+\\.[A-Za-z0-9_-]*+\\.[A-Za-z0-9_-]*+(?:\\.[A-Za-z0-9_-]*+\\.[A-Za-z0-9_-]*+)?+";

    /**
     * API keys of common providers, by their documented prefixes. The generic OpenAI-style {@code sk-}
     * shape (the only capturing group) also needs a digit, so that slugs such as
     * {@code sk-internationalization} are not taken for keys.
     */
    private static final String PROVIDER_KEYS = String.join("|",
            // OpenAI project, service account and admin keys; Anthropic; OpenRouter
            "sk-(?:proj|svcacct|admin|None|ant|or-v1)-[A-Za-z0-9_-]{20,}+",
            // OpenAI legacy keys and the many providers that copied the shape
            "(sk-[A-Za-z0-9]{20,}+[A-Za-z0-9_-]*+)",
            // GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens
            "gh[pousr]_[A-Za-z0-9]{30,}+", "github_pat_[A-Za-z0-9_]{30,}+",
            // GitLab personal access tokens
            "glpat-[A-Za-z0-9_-]{20,}+",
            // Slack bot, user, app-level, refresh and configuration tokens
            "xox(?:[abposr]|e(?:\\.xox[bp])?+)-[A-Za-z0-9-]{10,}+", "xapp-[A-Za-z0-9-]{10,}+",
            // AWS access key ids, long-term and temporary
            "(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])",
            // Google API keys, OAuth client secrets and access tokens
            "AIza[A-Za-z0-9_-]{30,}+", "GOCSPX-[A-Za-z0-9_-]{20,}+", "ya29\\.[A-Za-z0-9_-]{20,}+",
            // Stripe secret and restricted keys, live and test, and webhook signing secrets
            "(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}+", "whsec_[A-Za-z0-9+/=]{20,}+",
            // npm, Hugging Face, SendGrid
            "npm_[A-Za-z0-9]{30,}+", "hf_[A-Za-z0-9]{30,}+", "SG\\.[A-Za-z0-9_-]{16,}+\\.[A-Za-z0-9_-]{16,}+");

    /** JWTs and provider keys, each starting where no letter or digit precedes it. */
    private static final Pattern TOKENS = Pattern.compile("(?<![A-Za-z0-9])(?:" + JWT + "|" + PROVIDER_KEYS + ")");

    /** The length of the shortest text {@link #TOKENS} can match: a JWT with empty payload and signature. */
    private static final int SHORTEST_TOKEN = "eyJ".length() + 8 + 2;

    /** The group of {@link #TOKENS} that holds a generic {@code sk-} key, the only capturing group. */
    private static final int GENERIC = 1;

    private SecretShapes() {
    }

    /** Text with every secret-shaped part replaced; {@code text} must not be null. */
    static String redact(String text) {
        return redact(text, false).text();
    }

    /**
     * The result of redacting one piece of text, such as one element of an array of lines.
     *
     * @param text             the redacted text
     * @param insidePrivateBlock whether the text ends inside a private PEM block that has not ended
     */
    record Scan(String text, boolean insidePrivateBlock) {
    }

    /**
     * Text with every secret-shaped part replaced, when it may continue a private PEM block begun
     * earlier (the previous line of a file, say): then everything up to that block's end line is secret.
     */
    static Scan redact(String text, boolean insidePrivateBlock) {
        Scan pem = pemBlocks(text, insidePrivateBlock);
        String redacted = proposalTokens(pem.text());
        redacted = urlCredentials(redacted);
        redacted = httpCredentials(redacted);
        redacted = tokens(redacted);
        return new Scan(redacted, pem.insidePrivateBlock());
    }

    /**
     * Replaces each PEM block that is not public from its begin line through its end line. A block
     * without an end line runs to the end of the text, and is reported as still open.
     */
    static Scan pemBlocks(String text, boolean insidePrivateBlock) {
        if (!insidePrivateBlock && !text.contains("BEGIN")) {
            return new Scan(text, false);
        }
        StringBuilder out = null;
        int copied = 0;
        int from = 0;
        Matcher begin = PEM_BEGIN.matcher(text);
        Matcher end = PEM_END.matcher(text);
        if (insidePrivateBlock) {
            out = new StringBuilder(text.length());
            if (!end.find()) {
                return new Scan(REDACTED, true);
            }
            out.append(REDACTED);
            copied = end.end();
            from = end.end();
        }
        while (from < text.length() && begin.find(from)) {
            if (PUBLIC_PEM_LABELS.contains(label(begin.group(1)))) {
                from = begin.end();
                continue;
            }
            if (out == null) {
                out = new StringBuilder(text.length());
            }
            out.append(text, copied, begin.start()).append(REDACTED);
            if (!end.find(begin.end())) {
                return new Scan(out.toString(), true);
            }
            copied = end.end();
            from = end.end();
        }
        return new Scan(out == null ? text : out.append(text, copied, text.length()).toString(), false);
    }

    private static String label(String raw) {
        return raw.trim().replaceAll(" ++", " ");
    }

    /**
     * Replaces each {@code propose:<id>.<signature>} token. The token runs up to the first signature
     * within the same run of non-space characters; scanning each run once keeps this linear.
     */
    static String proposalTokens(String text) {
        if (!text.contains("propose:")) {
            return text;
        }
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

    /**
     * Replaces the password of {@code scheme://user:password@host}, keeping the scheme, user and host.
     * The user information ends at the authority's last {@code @}, since passwords written into URLs
     * often hold an unescaped {@code @}; a URL with a user but no password is left alone.
     */
    static String urlCredentials(String text) {
        if (!text.contains("://")) {
            return text;
        }
        Matcher scheme = URL_SCHEME.matcher(text);
        StringBuilder out = null;
        int copied = 0;
        int from = 0;
        while (from < text.length() && scheme.find(from)) {
            int start = scheme.end();
            int end = start;
            int at = -1;
            while (end < text.length() && !endsAuthority(text.charAt(end))) {
                if (text.charAt(end) == '@') {
                    at = end;
                }
                end++;
            }
            from = Math.max(end, start + 1);
            if (at < 0) {
                continue;
            }
            int colon = start;
            while (colon < at && text.charAt(colon) != ':') {
                colon++;
            }
            if (colon + 1 >= at) {
                continue; // no password, or an empty one
            }
            if (out == null) {
                out = new StringBuilder(text.length());
            }
            out.append(text, copied, colon + 1).append(REDACTED);
            copied = at;
        }
        return out == null ? text : out.append(text, copied, text.length()).toString();
    }

    private static boolean endsAuthority(char c) {
        return Character.isWhitespace(c) || Character.isISOControl(c) || AUTHORITY_END.indexOf(c) >= 0;
    }

    /**
     * Replaces the credential after {@code Bearer} (unless it is a plain word, as in "Bearer token") and
     * after {@code Basic} when it is base64 of {@code user:password}; the scheme is kept.
     */
    static String httpCredentials(String text) {
        if (!containsIgnoreCase(text, "bearer") && !containsIgnoreCase(text, "basic")) {
            return text;
        }
        String redacted = BEARER.matcher(text).replaceAll(m -> Matcher.quoteReplacement(
                PLAIN_WORD.matcher(m.group(2)).matches() ? m.group() : m.group(1) + REDACTED));
        return BASIC.matcher(redacted).replaceAll(m -> Matcher.quoteReplacement(
                isBasicCredential(m.group(2)) ? m.group(1) + REDACTED : m.group()));
    }

    private static boolean isBasicCredential(String candidate) {
        try {
            String decoded = new String(Base64.getDecoder().decode(candidate), StandardCharsets.UTF_8);
            return decoded.indexOf(':') >= 0;
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
    }

    /** Replaces JWTs and provider API keys. */
    static String tokens(String text) {
        if (text.length() < SHORTEST_TOKEN) {
            return text;
        }
        return TOKENS.matcher(text).replaceAll(m -> Matcher.quoteReplacement(
                m.group(GENERIC) != null && !hasDigit(m.group(GENERIC)) ? m.group() : REDACTED));
    }

    private static boolean containsIgnoreCase(String text, String lowerCaseWord) {
        char first = lowerCaseWord.charAt(0);
        for (int i = text.indexOf(first); i >= 0; i = text.indexOf(first, i + 1)) {
            if (text.regionMatches(true, i, lowerCaseWord, 0, lowerCaseWord.length())) {
                return true;
            }
        }
        char upper = Character.toUpperCase(first);
        for (int i = text.indexOf(upper); i >= 0; i = text.indexOf(upper, i + 1)) {
            if (text.regionMatches(true, i, lowerCaseWord, 0, lowerCaseWord.length())) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasDigit(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isDigit(s.charAt(i))) {
                return true;
            }
        }
        return false;
    }
}
