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
import java.util.stream.IntStream;

/** BM25F over page sections: building the postings and answering a query. Pure and deterministic. */
final class Ranker {

    private Ranker() {
    }

    record Built(Unit[] units, Map<String, Postings> postings) {
    }

    /** A growable postings list while building. */
    private static final class Growing {
        int[] units = new int[4];
        float[] tf = new float[4];
        boolean[] inHeading = new boolean[4];
        int size;

        void add(int unit, float value, boolean heading) {
            if (size == units.length) {
                units = Arrays.copyOf(units, size * 2);
                tf = Arrays.copyOf(tf, size * 2);
                inHeading = Arrays.copyOf(inHeading, size * 2);
            }
            units[size] = unit;
            tf[size] = value;
            inHeading[size] = heading;
            size++;
        }
    }

    /** The sections of one page with their term counts per field: 0 title, 1 heading, 2 parent, 3 description, 4 body. */
    private record PageUnits(List<Unit> units, List<Map<String, float[]>> counts, int[] bodyLengths) {
    }

    static Built build(List<Markdown.Parsed> parsed) {
        // pages are counted in parallel; the list keeps page order, so unit numbers and postings are the same
        List<PageUnits> perPage = IntStream.range(0, parsed.size()).parallel()
                .mapToObj(p -> count(p, parsed.get(p))).toList();
        List<Unit> units = new ArrayList<>();
        List<Map<String, float[]>> counts = new ArrayList<>();
        long totalBody = 0;
        for (PageUnits page : perPage) {
            units.addAll(page.units());
            counts.addAll(page.counts());
            for (int length : page.bodyLengths()) {
                totalBody += length;
            }
        }
        int[] bodyLengths = new int[units.size()];
        int u0 = 0;
        for (PageUnits page : perPage) {
            System.arraycopy(page.bodyLengths(), 0, bodyLengths, u0, page.bodyLengths().length);
            u0 += page.bodyLengths().length;
        }
        double averageBody = units.isEmpty() ? 1 : Math.max(1.0, (double) totalBody / units.size());
        Map<String, Growing> growing = new HashMap<>();
        for (int u = 0; u < units.size(); u++) {
            double norm = 1 - DocsIndex.B + DocsIndex.B * bodyLengths[u] / averageBody;
            for (var entry : counts.get(u).entrySet()) {
                float[] f = entry.getValue();
                double weighted = DocsIndex.W_TITLE * f[0] + DocsIndex.W_HEADING * f[1] + DocsIndex.W_PARENT * f[2]
                        + DocsIndex.W_DESCRIPTION * f[3] + DocsIndex.W_BODY * f[4] / norm;
                growing.computeIfAbsent(entry.getKey(), t -> new Growing()).add(u, (float) weighted, f[1] > 0 || f[2] > 0);
            }
        }
        Map<String, Postings> postings = new HashMap<>(growing.size() * 2);
        for (var entry : growing.entrySet()) {
            Growing g = entry.getValue();
            postings.put(entry.getKey(), new Postings(Arrays.copyOf(g.units, g.size), Arrays.copyOf(g.tf, g.size),
                    Arrays.copyOf(g.inHeading, g.size)));
        }
        return new Built(units.toArray(new Unit[0]), postings);
    }

    private static PageUnits count(int p, Markdown.Parsed parsed) {
        DocPage page = parsed.page();
        List<String> titleTerms = Tokenizer.terms(page.title());
        List<String> descriptionTerms = page.description() == null ? List.of() : Tokenizer.terms(page.description());
        String content = page.content();
        List<Unit> units = new ArrayList<>(parsed.sections().size());
        List<Map<String, float[]>> counts = new ArrayList<>(parsed.sections().size());
        int[] bodyLengths = new int[parsed.sections().size()];
        int i = 0;
        for (Markdown.Section section : parsed.sections()) {
            int bodyStart = section.start();
            if (section.heading() != null) {
                int newline = content.indexOf('\n', section.start());
                bodyStart = newline < 0 || newline >= section.end() ? section.end() : newline + 1;
            }
            Map<String, float[]> tf = new HashMap<>();
            for (String term : titleTerms) {
                tf.computeIfAbsent(term, t -> new float[5])[0]++;
            }
            if (section.heading() != null) {
                for (String term : Tokenizer.terms(section.heading())) {
                    tf.computeIfAbsent(term, t -> new float[5])[1]++;
                }
            }
            if (section.parent() != null) {
                for (String term : Tokenizer.terms(section.parent())) {
                    tf.computeIfAbsent(term, t -> new float[5])[2]++;
                }
            }
            for (String term : descriptionTerms) {
                tf.computeIfAbsent(term, t -> new float[5])[3]++;
            }
            int[] bodyCount = new int[1];
            Tokenizer.forEachTerm(content, bodyStart, section.end(), term -> {
                tf.computeIfAbsent(term, t -> new float[5])[4]++;
                bodyCount[0]++;
            });
            units.add(new Unit(p, section.heading(), section.start(), section.end(), bodyStart));
            counts.add(tf);
            bodyLengths[i++] = bodyCount[0];
        }
        return new PageUnits(units, counts, bodyLengths);
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
            String snippet = Snippets.around(page.content(), unit.bodyStart(), unit.end(), idfs);
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
