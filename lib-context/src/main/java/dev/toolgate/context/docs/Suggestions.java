package dev.toolgate.context.docs;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The real slugs closest to a wrong one: shared words first, then edit distance, then slug order. */
final class Suggestions {

    /** Longest slug text compared by edit distance; longer input is cut (the gate caps it anyway). */
    private static final int MAX_COMPARED = 200;

    private Suggestions() {
    }

    private record Candidate(String slug, int shared, int distance) {
    }

    static List<String> closest(String wanted, Collection<String> slugs, int max) {
        String want = wanted.toLowerCase(Locale.ROOT);
        if (want.length() > MAX_COMPARED) {
            want = want.substring(0, MAX_COMPARED);
        }
        Set<String> words = words(want);
        List<Candidate> candidates = new ArrayList<>();
        for (String slug : slugs) {
            Set<String> own = words(slug);
            int shared = 0;
            for (String word : words) {
                if (own.contains(word)) {
                    shared++;
                }
            }
            String lower = slug.toLowerCase(Locale.ROOT);
            int distance = distance(want, lower.length() > MAX_COMPARED ? lower.substring(0, MAX_COMPARED) : lower);
            boolean typo = distance <= Math.max(2, Math.min(want.length(), lower.length()) / 3);
            if (shared > 0 || typo) {
                candidates.add(new Candidate(slug, shared, distance));
            }
        }
        candidates.sort(Comparator.comparingInt((Candidate c) -> -c.shared())
                .thenComparingInt(Candidate::distance)
                .thenComparing(Candidate::slug));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < Math.min(max, candidates.size()); i++) {
            out.add(candidates.get(i).slug());
        }
        return out;
    }

    private static Set<String> words(String text) {
        Set<String> words = new HashSet<>(Tokenizer.terms(text));
        return words;
    }

    /** Levenshtein distance, two rows. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
