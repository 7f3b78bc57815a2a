package dev.toolgate.context.docs;

import dev.toolgate.context.docs.DocsIndex.Postings;
import dev.toolgate.context.docs.DocsIndex.Unit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** BM25F over page sections: building the postings and answering a query. Pure and deterministic. */
final class Ranker {

    private Ranker() {
    }

    record Built(Unit[] units, Map<String, Postings> postings) {
    }

    /** Fields of a section, counted per term: page title, section heading, parent heading, description, body. */
    private static final int TITLE = 0;
    private static final int HEADING = 1;
    private static final int PARENT = 2;
    private static final int DESCRIPTION = 3;
    private static final int BODY = 4;
    /** One posting while counting: term, unit, then the five field counts. */
    private static final int STRIDE = 7;

    /**
     * Counts every section's terms per field in one sequential pass (terms as ids of a {@link TermTable}, so no
     * per-token strings or maps), then weighs them once the average body length is known. Postings list their
     * units in ascending order; the result is the same for the same pages.
     */
    static Built build(List<Markdown.Parsed> parsed) {
        TermTable table = new TermTable();
        List<Unit> units = new ArrayList<>();
        int[] bodyLengths = new int[64];
        int[] flat = new int[STRIDE * 1024];
        int postingCount = 0;
        int[][] counts = new int[5][1024];
        int[] touched = new int[1024];
        int[] stamp = new int[1024];
        long totalBody = 0;
        for (int p = 0; p < parsed.size(); p++) {
            Markdown.Parsed page = parsed.get(p);
            DocPage doc = page.page();
            int[] titleTerms = ids(table, doc.title());
            int[] descriptionTerms = doc.description() == null ? new int[0] : ids(table, doc.description());
            String content = page.body();
            char[] chars = content.toCharArray();
            String lastHeading = null;
            int[] headingTerms = new int[0];
            String lastParent = null;
            int[] parentTerms = new int[0];
            for (Markdown.Section section : page.sections()) {
                int u = units.size();
                int bodyStart = section.start();
                if (section.heading() != null) {
                    int newline = content.indexOf('\n', section.start());
                    bodyStart = newline < 0 || newline >= section.end() ? section.end() : newline + 1;
                }
                if (section.heading() != null && !section.heading().equals(lastHeading)) {
                    lastHeading = section.heading();
                    headingTerms = ids(table, lastHeading);
                }
                if (section.parent() != null && !section.parent().equals(lastParent)) {
                    lastParent = section.parent();
                    parentTerms = ids(table, lastParent);
                }
                int bodyCount = table.scan(chars, bodyStart, section.end());
                int vocabulary = table.size();
                if (vocabulary > stamp.length) {
                    int grown = Math.max(vocabulary, stamp.length * 2);
                    for (int f = 0; f < 5; f++) {
                        counts[f] = Arrays.copyOf(counts[f], grown);
                    }
                    stamp = Arrays.copyOf(stamp, grown);
                    touched = Arrays.copyOf(touched, grown);
                }
                int touchedCount = 0;
                int mark = u + 1;
                touchedCount = tally(titleTerms, titleTerms.length, TITLE, counts, stamp, mark, touched, touchedCount);
                if (section.heading() != null) {
                    touchedCount = tally(headingTerms, headingTerms.length, HEADING, counts, stamp, mark, touched,
                            touchedCount);
                }
                if (section.parent() != null) {
                    touchedCount = tally(parentTerms, parentTerms.length, PARENT, counts, stamp, mark, touched,
                            touchedCount);
                }
                touchedCount = tally(descriptionTerms, descriptionTerms.length, DESCRIPTION, counts, stamp, mark,
                        touched, touchedCount);
                touchedCount = tally(table.out, bodyCount, BODY, counts, stamp, mark, touched, touchedCount);
                if ((postingCount + touchedCount) * STRIDE > flat.length) {
                    flat = Arrays.copyOf(flat, Math.max(flat.length * 2, (postingCount + touchedCount) * STRIDE));
                }
                for (int t = 0; t < touchedCount; t++) {
                    int term = touched[t];
                    int at = postingCount++ * STRIDE;
                    flat[at] = term;
                    flat[at + 1] = u;
                    for (int f = 0; f < 5; f++) {
                        flat[at + 2 + f] = counts[f][term];
                        counts[f][term] = 0;
                    }
                }
                units.add(new Unit(p, section.heading(), section.start(), section.end(), bodyStart));
                if (u == bodyLengths.length) {
                    bodyLengths = Arrays.copyOf(bodyLengths, u * 2);
                }
                bodyLengths[u] = bodyCount;
                totalBody += bodyCount;
            }
        }
        double averageBody = units.isEmpty() ? 1 : Math.max(1.0, (double) totalBody / units.size());
        // group the postings by term (a counting sort keeps each term's units ascending)
        int vocabulary = table.size();
        int[] offsets = new int[vocabulary + 1];
        for (int i = 0; i < postingCount; i++) {
            offsets[flat[i * STRIDE] + 1]++;
        }
        for (int t = 0; t < vocabulary; t++) {
            offsets[t + 1] += offsets[t];
        }
        int[][] termUnits = new int[vocabulary][];
        float[][] termTf = new float[vocabulary][];
        boolean[][] termInHeading = new boolean[vocabulary][];
        for (int t = 0; t < vocabulary; t++) {
            int n = offsets[t + 1] - offsets[t];
            termUnits[t] = new int[n];
            termTf[t] = new float[n];
            termInHeading[t] = new boolean[n];
        }
        int[] filled = new int[vocabulary];
        for (int i = 0; i < postingCount; i++) {
            int at = i * STRIDE;
            int term = flat[at];
            int u = flat[at + 1];
            double norm = 1 - DocsIndex.B + DocsIndex.B * bodyLengths[u] / averageBody;
            double weighted = DocsIndex.W_TITLE * flat[at + 2 + TITLE] + DocsIndex.W_HEADING * flat[at + 2 + HEADING]
                    + DocsIndex.W_PARENT * flat[at + 2 + PARENT] + DocsIndex.W_DESCRIPTION * flat[at + 2 + DESCRIPTION]
                    + DocsIndex.W_BODY * flat[at + 2 + BODY] / norm;
            int k = filled[term]++;
            termUnits[term][k] = u;
            termTf[term][k] = (float) weighted;
            termInHeading[term][k] = flat[at + 2 + HEADING] > 0 || flat[at + 2 + PARENT] > 0;
        }
        Map<String, Postings> postings = new HashMap<>(vocabulary * 2);
        for (int t = 0; t < vocabulary; t++) {
            if (termUnits[t].length > 0) {
                postings.put(table.term(t), new Postings(termUnits[t], termTf[t], termInHeading[t]));
            }
        }
        return new Built(units.toArray(new Unit[0]), postings);
    }

