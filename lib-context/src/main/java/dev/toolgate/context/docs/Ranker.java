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
    /** One posting while counting: term, then the five field counts (its unit is implied by its position). */
    private static final int STRIDE = 6;

    /**
     * Counts every section's terms per field in one sequential pass (terms as ids of a {@link TermTable}, so no
     * per-token strings or maps), then weighs them once the average body length is known. Postings list their
     * units in ascending order; the result is the same for the same pages.
     */
    static Built build(List<Markdown.Parsed> parsed) {
        Counter counter = new Counter();
        for (int p = 0; p < parsed.size(); p++) {
            counter.page(p, parsed.get(p));
        }
        return counter.built();
    }

    /**
     * The state of {@link #build}. Its work is split into small methods called once per page, section or term:
     * on a cold JVM such methods are compiled after a few calls, where one long method would run interpreted
     * until an on-stack replacement of all of it is compiled.
     */
    private static final class Counter {
        final TermTable table = new TermTable();
        final List<Unit> units = new ArrayList<>();
        int[] bodyLengths = new int[64];
        /** Where each unit's postings start in {@link #flat}; one more entry than units at the end. */
        int[] unitStart = new int[65];
        int[] flat = new int[STRIDE * 4096];
        char[] chars = new char[16 * 1024];
        int postingCount;
        final int[][] counts = new int[5][1024];
        int[] touched = new int[1024];
        int[] stamp = new int[1024];
        long totalBody;

        void page(int p, Markdown.Parsed page) {
            DocPage doc = page.page();
            int[] titleTerms = ids(doc.title());
            int[] descriptionTerms = doc.description() == null ? new int[0] : ids(doc.description());
            String body = page.body();
            if (body.length() > chars.length) {
                chars = new char[Math.max(body.length(), chars.length * 2)];
            }
            body.getChars(0, body.length(), chars, 0); // one buffer for all pages: less to collect
            String lastHeading = null;
            int[] headingTerms = new int[0];
            String lastParent = null;
            int[] parentTerms = new int[0];
            for (Markdown.Section section : page.sections()) {
                if (section.heading() != null && !section.heading().equals(lastHeading)) {
                    lastHeading = section.heading();
                    headingTerms = ids(lastHeading);
                }
                if (section.parent() != null && !section.parent().equals(lastParent)) {
                    lastParent = section.parent();
                    parentTerms = ids(lastParent);
                }
                unit(p, body, chars, section, titleTerms, section.heading() != null ? headingTerms : null,
                        section.parent() != null ? parentTerms : null, descriptionTerms);
            }
        }

        private void unit(int p, String body, char[] chars, Markdown.Section section, int[] titleTerms,
                int[] headingTerms, int[] parentTerms, int[] descriptionTerms) {
            int u = units.size();
            int bodyStart = section.start();
            if (section.heading() != null) {
                int newline = body.indexOf('\n', section.start());
                bodyStart = newline < 0 || newline >= section.end() ? section.end() : newline + 1;
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
            int mark = u + 1;
            int n = tally(titleTerms, titleTerms.length, TITLE, mark, 0);
            if (headingTerms != null) {
                n = tally(headingTerms, headingTerms.length, HEADING, mark, n);
            }
            if (parentTerms != null) {
                n = tally(parentTerms, parentTerms.length, PARENT, mark, n);
            }
            n = tally(descriptionTerms, descriptionTerms.length, DESCRIPTION, mark, n);
            n = tally(table.out, bodyCount, BODY, mark, n);
            emit(n);
            units.add(new Unit(p, section.heading(), section.start(), section.end(), bodyStart));
            if (u + 1 >= unitStart.length) {
                bodyLengths = Arrays.copyOf(bodyLengths, unitStart.length * 2);
                unitStart = Arrays.copyOf(unitStart, unitStart.length * 2);
            }
            bodyLengths[u] = bodyCount;
            unitStart[u + 1] = postingCount;
            totalBody += bodyCount;
        }

        private int[] ids(String text) {
            int n = table.scan(text);
            return Arrays.copyOf(table.out, n);
        }

        /** Adds {@code terms[0, n)} to field {@code field}, noting each term first seen in this unit. */
        private int tally(int[] terms, int n, int field, int mark, int touchedCount) {
            int[] fieldCounts = counts[field];
            int[] stamp = this.stamp;
            int[] touched = this.touched;
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

        /** Appends the unit's postings, the {@code n} touched terms with their counts, and clears the counts. */
        private void emit(int n) {
            if ((postingCount + n) * STRIDE > flat.length) {
                flat = Arrays.copyOf(flat, Math.max(flat.length * 2, (postingCount + n) * STRIDE));
            }
            int[] flat = this.flat;
            int[] title = counts[TITLE];
            int[] heading = counts[HEADING];
            int[] parent = counts[PARENT];
            int[] description = counts[DESCRIPTION];
            int[] body = counts[BODY];
            int at = postingCount * STRIDE;
            for (int t = 0; t < n; t++) {
                int term = touched[t];
                flat[at] = term;
                flat[at + 1 + TITLE] = title[term];
                flat[at + 1 + HEADING] = heading[term];
                flat[at + 1 + PARENT] = parent[term];
                flat[at + 1 + DESCRIPTION] = description[term];
                flat[at + 1 + BODY] = body[term];
                title[term] = 0;
                heading[term] = 0;
                parent[term] = 0;
                description[term] = 0;
                body[term] = 0;
                at += STRIDE;
            }
            postingCount += n;
        }

        Built built() {
            int unitCount = units.size();
            double averageBody = unitCount == 0 ? 1 : Math.max(1.0, (double) totalBody / unitCount);
            // group the postings by term, units ascending: count, then fill unit by unit
            int vocabulary = table.size();
            int[] sizes = new int[vocabulary];
            for (int i = 0; i < postingCount; i++) {
                sizes[flat[i * STRIDE]]++;
            }
            int[][] termUnits = new int[vocabulary][];
            float[][] termTf = new float[vocabulary][];
            boolean[][] termInHeading = new boolean[vocabulary][];
            for (int t = 0; t < vocabulary; t++) {
                termUnits[t] = new int[sizes[t]];
                termTf[t] = new float[sizes[t]];
                termInHeading[t] = new boolean[sizes[t]];
            }
            int[] filled = new int[vocabulary];
            for (int u = 0; u < unitCount; u++) {
                weigh(u, averageBody, filled, termUnits, termTf, termInHeading);
            }
            Map<String, Postings> postings = new HashMap<>(vocabulary * 2);
            for (int t = 0; t < vocabulary; t++) {
                if (sizes[t] > 0) {
                    postings.put(table.term(t), new Postings(termUnits[t], termTf[t], termInHeading[t]));
                }
            }
            return new Built(units.toArray(new Unit[0]), postings);
        }

        /** Weighs unit {@code u}'s postings into the terms' lists. */
        private void weigh(int u, double averageBody, int[] filled, int[][] termUnits, float[][] termTf,
                boolean[][] termInHeading) {
            double norm = 1 - DocsIndex.B + DocsIndex.B * bodyLengths[u] / averageBody;
            int[] flat = this.flat;
            for (int i = unitStart[u]; i < unitStart[u + 1]; i++) {
                int at = i * STRIDE;
                int term = flat[at];
                double weighted = DocsIndex.W_TITLE * flat[at + 1 + TITLE] + DocsIndex.W_HEADING * flat[at + 1 + HEADING]
                        + DocsIndex.W_PARENT * flat[at + 1 + PARENT]
                        + DocsIndex.W_DESCRIPTION * flat[at + 1 + DESCRIPTION]
                        + DocsIndex.W_BODY * flat[at + 1 + BODY] / norm;
                int k = filled[term]++;
                termUnits[term][k] = u;
                termTf[term][k] = (float) weighted;
                termInHeading[term][k] = flat[at + 1 + HEADING] > 0 || flat[at + 1 + PARENT] > 0;
            }
        }
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
