package dev.toolgate.json;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Removes secrets from JSON trees and free text before they are logged, audited or shown: by the key or
 * name they are stored under, and by their shape whatever the key.
 *
 * <h2>Sensitive keys: whole words</h2>
 * A key is split into words ({@code camelCase}, {@code PascalCase}, acronyms such as {@code APIKey},
 * {@code snake_case}, {@code kebab-case}, dots, spaces and digits all separate words) and is
 * <em>sensitive</em> when it contains one of the redactor's terms as whole words: {@code token} matches
 * {@code token}, {@code access_token}, {@code idToken} and {@code X-Auth-Token}, but not
 * {@code max_tokens}, {@code input_tokens} or {@code tokenizer}. Terms may have several words and are
 * compared without their separators, so {@code api key} matches {@code apiKey}, {@code API_KEY},
 * {@code x-api-key}, {@code XApiKey} and {@code apikey}; a term may also end a longer word, so
 * {@code password} matches {@code dbpassword} but not {@code passwordless}. A term directly followed by
 * one of the words {@code count}, {@code counts}, {@code limit}, {@code limits}, {@code usage},
 * {@code length}, {@code size}, {@code type}, {@code expires}, {@code expiry}, {@code expiration} or
 * {@code ttl} describes the secret rather than holding it and does not make the key sensitive:
 * {@code token_count}, {@code token_type} and {@code password_expires_at} stay visible.
 *
 * <p>Before matching, a key is folded so that look-alikes cannot hide a term: compatibility forms
 * (fullwidth or mathematical letters), accents, invisible characters (zero-width spaces and joiners, soft
 * hyphens, byte order marks) and Cyrillic or Greek letters that look like Latin ones ({@code pаssword}
 * with a Cyrillic {@code а}) are all read as the plain Latin word. Terms are English: a key in another
 * language is sensitive only if the host adds its term.
 *
 * <p>The {@linkplain #defaults() default} terms are:
 * <ul>
 *   <li>passwords: {@code password}, {@code passwords}, {@code passwd}, {@code pwd} (also the name of the
 *       working directory in environment dumps, hidden too, which is the cheaper mistake),
 *       {@code passphrase}, {@code passcode}, {@code otp} (one-time password);</li>
 *   <li>secrets and tokens: {@code secret} and {@code secrets} (so {@code client_secret} and
 *       {@code aws_secret_access_key}), {@code token} in the singular only (so {@code access_token},
 *       {@code refresh_token}, {@code id_token}, {@code session_token}, {@code auth_token}, but not the
 *       counters {@code tokens} and {@code max_tokens}), the plurals {@code access tokens},
 *       {@code refresh tokens}, {@code id tokens}, {@code auth tokens}, {@code session tokens},
 *       {@code api tokens} and {@code bearer tokens}, and {@code bearer};</li>
 *   <li>keys: {@code api key}, {@code api keys}, {@code access key}, {@code access keys} (so the AWS
 *       {@code aws_access_key_id}), {@code private key}, {@code private keys}, {@code signing key},
 *       {@code encryption key}, {@code master key}, {@code session key}, {@code account key} (Azure
 *       storage) and {@code client key}; a plain {@code key} is not sensitive ({@code primary_key},
 *       {@code sort_key}, {@code public_key});</li>
 *   <li>HTTP credentials: {@code authorization} (so {@code Proxy-Authorization}), {@code cookie} and
 *       {@code cookies} (so {@code Set-Cookie});</li>
 *   <li>{@code credential}, {@code credentials} and {@code creds}.</li>
 * </ul>
 * Session identifiers are deliberately not among them: Toolgate records them in the audit trail to
 * correlate calls. Neither are personal data such as card numbers, nor ambiguous words such as
 * {@code pin} (also a GPIO pin or a pinned message) or {@code pass} ({@code bypass}, {@code pass_rate}):
 * hosts add such terms with {@link #withKeys(String...)}.
 *
 * <h2>Secret-shaped values</h2>
 * Whatever their key, and inside longer text, these are replaced by {@value #REDACTED}; the rest of the
 * text is kept, so {@code "Authorization failed for Bearer abc.def"} becomes
 * {@code "Authorization failed for Bearer [REDACTED]"}:
 * <ul>
 *   <li>HTTP credentials: the credential after {@code Bearer} (unless it is a plain word, as in
 *       "Bearer token"), and after {@code Basic} when it is base64 of {@code user:password};</li>
 *   <li>JSON Web Tokens, signed or encrypted;</li>
 *   <li>PEM blocks from their {@code -----BEGIN} line through their {@code -----END} line (or to the end
 *       of the text when the end is missing), except those that hold only public material: certificates,
 *       certificate requests, revocation lists, public keys, parameters and signatures; an array of
 *       strings, such as the lines of a file, is redacted from a begin line to the element with the end
 *       line;</li>
 *   <li>API keys by their documented prefixes: OpenAI ({@code sk-}, {@code sk-proj-} and others),
 *       Anthropic ({@code sk-ant-}), OpenRouter, GitHub ({@code ghp_}, {@code gho_}, {@code ghu_},
 *       {@code ghs_}, {@code ghr_}, {@code github_pat_}), GitLab ({@code glpat-}), Slack
 *       ({@code xoxb-}, {@code xoxp-}, {@code xoxa-}, {@code xoxr-}, {@code xoxe-}, {@code xapp-}), AWS
 *       access key ids ({@code AKIA}, {@code ASIA}), Google ({@code AIza}, {@code GOCSPX-},
 *       {@code ya29.}), Stripe ({@code sk_live_}, {@code rk_live_}, their {@code _test_} twins and
 *       {@code whsec_}), npm, Hugging Face and SendGrid;</li>
 *   <li>the password of a URL, {@code scheme://user:password@host}, keeping the user and host;</li>
 *   <li>values after a sensitive key in text: {@code password=abc}, {@code api_key: abc},
 *       {@code "token":"abc"}, JSON escaped as {@code \"token\":\"abc\"}, and after a sensitive phrase,
 *       {@code invalid api key: abc}; see {@link #redactText(String)};</li>
 *   <li>Toolgate proposal tokens, {@code propose:<id>.<64 hex digits>}.</li>
 * </ul>
 * A string value that is itself a JSON object or array (a request body echoed back, say) is parsed and
 * redacted as a tree, and written back compactly if anything in it was redacted. Numbers and booleans are only ever redacted by their key: no number has a shape that
 * tells a secret from a count. UUIDs, hex digests (Toolgate's own argument hashes), timestamps and
 * ordinary words are left alone.
 *
 * <h2>Limits</h2>
 * Redaction is a safety net, not a guarantee. A secret under a harmless key, in a shape not listed above,
 * or split across several strings that do not each look like a secret, is not recognized. Key names are
 * kept, unless a key is itself secret-shaped (a map keyed by API key); such a key is redacted and, if
 * that collides with another key, numbered: {@code [REDACTED]#2}. Redaction fails closed: a value that
 * cannot be redacted, because it cannot be read or the redactor fails, is replaced whole.
 *
 * <p>Every pattern runs in time linear in its input, and trees are walked without recursion, so hostile
 * input (megabyte strings, thousands of nesting levels) can neither hang nor overflow the stack.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class Redactor {

    /** What a redacted value is replaced with. */
    public static final String REDACTED = "[REDACTED]";

    /** The default terms, documented in the {@linkplain Redactor class documentation}. */
    private static final List<String> DEFAULT_TERMS = List.of(
            "password", "passwords", "passwd", "pwd", "passphrase", "passcode", "otp",
            "secret", "secrets", "token", "access tokens", "refresh tokens", "id tokens", "auth tokens",
            "session tokens", "api tokens", "bearer tokens", "bearer",
            "api key", "api keys", "access key", "access keys", "private key", "private keys", "signing key",
            "encryption key", "master key", "session key", "account key", "client key",
            "authorization", "cookie", "cookies", "credential", "credentials", "creds");

    private static final Redactor DEFAULTS = ofKeys(DEFAULT_TERMS);

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** The terms as shown, sorted. */
    private final Set<String> terms;

    /** The terms as compared: letters and digits only, lowercase. */
    private final List<String> matchTerms;

    /** Walks trees; remembers what their short keys became. */
    private final TreeRedaction trees;

    private Redactor(Set<String> terms, List<String> matchTerms) {
        this.terms = terms;
        this.matchTerms = matchTerms;
        this.trees = new TreeRedaction(this, matchTerms);
    }

    /**
     * The redactor with the default terms listed in the {@linkplain Redactor class documentation}.
     *
     * @return the shared default redactor
     */
    public static Redactor defaults() {
        return DEFAULTS;
    }

    /**
     * A redactor with only the given terms and none of the defaults; values are still redacted by their
     * shape. Usually {@code Redactor.defaults().withKeys(...)} is what a host wants.
     *
     * <p>Terms are whole words, as described in the {@linkplain Redactor class documentation}, not
     * fragments matched anywhere in a key as in earlier snapshots: {@code token} no longer hides
     * {@code max_tokens}. A plural is a separate term.
     *
     * @param sensitiveKeys the terms, for example {@code apiKey}, {@code session id} or {@code pin}
     * @return the redactor
     * @throws IllegalArgumentException when a term has no letter or digit, since it would match nothing
     */
    public static Redactor ofKeys(Collection<String> sensitiveKeys) {
        Map<String, String> byMatchTerm = new LinkedHashMap<>();
        for (String term : sensitiveKeys) {
            Objects.requireNonNull(term, "term");
            String matchTerm = KeyWords.term(term);
            if (matchTerm.isEmpty()) {
                throw new IllegalArgumentException("sensitive key term '" + term + "' has no letter or digit");
            }
            byMatchTerm.putIfAbsent(matchTerm, KeyWords.displayTerm(term));
        }
        return new Redactor(Collections.unmodifiableSet(new TreeSet<>(byMatchTerm.values())),
                List.copyOf(byMatchTerm.keySet()));
    }

    /**
     * This redactor with more terms, for example {@code Redactor.defaults().withKeys("session_id", "pin")}.
     *
     * @param moreKeys the terms to add, matched like the others
     * @return a new redactor; this one is unchanged
     * @throws IllegalArgumentException when a term has no letter or digit
     */
    public Redactor withKeys(String... moreKeys) {
        return withKeys(Arrays.asList(moreKeys));
    }

    /**
     * This redactor with more terms.
     *
     * @param moreKeys the terms to add, matched like the others
     * @return a new redactor; this one is unchanged
     * @throws IllegalArgumentException when a term has no letter or digit
     */
    public Redactor withKeys(Collection<String> moreKeys) {
        List<String> all = new ArrayList<>(terms);
        all.addAll(moreKeys);
        return ofKeys(all);
    }

    /**
     * The terms, as words separated by single spaces ({@code apiKey} is {@code api key}), sorted.
     *
     * @return an unmodifiable set
     */
    public Set<String> terms() {
        return terms;
    }

    /**
     * The terms.
     *
     * @return the same as {@link #terms()}
     * @deprecated keys are now matched by whole words, not by fragments; use {@link #terms()}
     */
    @Deprecated(since = "0.1.0")
    public Set<String> fragments() {
        return terms;
    }

    /**
     * Whether a key is sensitive: it contains one of the terms as whole words, as described in the
     * {@linkplain Redactor class documentation}. A key that cannot be read is sensitive.
     *
     * @param key an object key, header name or parameter name
     * @return true if values under this key are redacted
     */
    public boolean isSensitive(String key) {
        try {
            return KeyWords.containsTerm(KeyWords.split(key), matchTerms);
        } catch (RuntimeException | StackOverflowError e) {
            return true;
        }
    }

    /**
     * A deep copy of a tree with its secrets replaced by the string {@value #REDACTED}: the value of every
     * member with a sensitive key, at any depth and inside arrays too, whatever the value was (including
     * objects, arrays and {@code null}), and every secret-shaped part of every other string, key names
     * included. Objects keep their members in order and arrays their length. If redaction cannot
     * complete, the result is {@value #REDACTED} alone.
     *
     * @param node the tree; not modified
     * @return the redacted copy, sharing no containers with the input
     */
    public JsonNode redact(JsonNode node) {
        Objects.requireNonNull(node, "node");
        try {
            return trees.redactTree(node, 0);
        } catch (RuntimeException | StackOverflowError e) {
            return NODES.stringNode(REDACTED);
        }
    }

    /**
     * Free text, such as an exception message, with secrets replaced by {@value #REDACTED}: every shape
     * listed in the {@linkplain Redactor class documentation}, and values after sensitive keys:
     * <ul>
     *   <li>{@code password=abc}, {@code password: abc}, {@code "password":"abc"} (the quotes are kept),
     *       {@code 'password': 'abc'} and JSON escaped inside a string, at any level of escaping,
     *       {@code \"password\":\"abc\"};</li>
     *   <li>an unquoted value ends at whitespace or at one of {@code , ; & " ' < > ( ) [ ] { }}, except
     *       after an authorization or cookie key ({@code Authorization: Digest a="1", b="2"},
     *       {@code Cookie: a=1; b=2}), whose whole header value is secret and runs to the end of the line;
     *       a value that opens with a brace or a square bracket runs to the matching closing one; a quoted value to
     *       its closing quote; either runs to the end of the text when it is not closed;</li>
     *   <li>{@code Authorization: Bearer xyz} becomes {@code Authorization: Bearer [REDACTED]}: the scheme is
     *       kept when it is Bearer or Basic;</li>
     *   <li>a key may be a phrase of up to four words ending with a term: {@code invalid api key: abc}.</li>
     * </ul>
     * A sensitive word followed by a value without {@code =} or {@code :} ({@code token abc}) is not
     * recognized. If redaction cannot complete, the result is {@value #REDACTED} alone.
     *
     * @param text the text, or null
     * @return the redacted text, or null for null
     */
    public String redactText(String text) {
        if (text == null) {
            return null;
        }
        try {
            return redactString(text, false).text();
        } catch (RuntimeException | StackOverflowError e) {
            return REDACTED;
        }
    }

    /**
     * A throwable to hand to a logger in place of {@code error}: it prints as {@code error} would, with
     * the same class names and stack frames, but every message in it (of the throwable, of its causes and
     * of its suppressed throwables) passes through {@link #redactText}. Log this, never the original,
     * where a message may carry a secret: a tool's exception, a driver's error that quotes a failing row.
     *
     * @param error the throwable; not modified
     * @return its redacted copy, for logging only (its class is not {@code error}'s)
     */
    public RuntimeException redactThrowable(Throwable error) {
        Objects.requireNonNull(error, "error");
        return RedactedThrowable.of(error, this);
    }

    /**
     * Describes the redactor by its terms.
     *
     * @return for example {@code Redactor[api key, token]}
     */
    @Override
    public String toString() {
        return "Redactor" + terms;
    }

    /** Keys whose verdicts are remembered (tests). */
    int rememberedKeys() {
        return trees.rememberedKeys();
    }

    // ----------------------------------------------------------------------------------------- text

    /** Text with every shape and every value after a sensitive key replaced. */
    SecretShapes.Scan redactString(String text, boolean insidePrivateBlock) {
        SecretShapes.Scan pem = SecretShapes.pemBlocks(text, insidePrivateBlock);
        String redacted = SecretShapes.proposalTokens(pem.text());
        redacted = redactKeyValues(redacted);
        redacted = SecretShapes.urlCredentials(redacted);
        redacted = SecretShapes.httpCredentials(redacted);
        redacted = SecretShapes.tokens(redacted);
        return new SecretShapes.Scan(redacted, pem.insidePrivateBlock());
    }

    /** Replaces the value after each sensitive key followed by {@code =} or {@code :}. */
    private String redactKeyValues(String text) {
        return KeyValueText.redact(text, this::isSensitive, matchTerms);
    }
}