    private static int[] ids(TermTable table, String text) {
        int n = table.scan(text);
        return Arrays.copyOf(table.out, n);
    }

    /** Adds {@code terms[0, n)} to field {@code field}, noting each term first seen in this unit. */
    private static int tally(int[] terms, int n, int field, int[][] counts, int[] stamp, int mark, int[] touched,
            int touchedCount) {
        int[] fieldCounts = counts[field];
        for (int i = 0; i < n; i++) {
            int term = terms[i];
            if (stamp[term] != mark) {
                stamp[term] = mark;
                touched[touchedCount++] = term;
            }
            fieldCounts[term]++;
        }
        return touchedCount;
    }

    static double idf(int documentFrequency, int units) {
        return Math.log(1 + (units - documentFrequency + 0.5) / (documentFrequency + 0.5));
    }

    static DocSearch search(DocsIndex index, String query, int limit) {
        Set<String> terms = new LinkedHashSet<>(Tokenizer.terms(query));
        if (terms.isEmpty()) {
            return new DocSearch(List.of(), DocSearch.Quality.WEAK, Notes.onlyCommonWords());
        }
        Unit[] units = index.units();
        int n = units.length;
        double[] scores = new double[n];
        double attainable = 0;
        Map<String, Double> idfs = new HashMap<>();
        for (String term : terms) {
            Postings list = index.postings().get(term);
            int df = list == null ? 0 : list.units().length;
            double idf = idf(df, Math.max(n, 1));
            idfs.put(term, idf);
            attainable += idf * (DocsIndex.K1 + 1);
            if (list == null) {
                continue;
            }
            for (int i = 0; i < list.units().length; i++) {
                double tf = list.tf()[i];
                scores[list.units()[i]] += idf * tf * (DocsIndex.K1 + 1) / (tf + DocsIndex.K1);
            }
        }
        // a page scores as its best section (the first one on equal scores)
        int pageCount = index.pages().size();
        int[] bestUnit = new int[pageCount];
        Arrays.fill(bestUnit, -1);
        for (int u = 0; u < n; u++) {
            if (scores[u] <= 0) {
                continue;
            }
            int page = units[u].page();
            if (bestUnit[page] < 0 || scores[u] > scores[bestUnit[page]]) {
                bestUnit[page] = u;
            }
        }
        List<Integer> ranked = new ArrayList<>();
        for (int p = 0; p < pageCount; p++) {
            if (bestUnit[p] >= 0) {
                ranked.add(bestUnit[p]);
            }
        }
        if (ranked.isEmpty()) {
            return new DocSearch(List.of(), DocSearch.Quality.EMPTY, Notes.empty());
        }
        // order by the score the model sees (rounded), so equal-looking scores always list in slug order
        ranked.sort((a, b) -> {
            int byScore = Long.compare(Math.round(scores[b] * 1000), Math.round(scores[a] * 1000));
            return byScore != 0 ? byScore
                    : index.pages().get(units[a].page()).slug().compareTo(index.pages().get(units[b].page()).slug());
        });
        List<DocHit> hits = new ArrayList<>();
        for (int i = 0; i < Math.min(limit, ranked.size()); i++) {
            int u = ranked.get(i);
            Unit unit = units[u];
            DocPage page = index.pages().get(unit.page());
            String snippet = Snippets.around(index.body(unit.page()), unit.bodyStart(), unit.end(), idfs);
            hits.add(new DocHit(page.slug(), page.title(), unit.heading(), snippet, Math.round(scores[u] * 1000) / 1000.0));
        }
        // judge the best section: does it match an uncommon term (or a term of its own heading), and how many of
        // the query's uncommon terms (unknown ones included) does it match?
        int top = ranked.get(0);
        boolean anchored = false;
        int uncommon = 0;
        int uncommonMatched = 0;
        List<String> matchedCommon = new ArrayList<>();
        for (String term : terms) {
            Postings list = index.postings().get(term);
            boolean common = list != null && list.units().length > Math.max(DocsIndex.COMMON_SHARE * n, 2);
            if (!common) {
                uncommon++;
            }
            int at = list == null ? -1 : Arrays.binarySearch(list.units(), top);
            if (at < 0) {
                continue;
            }
            if (common) {
                matchedCommon.add(term);
            } else {
                uncommonMatched++;
            }
            if (!common || list.inHeading()[at]) {
                anchored = true;
            }
        }
        double relative = scores[top] / attainable;
        String bestSlug = index.pages().get(units[top].page()).slug();
        if (!anchored) {
            return new DocSearch(hits, DocSearch.Quality.WEAK, Notes.commonOnly(matchedCommon));
        }
        if ((uncommon > 0 && uncommonMatched < DocsIndex.MIN_COVERAGE * uncommon)
                || relative < DocsIndex.MIN_RELATIVE_SCORE) {
            return new DocSearch(hits, DocSearch.Quality.WEAK, Notes.weak(bestSlug));
        }
        return new DocSearch(hits, DocSearch.Quality.STRONG, Notes.strong(bestSlug));
    }
}
