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
        // the hot loop: ASCII words are lower-cased and hashed as they are read; anything else goes to slowWord
        int count = 0;
        int i = from;
        char[] word = this.word;
        byte[] kind = KIND;
        while (i < to) {
            char c = text[i];
            if (c < 128 && kind[c] == 0) {
                i++;
                continue;
            }
            int start = i;
            int length = 0;
            int hash = 0;
            while (i < to) {
                c = text[i];
                if (c >= 128) {
                    break;
                }
                byte k = kind[c];
                if (k == 0) {
                    break;
                }
                if (length < Tokenizer.MAX_TOKEN_CHARS) {
                    char lower = k == 2 ? (char) (c + 32) : c;
                    word[length++] = lower;
                    hash = 31 * hash + lower;
                }
                i++;
            }
            int id;
            if (i < to && text[i] >= 128) {
                id = slowWord(text, start, to);
                i = end;
                word = this.word;
            } else {
                id = id(word, length, hash);
            }
            if (id != DROPPED) {
                if (count == out.length) {
                    out = Arrays.copyOf(out, count * 2);
                }
                out[count++] = id;
            }
        }
        return count;
    }

    /** 0 for a char that is not part of a word, 1 for a word char, 2 for an upper-case ASCII letter. */
    private static final byte[] KIND = new byte[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            KIND[c] = 1;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            KIND[c] = 1;
        }
        for (char c = 'A'; c <= 'Z'; c++) {
            KIND[c] = 2;
        }
    }

    /** Where the last {@link #slowWord} ended. */
    private int end;

    /**
     * A word with a non-ASCII char, from {@code start} (a word char) as {@link Tokenizer} reads it: its id, with
     * {@link #end} set to where it ends. It may also start with a non-word char, which it skips (returning
     * DROPPED when no word follows).
     */
    private int slowWord(char[] text, int start, int to) {
        int i = start;
        while (i < to) {
            int cp = codePoint(text, i, to);
            if (cp < 128 ? asciiWord((char) cp) : Character.isLetterOrDigit(cp)) {
                break;
            }
            i += Character.charCount(cp);
        }
        if (i >= to) {
            end = i;
            return DROPPED;
        }
        int length = 0;
        while (i < to) {
            char c = text[i];
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
        end = i;
        int hash = 0;
        for (int k = 0; k < length; k++) {
            hash = 31 * hash + word[k];
        }
        return id(word, length, hash);
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

    /** The term id of the word in {@code word[0, length)} whose hash is {@code hash}, or DROPPED. */
    private int id(char[] word, int length, int hash) {
        int mask = words.length - 1;
        int slot = (hash ^ (hash >>> 16)) & mask;
        while (true) {
            char[] known = words[slot];
            if (known == null) {
                break;
            }
            if (hashes[slot] == hash && same(known, word, length)) {
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

    /** A plain loop: on a cold JVM it beats {@link Arrays#equals(char[], int, int, char[], int, int)}. */
    private static boolean same(char[] known, char[] word, int length) {
        if (known.length != length) {
            return false;
        }
        for (int k = 0; k < length; k++) {
            if (known[k] != word[k]) {
                return false;
            }
        }
        return true;
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
