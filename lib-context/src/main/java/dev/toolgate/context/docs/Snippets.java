package dev.toolgate.context.docs;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Cuts about {@value DocsIndex#SNIPPET_CHARS} characters of a section around a query's matches. */
final class Snippets {

    private Snippets() {
    }

    /**
     * A snippet of {@code content[start, end)}: the window of the section holding the most distinct query terms
     * (weighted by IDF), widened to about {@value DocsIndex#SNIPPET_CHARS} characters, cut on whitespace and
     * never inside a surrogate pair, whitespace collapsed, {@code …} where text was cut.
     */
    static String around(String content, int start, int end, Map<String, Double> idfs) {
        int max = DocsIndex.SNIPPET_CHARS;
        if (end - start <= max) {
            return collapse(content.substring(start, end), false, false);
        }
        List<Tokenizer.Token> tokens = Tokenizer.tokens(content.subSequence(start, end));
        // sliding window over matches: the span of at most 3/4 of the snippet with the most IDF of distinct terms
        int span = max * 3 / 4;
        int bestFrom = -1;
        double bestWeight = 0;
        Map<String, Integer> inWindow = new HashMap<>();
        double weight = 0;
        int left = 0;
        List<Tokenizer.Token> matches = tokens.stream().filter(t -> idfs.containsKey(t.term())).toList();
        for (int right = 0; right < matches.size(); right++) {
            Tokenizer.Token added = matches.get(right);
            if (inWindow.merge(added.term(), 1, Integer::sum) == 1) {
                weight += idfs.get(added.term());
            }
            while (added.end() - matches.get(left).start() > span) {
                Tokenizer.Token removed = matches.get(left++);
                if (inWindow.merge(removed.term(), -1, Integer::sum) == 0) {
                    inWindow.remove(removed.term());
                    weight -= idfs.get(removed.term());
                }
            }
            if (weight > bestWeight + 1e-9) {
                bestWeight = weight;
                bestFrom = left;
            }
        }
        int from;
        if (bestFrom < 0) {
            from = start;
        } else {
            int firstMatch = start + matches.get(bestFrom).start();
            from = Math.max(start, firstMatch - max / 5);
        }
        int to = Math.min(end, from + max);
        if (to == end) {
            from = Math.max(start, end - max);
        }
        if (from > start) {
            from = forwardToBoundary(content, from, Math.min(to, from + 60));
        }
        if (to < end) {
            to = backToBoundary(content, to, Math.max(from, to - 60));
        }
        return collapse(content.substring(from, to), from > start, to < end);
    }

    private static int forwardToBoundary(String text, int at, int limit) {
        if (Character.isWhitespace(text.charAt(at - 1))) {
            return at;
        }
        for (int i = at; i < limit; i++) {
            if (Character.isWhitespace(text.charAt(i))) {
                return i + 1;
            }
        }
        return Character.isLowSurrogate(text.charAt(at)) ? at + 1 : at;
    }

    private static int backToBoundary(String text, int at, int limit) {
        for (int i = at; i > limit; i--) {
            if (Character.isWhitespace(text.charAt(i))) {
                return i;
            }
        }
        return Character.isHighSurrogate(text.charAt(at - 1)) ? at - 1 : at;
    }

    private static String collapse(String text, boolean cutBefore, boolean cutAfter) {
        StringBuilder out = new StringBuilder(text.length() + 2);
        if (cutBefore) {
            out.append('…');
        }
        boolean space = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c)) {
                space = out.length() > (cutBefore ? 1 : 0);
            } else {
                if (space) {
                    out.append(' ');
                    space = false;
                }
                out.append(c);
            }
        }
        if (cutAfter) {
            out.append('…');
        }
        return out.toString();
    }
}
