package dev.toolgate.examples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes a benchmark table as CSV and its throughput ratios as one SVG bar chart (plain SVG text, no
 * library): one bar per row that has a baseline, its length the ratio of Toolgate's ops/s to the
 * baseline's, with the line at 1.0 where Toolgate would be as fast as raw JDBC.
 */
final class BenchReport {

    static final String CSV = "storage.csv";
    static final String SVG = "storage-ratios.svg";

    /** The narrowest label column; wider when a label needs it. */
    private static final int LABEL_WIDTH = 560;
    /** A generous average width of a character of the 12-px sans-serif labels, so none is cut at the left edge. */
    private static final double CHAR_WIDTH = 6.6;
    private static final int BAR_WIDTH = 420;
    private static final int ROW_HEIGHT = 22;
    private static final int TOP = 56;

    private BenchReport() {
    }

    /** Writes {@link #CSV} and {@link #SVG} into {@code dir}; the last column of {@code rows} is the ratio ("0.73x" or "-"). */
    static void write(Path dir, String[] header, List<String[]> rows, String title) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(CSV), csv(header, rows), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(SVG), svg(header, rows, title), StandardCharsets.UTF_8);
    }

    static String csv(String[] header, List<String[]> rows) {
        StringBuilder out = new StringBuilder();
        line(out, header);
        for (String[] row : rows) {
            String[] plain = new String[row.length];
            for (int i = 0; i < row.length; i++) {
                plain[i] = number(row[i]);
            }
            line(out, plain);
        }
        return out.toString();
    }

    /** A figure as a plain number ("1,234" becomes 1234, "0.73x" 0.73, "-" empty); other text unchanged. */
    private static String number(String cell) {
        if ("-".equals(cell)) {
            return "";
        }
        if (cell.matches("[0-9][0-9,]*(\\.[0-9]+)?x?")) {
            return cell.replace(",", "").replace("x", "");
        }
        return cell;
    }

    private static void line(StringBuilder out, String[] cells) {
        for (int i = 0; i < cells.length; i++) {
            String cell = cells[i];
            if (cell.contains(",") || cell.contains("\"") || cell.contains("\n")) {
                cell = "\"" + cell.replace("\"", "\"\"") + "\"";
            }
            out.append(cell).append(i + 1 < cells.length ? "," : "\n");
        }
    }

    static String svg(String[] header, List<String[]> rows, String title) {
        int ratioColumn = header.length - 1;
        List<String[]> bars = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        double max = 1.2;
        for (String[] row : rows) {
            String ratio = row[ratioColumn];
            // an opt-in that trades durability (rows written behind) is in the table and the CSV, not on the
            // graph of what governance costs at the default durability
            if (ratio.endsWith("x") && !row[1].contains("(opt-in)")) {
                double value = Double.parseDouble(ratio.substring(0, ratio.length() - 1));
                bars.add(row);
                ratios.add(value);
                max = Math.max(max, value);
            }
        }
        double scale = BAR_WIDTH / (Math.ceil(max * 5) / 5);
        int labelWidth = LABEL_WIDTH;
        for (String[] row : bars) {
            labelWidth = Math.max(labelWidth, (int) Math.ceil(label(row).length() * CHAR_WIDTH) + 18);
        }
        int width = labelWidth + BAR_WIDTH + 70;
        int height = TOP + bars.size() * ROW_HEIGHT + 40;
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", width, height, width, height));
        out.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        out.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                escape(title)));
        out.append("<text x=\"10\" y=\"40\" fill=\"#555\">Toolgate's ops/s divided by the raw JDBC baseline's, same database,"
                + " same threads, one run; at 1.0 governance would cost nothing</text>\n");
        for (int i = 0; i < bars.size(); i++) {
            String[] row = bars.get(i);
            int y = TOP + i * ROW_HEIGHT;
            out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    labelWidth - 8, y + 15, escape(label(row))));
            double w = ratios.get(i) * scale;
            out.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                    labelWidth, y + 3, w, ROW_HEIGHT - 6, color(row[0])));
            out.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%.2fx</text>%n", labelWidth + w + 4, y + 15,
                    ratios.get(i)));
        }
        double one = labelWidth + scale;
        int bottom = TOP + bars.size() * ROW_HEIGHT;
        out.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c00\""
                + " stroke-dasharray=\"4 3\"/>%n", one, TOP - 4, one, bottom + 4));
        out.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#c00\">1.0 = raw JDBC</text>%n",
                one, bottom + 20));
        out.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n",
                labelWidth, TOP - 4, labelWidth, bottom + 4));
        out.append("</svg>\n");
        return out.toString();
    }

    /** A bar's label: database, workload, threads and baseline. */
    private static String label(String[] row) {
        return row[0] + " · " + row[1] + " · " + row[2] + " thr · vs " + row[6];
    }

    private static String color(String database) {
        if (database.startsWith("PostgreSQL")) {
            return "#336791";
        }
        return database.startsWith("H2") ? "#1f8a70" : "#888888";
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
