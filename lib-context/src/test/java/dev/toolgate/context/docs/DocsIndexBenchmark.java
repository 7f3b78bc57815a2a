package dev.toolgate.context.docs;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Supplier;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * How long indexing 500 realistic pages takes (the target is under 200 ms). Not a test: run it by hand in
 * its own JVM (the reactor skips exec:java outside the example host):
 *
 * <pre>
 * ./mvnw -B -q -o -pl lib-context test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=/tmp/ctx-cp.txt -Dmdep.includeScope=test
 * CP=lib-context/target/test-classes:lib-context/target/classes:$(cat /tmp/ctx-cp.txt)
 * java -Xms256m -Xmx512m -cp $CP dev.toolgate.context.docs.DocsIndexBenchmark [pages] [repeats]     # warm
 * java -Xms256m -Xmx512m -cp $CP dev.toolgate.context.docs.DocsIndexBenchmark cold [pages] [jvms] [phases]
 * java -Xms256m -Xmx512m -cp $CP dev.toolgate.context.docs.DocsIndexBenchmark cold-prebuilt [pages] [jvms]
 * </pre>
 *
 * It writes 500 pages of 4-8 KB (front matter, headings, paragraphs, lists, tables, code) to a temporary
 * directory and a jar. <b>Warm</b> (the default): warms up, then times {@link DocsIndex#fromDirectory},
 * {@link DocsIndex#fromClasspath} over the jar and a build from in-memory text, printing min / median / max of
 * each. <b>Cold</b> ({@code cold}): what start-up really costs. It starts {@code jvms} (10) fresh JVMs with this
 * JVM's heap flags and classpath, each timing its first {@link DocsIndex#fromDirectory} before any other code
 * of the index ran, and prints min / median / max; then the same with slf4j initialized first, as in a host
 * that logs before it indexes (slf4j's own start-up is then not counted). With {@code phases} each child first
 * times reading, parsing and counting separately (each cold), for attribution only. <b>Cold prebuilt</b>
 * ({@code cold-prebuilt}): the build-time option. It writes the pages' index file once with
 * {@link DocsIndex#writeTo}, then starts {@code jvms} fresh JVMs, each timing its first {@link DocsIndex#readFrom}
 * of the file, and prints min / median / max.
 */
public final class DocsIndexBenchmark {

    private static final String[] COMMON = ("the a of to and in is it that for on with as by this be are from or an "
            + "can you your when each its not all one call tool page run check system user value returns default "
            + "uses every only into after before then also more than new time first should would which").split(" ");

    private DocsIndexBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("cold-child")) {
            List<String> flags = Arrays.asList(args).subList(3, args.length);
            coldChild(Path.of(args[1]), Integer.parseInt(args[2]), flags.contains("phases"), flags.contains("logging-ready"));
            return;
        }
        if (args.length > 0 && args[0].equals("cold-prebuilt-child")) {
            coldPrebuiltChild(Path.of(args[1]), Integer.parseInt(args[2]), args.length > 3 && args[3].equals("logging-ready"));
            return;
        }
        if (args.length > 0 && args[0].equals("cold-prebuilt")) {
            coldPrebuilt(args.length > 1 ? Integer.parseInt(args[1]) : 500, args.length > 2 ? Integer.parseInt(args[2]) : 10);
            return;
        }
        if (args.length > 0 && args[0].equals("cold")) {
            cold(args.length > 1 ? Integer.parseInt(args[1]) : 500, args.length > 2 ? Integer.parseInt(args[2]) : 10,
                    args.length > 3 && args[3].equals("phases"));
            return;
        }
        int pages = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        Path dir = Files.createTempDirectory("docs-bench");
        Path jar = dir.resolveSibling(dir.getFileName() + ".jar");
        Random random = new Random(7);
        String[] vocabulary = vocabulary(random, 3000);
        List<String[]> generated = generate(dir, random, vocabulary, pages);
        long bytes = 0;
        for (String[] page : generated) {
            bytes += page[1].getBytes(StandardCharsets.UTF_8).length;
        }
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("docs/")); // as jar tools write it: the folder is found by its entry
            out.closeEntry();
            for (String[] page : generated) {
                out.putNextEntry(new JarEntry("docs/" + page[0]));
                out.write(page[1].getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        System.out.printf(Locale.ROOT, "%d pages, %.1f KB total (%.1f KB average), JDK %s, %d CPUs%n", pages,
                bytes / 1024.0, bytes / 1024.0 / pages, Runtime.version(), Runtime.getRuntime().availableProcessors());
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            Supplier<DocsIndex> fromDirectory = () -> DocsIndex.fromDirectory(dir);
            Supplier<DocsIndex> fromJar = () -> DocsIndex.fromClasspath("docs", loader);
            Supplier<DocsIndex> fromMemory = () -> {
                DocsIndex.Builder builder = DocsIndex.builder();
                generated.forEach(p -> builder.page(p[0], p[1]));
                return builder.build();
            };
            long cold = System.nanoTime();
            DocsIndex index = fromDirectory.get();
            System.out.printf(Locale.ROOT, "index: %s; first build in this JVM (after generating the pages here; 'cold' measures fresh JVMs): %.1f ms%n", index,
                    (System.nanoTime() - cold) / 1e6);
            measure("fromDirectory", fromDirectory, pages, repeats);
            measure("fromClasspath (jar)", fromJar, pages, repeats);
            measure("in-memory text", fromMemory, pages, repeats);
            long started = System.nanoTime();
            int queries = 0;
            for (int r = 0; r < 200; r++) {
                index.search(vocabulary[r % 300] + " " + vocabulary[(r * 7) % 1000] + " " + COMMON[r % COMMON.length], 10);
                queries++;
            }
            System.out.printf(Locale.ROOT, "search: %.3f ms per query (%d queries, limit 10)%n",
                    (System.nanoTime() - started) / 1e6 / queries, queries);
        } finally {
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            Files.deleteIfExists(jar);
        }
    }

    /** Writes {@code pages} generated pages under {@code dir}; returns their paths and texts. */
    private static List<String[]> generate(Path dir, Random random, String[] vocabulary, int pages) throws IOException {
        List<String[]> generated = new ArrayList<>();
        for (int i = 0; i < pages; i++) {
            String path = "section-" + (i % 12) + "/topic-" + (i / 12) + "/page-" + i + ".md";
            String text = page(random, vocabulary, i, 4096 + random.nextInt(4096));
            generated.add(new String[] {path, text});
            Path file = dir.resolve(path);
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        }
        return generated;
    }

    /**
     * The cold figure: writes the pages once, then starts {@code jvms} fresh JVMs (same java, heap flags and
     * classpath as this one) that each time their first {@link DocsIndex#fromDirectory} and print it.
     */
    private static void cold(int pages, int jvms, boolean phases) throws Exception {
        Path dir = Files.createTempDirectory("docs-bench-cold");
        try {
            Random random = new Random(7); // the same pages as the warm run
            generate(dir, random, vocabulary(random, 3000), pages);
            String javaBinary = ProcessHandle.current().info().command().orElse("java");
            List<String> command = new ArrayList<>();
            command.add(javaBinary);
            for (String flag : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (flag.startsWith("-X") || flag.startsWith("-XX:")) {
                    command.add(flag);
                }
            }
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), DocsIndexBenchmark.class.getName(),
                    "cold-child", dir.toString(), Integer.toString(pages)));
            if (phases) {
                command.add("phases");
            }
            System.out.printf(Locale.ROOT, "cold: %d pages, %d fresh JVMs (%s), JDK %s, %d CPUs%n", pages, jvms,
                    String.join(" ", command.subList(1, command.indexOf("-cp"))), Runtime.version(),
                    Runtime.getRuntime().availableProcessors());
            coldRuns("cold fromDirectory", command, jvms, phases);
            // a host has its logging up before it builds the index: the index's own share of start-up
            List<String> withLogging = new ArrayList<>(command);
            withLogging.remove("phases");
            withLogging.add("logging-ready");
            coldRuns("cold, slf4j ready", withLogging, jvms, false);
        } finally {
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void coldRuns(String label, List<String> command, int jvms, boolean phases) throws Exception {
        double[] millis = new double[jvms];
        double[] process = new double[jvms];
        for (int i = 0; i < jvms; i++) {
            long started = System.nanoTime();
            Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (child.waitFor() != 0) {
                throw new IllegalStateException("cold child failed:\n" + out);
            }
            process[i] = (System.nanoTime() - started) / 1e6;
            for (String line : out.split("\n")) {
                if (line.startsWith("first-build-ms ")) {
                    millis[i] = Double.parseDouble(line.substring("first-build-ms ".length()).strip());
                } else if (phases) {
                    System.out.println("  " + line);
                }
            }
        }
        Arrays.sort(millis);
        Arrays.sort(process);
        System.out.printf(Locale.ROOT, "%-20s %d fresh JVMs: min %.1f ms, median %.1f ms, max %.1f ms"
                + " (whole child process: median %.0f ms)%n", label, jvms, millis[0], millis[jvms / 2],
                millis[jvms - 1], process[jvms / 2]);
    }

    /** The generated pages (the same as every mode's), written under {@code dir}: their paths and texts. */
    static List<String[]> generatePages(Path dir, int pages) throws IOException {
        Random random = new Random(7);
        return generate(dir, random, vocabulary(random, 3000), pages);
    }

    /**
     * The cold figure of a prebuilt index: writes the pages and their index file once, then starts {@code jvms}
     * fresh JVMs that each time their first {@link DocsIndex#readFrom} of the file (opening it included).
     */
    private static void coldPrebuilt(int pages, int jvms) throws Exception {
        Path dir = Files.createTempDirectory("docs-bench-prebuilt");
        Path file = dir.resolveSibling(dir.getFileName() + ".idx");
        try {
            generatePages(dir, pages);
            try (java.io.OutputStream out = Files.newOutputStream(file)) {
                DocsIndex.fromDirectory(dir).writeTo(out);
            }
            List<String> command = childCommand();
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), DocsIndexBenchmark.class.getName(),
                    "cold-prebuilt-child", file.toString(), Integer.toString(pages)));
            System.out.printf(Locale.ROOT, "cold-prebuilt: %d pages, index file %.1f KB, %d fresh JVMs (%s), JDK %s, %d CPUs%n",
                    pages, Files.size(file) / 1024.0, jvms, String.join(" ", command.subList(1, command.indexOf("-cp"))),
                    Runtime.version(), Runtime.getRuntime().availableProcessors());
            coldRuns("cold readFrom", command, jvms, false);
            List<String> withLogging = new ArrayList<>(command);
            withLogging.add("logging-ready");
            coldRuns("readFrom, slf4j ready", withLogging, jvms, false);
        } finally {
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            Files.deleteIfExists(file);
        }
    }

    private static List<String> childCommand() {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        for (String flag : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (flag.startsWith("-X") || flag.startsWith("-XX:")) {
                command.add(flag);
            }
        }
        return command;
    }

    /** In a fresh JVM: the first load of a prebuilt file, nothing of the index's code run before it. */
    private static void coldPrebuiltChild(Path file, int pages, boolean loggingReady) throws IOException {
        if (loggingReady) {
            org.slf4j.LoggerFactory.getLogger(DocsIndexBenchmark.class).isDebugEnabled();
        }
        long started = System.nanoTime();
        DocsIndex index;
        try (java.io.InputStream in = Files.newInputStream(file)) {
            index = DocsIndex.readFrom(in);
        }
        double millis = (System.nanoTime() - started) / 1e6;
        check(index, pages);
        System.out.printf(Locale.ROOT, "first-build-ms %.2f%n", millis);
    }

    /** In a fresh JVM: the first build, nothing of the index's code run before it. */
    private static void coldChild(Path dir, int pages, boolean phases, boolean loggingReady) {
        if (loggingReady) {
            org.slf4j.LoggerFactory.getLogger(DocsIndexBenchmark.class).isDebugEnabled();
        }
        if (phases) {
            // attribution only: the same work as a build, timed step by step (each step cold)
            long t0 = System.nanoTime();
            List<DocSources.Source> sources = DocSources.directory(dir);
            long t1 = System.nanoTime();
            List<Markdown.Parsed> parsed = new ArrayList<>();
            for (DocSources.Source source : sources) {
                parsed.add(Markdown.parse(source.path(), DocsIndex.ROOT_SECTION, source.text(), DocsIndex.DEFAULT_MAX_PAGE_BYTES,
                        DocsIndex.INDEXED_BYTES));
            }
            long t2 = System.nanoTime();
            Ranker.build(parsed);
            long t3 = System.nanoTime();
            System.out.printf(Locale.ROOT, "phases: read %.1f ms, parse %.1f ms, rank %.1f ms%n", (t1 - t0) / 1e6,
                    (t2 - t1) / 1e6, (t3 - t2) / 1e6);
        }
        long started = System.nanoTime();
        DocsIndex index = DocsIndex.fromDirectory(dir);
        double millis = (System.nanoTime() - started) / 1e6;
        check(index, pages);
        System.out.printf(Locale.ROOT, "first-build-ms %.2f%n", millis);
    }

    private static void measure(String label, Supplier<DocsIndex> build, int pages, int repeats) {
        for (int i = 0; i < 5; i++) {
            check(build.get(), pages);
        }
        double[] millis = new double[repeats];
        for (int i = 0; i < repeats; i++) {
            long started = System.nanoTime();
            DocsIndex index = build.get();
            millis[i] = (System.nanoTime() - started) / 1e6;
            check(index, pages);
        }
        Arrays.sort(millis);
        System.out.printf(Locale.ROOT, "%-20s %d runs after 5 warm-ups: min %.1f ms, median %.1f ms, max %.1f ms%n",
                label, repeats, millis[0], millis[repeats / 2], millis[repeats - 1]);
    }

    private static void check(DocsIndex index, int pages) {
        if (index.size() != pages) {
            throw new IllegalStateException("indexed " + index.size() + " pages, expected " + pages);
        }
    }

    private static String[] vocabulary(Random random, int size) {
        String[] syllables = "ba ke lo mi nu ra se ti vo za pro con dat ser ver net work flow gate tok en sch ema pol icy"
                .split(" ");
        String[] words = new String[size];
        for (int i = 0; i < size; i++) {
            StringBuilder word = new StringBuilder();
            int parts = 2 + random.nextInt(3);
            for (int p = 0; p < parts; p++) {
                word.append(syllables[random.nextInt(syllables.length)]);
            }
            words[i] = word.toString();
        }
        return words;
    }

    /** A Zipf-ish pick: common words often, rare technical words seldom. */
    private static String word(Random random, String[] vocabulary) {
        if (random.nextInt(100) < 45) {
            return COMMON[random.nextInt(COMMON.length)];
        }
        double u = random.nextDouble();
        return vocabulary[(int) Math.min(vocabulary.length - 1, Math.floor(Math.pow(vocabulary.length, u)) - 1)];
    }

    private static String sentence(Random random, String[] vocabulary) {
        int words = 8 + random.nextInt(13);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < words; i++) {
            String word = word(random, vocabulary);
            out.append(i == 0 ? Character.toUpperCase(word.charAt(0)) + word.substring(1) : word);
            if (i == words / 2 && random.nextInt(4) == 0) {
                out.append(" `").append(word(random, vocabulary)).append("()`");
            }
            out.append(i == words - 1 ? ". " : random.nextInt(12) == 0 ? ", " : " ");
        }
        return out.toString();
    }

    private static String page(Random random, String[] vocabulary, int number, int targetBytes) {
        StringBuilder out = new StringBuilder();
        String title = sentence(random, vocabulary).split(" ", 4)[0] + " " + vocabulary[number % vocabulary.length];
        out.append("---\ntitle: \"").append(title).append("\"\ndescription: ")
                .append(sentence(random, vocabulary).strip()).append("\nsidebar:\n  order: ").append(number % 10)
                .append("\n---\n\n");
        out.append(sentence(random, vocabulary)).append(sentence(random, vocabulary)).append("\n\n");
        int section = 0;
        while (out.length() < targetBytes) {
            section++;
            String level = section % 3 == 0 ? "### " : "## ";
            out.append(level).append(sentence(random, vocabulary), 0, 30).append("\n\n");
            for (int p = 0; p < 1 + random.nextInt(3); p++) {
                for (int s = 0; s < 2 + random.nextInt(4); s++) {
                    out.append(sentence(random, vocabulary));
                }
                out.append("\n\n");
            }
            switch (random.nextInt(4)) {
                case 0 -> {
                    out.append("```java\n");
                    for (int l = 0; l < 4 + random.nextInt(6); l++) {
                        out.append("var ").append(word(random, vocabulary)).append(" = gate.call(\"")
                                .append(word(random, vocabulary)).append("\"); // ").append(word(random, vocabulary))
                                .append('\n');
                    }
                    out.append("```\n\n");
                }
                case 1 -> {
                    for (int l = 0; l < 3 + random.nextInt(4); l++) {
                        out.append("- ").append(sentence(random, vocabulary)).append('\n');
                    }
                    out.append('\n');
                }
                case 2 -> {
                    out.append("| option | default | meaning |\n|---|---|---|\n");
                    for (int l = 0; l < 3 + random.nextInt(4); l++) {
                        out.append("| `").append(word(random, vocabulary)).append("` | ").append(random.nextInt(100))
                                .append(" | ").append(sentence(random, vocabulary).strip()).append(" |\n");
                    }
                    out.append('\n');
                }
                default -> out.append("> ").append(sentence(random, vocabulary)).append("\n\n");
            }
        }
        return out.toString();
    }
}
