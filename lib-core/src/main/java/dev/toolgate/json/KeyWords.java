package dev.toolgate.json;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The words of a key, and the matching of keys against sensitive terms, for {@link Redactor}.
 *
 * <h2>Words</h2>
 * A key is folded, then split into lowercase words:
 * <ol>
 *   <li>Compatibility decomposition (NFKD) turns fullwidth, mathematical, circled and ligature letters
 *       into plain ones ({@code ｐａｓｓｗｏｒｄ}, {@code 𝐩𝐚𝐬𝐬𝐰𝐨𝐫𝐝}) and separates accents from letters.</li>
 *   <li>Invisible characters are dropped without splitting a word: combining marks (so accents are
 *       ignored, {@code pásswörd}), format characters (zero-width space and joiners, soft hyphen, byte
 *       order mark, tag characters), invisible fillers and unassigned code points.</li>
 *   <li>Cyrillic and Greek letters that look like Latin ones are read as those Latin letters
 *       ({@code pаssword} with a Cyrillic {@code а}); see {@link #HOMOGLYPHS}.</li>
 *   <li>Every other character that is not a letter or digit separates words, and so do the case changes
 *       of {@code camelCase} and {@code PascalCase}, the end of an acronym ({@code APIKey} is
 *       {@code api key}, {@code XApiKey} is {@code x api key}) and changes between letters and
 *       digits.</li>
 * </ol>
 *
 * <h2>Matching</h2>
 * A term is folded and split the same way and compared by its letters and digits alone, so
 * {@code api key}, {@code api_key}, {@code apiKey} and {@code apikey} are the same term. A key contains
 * a term when the key's letters and digits, read across word boundaries, contain the term's and the
 * occurrence <b>ends where a word of the key ends</b>: {@code x-api-key}, {@code XAPIKEY} and
 * {@code dbPassword} contain {@code api key} and {@code password}, while {@code max_tokens},
 * {@code tokenizer} and {@code passwordless} do not contain {@code token} or {@code password}. An
 * occurrence directly followed by a {@linkplain #QUALIFIERS qualifier word} describes the secret rather
 * than holding it and does not count: {@code token_count}, {@code token_type},
 * {@code password_expires_at}.
 */
final class KeyWords {

    /**
     * Words that, right after a sensitive term, make the key describe the secret (its size, kind or
     * lifetime) rather than hold it. Deliberately short: a word belongs here only if no credential is
     * ever stored under {@code <term>_<word>}; {@code id} and {@code name} are not here because Vault
     * calls a credential {@code secret_id}.
     */
    static final Set<String> QUALIFIERS = Set.of(
            "count", "counts", "limit", "limits", "usage", "length", "size", "type",
            "expires", "expiry", "expiration", "ttl");

    /** Cyrillic and Greek letters that look like Latin letters, and the Latin letters they look like. */
    static final Map<Character, Character> HOMOGLYPHS = homoglyphs(
            // Cyrillic lowercase, then uppercase
            "а", "a", "е", "e", "о", "o", "р", "p", "с", "c", "у", "y", "х", "x", "і", "i", "ј", "j", "ѕ", "s",
            "һ", "h", "ԁ", "d", "ԛ", "q", "ԝ", "w", "ӏ", "l", "к", "k",
            "А", "A", "В", "B", "Е", "E", "К", "K", "М", "M", "Н", "H", "О", "O", "Р", "P", "С", "C", "Т", "T",
            "У", "Y", "Х", "X", "І", "I", "Ј", "J", "Ѕ", "S", "Ԛ", "Q", "Ԝ", "W", "Һ", "H", "Ӏ", "I",
            // Greek lowercase, then uppercase
            "α", "a", "ο", "o", "ν", "v", "ρ", "p", "ι", "i", "κ", "k", "υ", "u", "χ", "x", "τ", "t", "ε", "e",
            "Α", "A", "Β", "B", "Ε", "E", "Ζ", "Z", "Η", "H", "Ι", "I", "Κ", "K", "Μ", "M", "Ν", "N", "Ο", "O",
            "Ρ", "P", "Τ", "T", "Υ", "Y", "Χ", "X",
            // Latin letters that are not ASCII but look like it
            "ı", "i", "ȷ", "j", "ɡ", "g");

    private KeyWords() {
    }

    /** A key as lowercase letters and digits, {@link #text}, cut into words that end at {@link #ends}. */
    static final class Words {

        final String text;
        final int[] ends;

        private Words(String text, int[] ends) {
            this.text = text;
            this.ends = ends;
        }

        int size() {
            return ends.length;
        }

        String word(int index) {
            return text.substring(index == 0 ? 0 : ends[index - 1], ends[index]);
        }

        List<String> list() {
            List<String> words = new ArrayList<>(ends.length);
            for (int i = 0; i < ends.length; i++) {
                words.add(word(i));
            }
            return words;
        }
    }

    /** The words of a key, in order; empty when it has no letters or digits. */
    static Words split(String key) {
        int[] points = foldedCodePoints(key);
        StringBuilder text = new StringBuilder(points.length);
        int[] ends = new int[8];
        int words = 0;
        int previous = -1; // the previous kept code point within the current word, or -1 at a word start
        for (int i = 0; i < points.length; i++) {
            int c = points[i];
            if (c == IGNORED) {
                continue;
            }
            if (!Character.isLetterOrDigit(c)) {
                if (previous >= 0) {
                    ends = add(ends, words++, text.length());
                }
                previous = -1;
                continue;
            }
            if (previous >= 0 && startsWord(previous, c, nextKept(points, i + 1))) {
                ends = add(ends, words++, text.length());
            }
            text.appendCodePoint(Character.toLowerCase(c));
            previous = c;
        }
        if (previous >= 0) {
            ends = add(ends, words++, text.length());
        }
        return new Words(text.toString(), Arrays.copyOf(ends, words));
    }

    private static int[] add(int[] array, int index, int value) {
        int[] target = index < array.length ? array : Arrays.copyOf(array, array.length * 2);
        target[index] = value;
        return target;
    }

    /** The code points of a key, {@linkplain #fold folded}; plain ASCII needs neither decomposition nor folding. */
    private static int[] foldedCodePoints(String key) {
        boolean ascii = true;
        for (int i = 0; i < key.length() && ascii; i++) {
            ascii = key.charAt(i) < 0x80;
        }
        if (ascii) {
            int[] points = new int[key.length()];
            for (int i = 0; i < points.length; i++) {
                points[i] = key.charAt(i);
            }
            return points;
        }
        return Normalizer.normalize(key, Normalizer.Form.NFKD).codePoints().map(KeyWords::fold).toArray();
    }

    /** A term's letters and digits, lowercase, as compared with keys; empty if it has none. */
    static String term(String term) {
        return split(term).text;
    }

    /** A term's words joined by single spaces, as shown to people: {@code apiKey} is {@code api key}. */
    static String displayTerm(String term) {
        return String.join(" ", split(term).list());
    }

    /**
     * Whether a key contains one of the terms (each as returned by {@link #term(String)}) anywhere, as
     * described in the {@linkplain KeyWords class documentation}.
     */
    static boolean containsTerm(Words key, Collection<String> terms) {
        for (int word = 0; word < key.size(); word++) {
            if (termEndsAt(key, word, terms)) {
                return true;
            }
        }
        return false;
    }

    /** Whether one of the terms ends with the key's last word, as in a phrase {@code invalid api key}. */
    static boolean endsWithTerm(Words key, Collection<String> terms) {
        return key.size() > 0 && termEndsAt(key, key.size() - 1, terms);
    }

    private static boolean termEndsAt(Words key, int word, Collection<String> terms) {
        if (word + 1 < key.size() && QUALIFIERS.contains(key.word(word + 1))) {
            return false;
        }
        int end = key.ends[word];
        for (String term : terms) {
            int start = end - term.length();
            if (start >= 0 && key.text.regionMatches(start, term, 0, term.length())) {
                return true;
            }
        }
        return false;
    }

    private static final int IGNORED = -2;

    /** A code point as read for matching: a Latin look-alike, {@link #IGNORED}, or itself. */
    private static int fold(int c) {
        switch (Character.getType(c)) {
            case Character.NON_SPACING_MARK, Character.ENCLOSING_MARK, Character.COMBINING_SPACING_MARK,
                    Character.FORMAT, Character.UNASSIGNED -> {
                return IGNORED;
            }
            default -> {
                // Hangul fillers are letters that render as nothing
                if (c == 0x115F || c == 0x1160 || c == 0x3164 || c == 0xFFA0) {
                    return IGNORED;
                }
                if (c <= Character.MAX_VALUE) {
                    Character latin = HOMOGLYPHS.get((char) c);
                    if (latin != null) {
                        return latin;
                    }
                }
                return c;
            }
        }
    }

    private static int nextKept(int[] points, int from) {
        for (int i = from; i < points.length; i++) {
            if (points[i] != IGNORED) {
                return points[i];
            }
        }
        return -1;
    }

    /** Whether {@code c} starts a new word after {@code previous}, given the code point after it. */
    private static boolean startsWord(int previous, int c, int next) {
        boolean digit = Character.isDigit(c);
        if (digit != Character.isDigit(previous)) {
            return true;
        }
        if (digit || !Character.isUpperCase(c)) {
            return false;
        }
        // an upper-case letter: after a lower-case one (camelCase), or ending an acronym (APIKey)
        return !Character.isUpperCase(previous)
                || (next >= 0 && Character.isLetter(next) && !Character.isUpperCase(next) && !Character.isDigit(next));
    }

    private static Map<Character, Character> homoglyphs(String... pairs) {
        Map<Character, Character> map = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i].charAt(0), pairs[i + 1].charAt(0));
        }
        return Map.copyOf(map);
    }
}
