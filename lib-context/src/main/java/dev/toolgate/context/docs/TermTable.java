package dev.toolgate.context.docs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;

/**
 * The index-time form of {@link Tokenizer}: scans text for the same terms, but as ids into a table of distinct
 * terms, so indexing allocates nothing per token. Each distinct lower-cased word is judged (stop word, single
 * letter) and stemmed once, when first seen; later occurrences are one hash probe over the scanned characters.
 * For any text, {@link #scan} yields the ids of exactly the terms {@link Tokenizer#terms} returns, in order.
 * Not thread-safe: one table per index build.
 */
final class TermTable {

    private static final int DROPPED = -1;

    /** The term of each id, in first-seen order. */
    private final List<String> terms = new ArrayList<>();
    private final HashMap<String, Integer> ids = new HashMap<>();

    /** Open addressing over lower-cased words: the word's chars, its hash and its term id (or DROPPED). */
    private char[][] words = new char[4096][];
    private int[] hashes = new int[4096];
    private int[] values = new int[4096];
    private int size;

    /** The current word, lower-cased; longer than MAX_TOKEN_CHARS only by a last multi-char lower case. */
    private char[] word = new char[Tokenizer.MAX_TOKEN_CHARS + 8];

    /** The ids of the last {@link #scan}. */
    int[] out = new int[256];

    /** The number of distinct terms. */
    int size() {
        return terms.size();
    }

    /** The term of {@code id}. */
    String term(int id) {
        return terms.get(id);
    }

    /** Scans {@code text} whole; see {@link #scan(char[], int, int)}. */
    int scan(String text) {
        return scan(text.toCharArray(), 0, text.length());
    }

    /**
     * Puts the term ids of {@code text[from, to)} into {@link #out}, in order, stop words and single letters
     * dropped, and returns how many there are.
     */
    int scan(char[] text, int from, int to) {
        int count = 0;
        int i = from;
        while (i < to) {
            char c = text[i];
            if (c < 128) {
                if (!asciiWord(c)) {
                    i++;
                    continue;
                }
            } else {
                int cp = codePoint(text, i, to);
                if (!Character.isLetterOrDigit(cp)) {
                    i += Character.charCount(cp);
                    continue;
                }
            }
            int length = 0;
            while (i < to) {
                c = text[i];
                if (c < 128) {
                    if (!asciiWord(c)) {
                        break;
                    }
                    if (length < Tokenizer.MAX_TOKEN_CHARS) {
                        word[length++] = c >= 'A' && c <= 'Z' ? (char) (c + 32) : c;
                    }
                    i++;
                } else {
                    int cp = codePoint(text, i, to);
                    if (!Character.isLetterOrDigit(cp)) {
                        break;
                    }
                    if (length < Tokenizer.MAX_TOKEN_CHARS) {
                        length = lowerInto(cp, length);
                    }
                    i += Character.charCount(cp);
                }
            }
            int id = id(length);
            if (id != DROPPED) {
                if (count == out.length) {
                    out = Arrays.copyOf(out, count * 2);
                }
                out[count++] = id;
            }
        }
        return count;
    }

    private static boolean asciiWord(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** As {@link Tokenizer}: the code point at {@code i}, never pairing a surrogate across {@code to}. */
    private static int codePoint(char[] text, int i, int to) {
        char c = text[i];
        if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(text[i + 1])) {
            return Character.toCodePoint(c, text[i + 1]);
        }
        return c;
    }

    /** As {@link Tokenizer}'s lower-casing of a non-ASCII code point; returns the new length. */
    private int lowerInto(int cp, int length) {
        if (Character.isBmpCodePoint(cp) && Character.toLowerCase(cp) < 0x10000) {
            word[length++] = (char) Character.toLowerCase(cp);
            return length;
        }
        String lower = new String(Character.toChars(cp)).toLowerCase(Locale.ROOT);
        if (length + lower.length() > word.length) {
            word = Arrays.copyOf(word, length + lower.length() + 8);
        }
        lower.getChars(0, lower.length(), word, length);
        return length + lower.length();
    }

    /** The term id of the word in {@code word[0, length)}, or DROPPED. */
    private int id(int length) {
        int hash = 0;
        for (int k = 0; k < length; k++) {
            hash = 31 * hash + word[k];
        }
        int mask = words.length - 1;
        int slot = (hash ^ (hash >>> 16)) & mask;
        while (true) {
            char[] known = words[slot];
            if (known == null) {
                break;
            }
            if (hashes[slot] == hash && Arrays.equals(known, 0, known.length, word, 0, length)) {
                return values[slot];
            }
            slot = (slot + 1) & mask;
        }
        String raw = new String(word, 0, length);
        int id;
        boolean singleLetter = raw.length() == 1 && Character.isLetter(raw.charAt(0));
        if (singleLetter || Tokenizer.STOP_WORDS.contains(raw)) {
            id = DROPPED;
        } else {
            String term = Tokenizer.stem(raw);
            Integer known = ids.get(term);
            if (known == null) {
                known = terms.size();
                terms.add(term);
                ids.put(term, known);
            }
            id = known;
        }
        words[slot] = Arrays.copyOf(word, length);
        hashes[slot] = hash;
        values[slot] = id;
        if (++size * 2 > words.length) {
            grow();
        }
        return id;
    }

    private void grow() {
        char[][] oldWords = words;
        int[] oldHashes = hashes;
        int[] oldValues = values;
        words = new char[oldWords.length * 2][];
        hashes = new int[words.length];
        values = new int[words.length];
        int mask = words.length - 1;
        for (int s = 0; s < oldWords.length; s++) {
            if (oldWords[s] != null) {
                int hash = oldHashes[s];
                int slot = (hash ^ (hash >>> 16)) & mask;
                while (words[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                words[slot] = oldWords[s];
                hashes[slot] = hash;
                values[slot] = oldValues[s];
            }
        }
    }
}
