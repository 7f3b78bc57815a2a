package dev.toolgate.context.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The one tokenizer for pages and queries: runs of Unicode letters and digits, lower-cased, English stop
 * words and single letters dropped, and a light suffix stemming (plural {@code s}/{@code es}/{@code ies},
 * {@code ing}, {@code ed}, a final {@code e}) so that "statements" finds "statement", "rolled" finds "roll"
 * and "upgrading" finds "upgrade". The same function is applied to documents and queries, so whatever it
 * does wrong it does equally to both.
 */
final class Tokenizer {

    /** Longest token kept; longer runs are cut, so a hostile 400-character "word" costs nothing. */
    static final int MAX_TOKEN_CHARS = 48;

    static final Set<String> STOP_WORDS = Set.of(
            "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
            "can", "could", "did", "do", "does", "doing", "each", "for", "from", "had", "has", "have", "how", "i",
            "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "one", "or", "our", "should", "so", "some",
            "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "to",
            "was", "we", "were", "what", "when", "where", "which", "while", "who", "whose", "why", "will", "with", "would",
            "you", "your");

    private Tokenizer() {
    }

    /** A token and the character range it came from in the text. */
    record Token(String term, int start, int end) {
    }

    /** The terms of {@code text}, in order, stop words removed. */
    static List<String> terms(CharSequence text) {
        List<String> terms = new ArrayList<>();
        scan(text, 0, text.length(), (term, start, end) -> terms.add(term));
        return terms;
    }

    /** The tokens of {@code text} with their positions, stop words removed. */
    static List<Token> tokens(CharSequence text) {
        List<Token> out = new ArrayList<>();
        scan(text, 0, text.length(), (term, start, end) -> out.add(new Token(term, start, end)));
        return out;
    }

    /** Calls {@code sink} with each term of {@code text[from, to)}, in order, stop words removed. */
    static void forEachTerm(CharSequence text, int from, int to, Consumer<String> sink) {
        scan(text, from, to, (term, start, end) -> sink.accept(term));
    }

    @FunctionalInterface
    private interface Sink {
        void accept(String term, int start, int end);
    }

    private static void scan(CharSequence text, int from, int to, Sink sink) {
        StringBuilder word = new StringBuilder(32);
        int i = from;
        while (i < to) {
            int cp = codePoint(text, i, to);
            if (!isWordChar(cp)) {
                i += Character.charCount(cp);
                continue;
            }
            int start = i;
            word.setLength(0);
            while (i < to) {
                cp = codePoint(text, i, to);
                if (!isWordChar(cp)) {
                    break;
                }
                if (word.length() < MAX_TOKEN_CHARS) {
                    lowerInto(word, cp);
                }
                i += Character.charCount(cp);
            }
            String raw = word.toString();
            boolean singleLetter = raw.length() == 1 && Character.isLetter(raw.charAt(0));
            if (!singleLetter && !STOP_WORDS.contains(raw)) {
                sink.accept(stem(raw), start, i);
            }
        }
    }

    /** The code point at {@code i}, never pairing a surrogate across {@code to}. */
    private static int codePoint(CharSequence text, int i, int to) {
        char c = text.charAt(i);
        if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(text.charAt(i + 1))) {
            return Character.toCodePoint(c, text.charAt(i + 1));
        }
        return c;
    }

    private static boolean isWordChar(int cp) {
        if (cp < 128) {
            return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
        }
        return Character.isLetterOrDigit(cp);
    }

    private static void lowerInto(StringBuilder word, int cp) {
        if (cp < 128) {
            word.append((char) (cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
        } else if (Character.isBmpCodePoint(cp) && Character.toLowerCase(cp) < 0x10000) {
            word.append((char) Character.toLowerCase(cp));
        } else {
            word.append(new String(Character.toChars(cp)).toLowerCase(Locale.ROOT));
        }
    }

    /** A light English stemmer: a few suffixes, only on alphabetic words long enough to keep a stem. */
    static String stem(String word) {
        String stem = suffix(word);
        // "upgrade", "upgraded" and "upgrading" meet at "upgrad"
        if (stem.length() > 4 && stem.endsWith("e") && !stem.endsWith("ee") && isAsciiLetters(stem)) {
            return stem.substring(0, stem.length() - 1);
        }
        return stem;
    }

    private static String suffix(String word) {
        int n = word.length();
        if (n <= 3 || !isAsciiLetters(word)) {
            return word;
        }
        if (word.endsWith("ies") && n > 4) {
            return word.substring(0, n - 3).concat("y");
        }
        if (word.endsWith("ied") && n > 4) {
            return word.substring(0, n - 3).concat("y");
        }
        if (word.endsWith("sses")) {
            return word.substring(0, n - 2);
        }
        if (word.endsWith("ing") && n > 5) {
            return undouble(word.substring(0, n - 3));
        }
        if (word.endsWith("ed") && n > 4) {
            return undouble(word.substring(0, n - 2));
        }
        if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us") && !word.endsWith("is")) {
            return word.substring(0, n - 1);
        }
        return word;
    }

    private static String undouble(String stem) {
        int n = stem.length();
        if (n >= 3 && stem.charAt(n - 1) == stem.charAt(n - 2)) {
            char c = stem.charAt(n - 1);
            if (c != 'l' && c != 's' && c != 'z' && c != 'e' && c != 'o') {
                return stem.substring(0, n - 1);
            }
        }
        return stem;
    }

    private static boolean isAsciiLetters(String word) {
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            if (c < 'a' || c > 'z') {
                return false;
            }
        }
        return true;
    }
}
