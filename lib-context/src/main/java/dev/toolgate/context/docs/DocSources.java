package dev.toolgate.context.docs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Finds Markdown files in a directory or a classpath folder (directories and jars) and reads them. */
final class DocSources {

    private static final Logger LOG = LoggerFactory.getLogger(DocSources.class);

    /** Files larger than this are skipped whole: a docs page this size is a mistake, not a page. */
    static final long MAX_FILE_BYTES = 16L * 1024 * 1024;

    private DocSources() {
    }

    /** A Markdown file: its path relative to the docs folder ({@code /}-separated) and its text. */
    record Source(String path, String text, String origin) {
    }

    /** The {@code .md} files under {@code root}, sorted by relative path. */
    static List<Source> directory(Path root) {
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("not a directory: " + root);
        }
        TreeMap<String, Path> files = new TreeMap<>();
        List<Path> tooLarge = new ArrayList<>();
        try {
            // a plain visitor, no streams or lambdas: this runs first at start-up, when every new code path costs
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    if (attributes.isRegularFile() && isMarkdown(file.getFileName().toString())) {
                        if (attributes.size() > MAX_FILE_BYTES) {
                            tooLarge.add(file);
                        } else {
                            files.put(relative(root, file), file);
                        }
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list docs under " + root, e);
        }
        for (Path file : tooLarge) {
            LOG.warn("Skipping docs page {}: larger than {} bytes", file, MAX_FILE_BYTES);
        }
        // two readers, this thread and one helper (reading a file is mostly system calls), each taking every
        // other file; no parallel stream: on a cold JVM its set-up costs more than it saves. Path order is kept.
        List<Map.Entry<String, Path>> entries = new ArrayList<>(files.entrySet());
        Source[] read = new Source[entries.size()];
        Reader helper = entries.size() >= 32 ? new Reader(entries, read, 1) : null;
        if (helper != null) {
            helper.start();
        }
        readEvery(entries, read, 0, helper == null ? 1 : 2);
        if (helper != null) {
            try {
                helper.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while reading docs under " + root, e);
            }
            if (helper.failure != null) {
                throw helper.failure;
            }
        }
        List<Source> out = List.of(read);
        return out;
    }

    /** Reads every other file from {@code first} on its own thread. */
    private static final class Reader extends Thread {
        private final List<Map.Entry<String, Path>> entries;
        private final Source[] read;
        private final int first;
        UncheckedIOException failure;

        Reader(List<Map.Entry<String, Path>> entries, Source[] read, int first) {
            super("toolgate-docs-reader");
            setDaemon(true);
            this.entries = entries;
            this.read = read;
            this.first = first;
        }

        @Override
        public void run() {
            try {
                readEvery(entries, read, first, 2);
            } catch (UncheckedIOException e) {
                failure = e;
            }
        }
    }

    /** Reads every {@code step}-th file of {@code entries} from {@code first} into {@code read}. */
    private static void readEvery(List<Map.Entry<String, Path>> entries, Source[] read, int first, int step) {
        for (int i = first; i < entries.size(); i += step) {
            Path file = entries.get(i).getValue();
            try {
                String origin = file.toString();
                read[i] = new Source(entries.get(i).getKey(), decode(Files.readAllBytes(file), origin), origin);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read docs page " + file, e);
            }
        }
    }

    /**
     * The {@code .md} files under the classpath folder {@code folder}, from every directory and jar that has
     * it, in class loader order, each location's files sorted by path.
     */
    static List<Source> classpath(String folder, ClassLoader loader) {
        String normalized = normalizeFolder(folder);
        List<Source> out = new ArrayList<>();
        Enumeration<URL> urls;
        try {
            urls = loader.getResources(normalized);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look up classpath folder " + normalized, e);
        }
        int locations = 0;
        while (urls.hasMoreElements()) {
            URL url = urls.nextElement();
            locations++;
            switch (url.getProtocol()) {
                case "file" -> {
                    Path dir;
                    try {
                        dir = Paths.get(url.toURI());
                    } catch (URISyntaxException | IllegalArgumentException e) {
                        LOG.warn("Skipping docs location {}: not a usable file URL", url);
                        continue;
                    }
                    if (Files.isDirectory(dir)) {
                        out.addAll(directory(dir));
                    }
                }
                case "jar" -> out.addAll(jar(url, normalized));
                default -> LOG.warn("Skipping docs location {}: protocol '{}' is not supported (file: and jar: are)",
                        url, url.getProtocol());
            }
        }
        if (locations == 0) {
            LOG.warn("No classpath folder '{}' found (a jar needs the folder's directory entry '{}/'): no docs from it",
                    normalized, normalized);
        }
        return out;
    }

    private static List<Source> jar(URL url, String folder) {
        TreeMap<String, Source> files = new TreeMap<>();
        try {
            URLConnection connection = url.openConnection();
            if (!(connection instanceof JarURLConnection jarConnection)) {
                LOG.warn("Skipping docs location {}: not a jar connection", url);
                return List.of();
            }
            jarConnection.setUseCaches(false);
            try (JarFile jar = jarConnection.getJarFile()) {
                String prefix = folder.concat("/");
                Enumeration<JarEntry> entries = jar.entries();
                while (entries.hasMoreElements()) {
                    JarEntry entry = entries.nextElement();
                    String name = entry.getName();
                    if (entry.isDirectory() || !name.startsWith(prefix) || !isMarkdown(name)) {
                        continue;
                    }
                    String relative = name.substring(prefix.length());
                    if (relative.isEmpty() || relative.contains("..")) {
                        continue;
                    }
                    if (entry.getSize() > MAX_FILE_BYTES) {
                        LOG.warn("Skipping docs page {}!/{}: larger than {} bytes", jar.getName(), name, MAX_FILE_BYTES);
                        continue;
                    }
                    try (InputStream in = jar.getInputStream(entry)) {
                        byte[] bytes = in.readNBytes((int) MAX_FILE_BYTES + 1);
                        if (bytes.length > MAX_FILE_BYTES) {
                            LOG.warn("Skipping docs page {}!/{}: larger than {} bytes", jar.getName(), name,
                                    MAX_FILE_BYTES);
                            continue;
                        }
                        String origin = jar.getName().concat("!/").concat(name);
                        String text = decode(bytes, origin);
                        if (text != null) {
                            files.put(relative, new Source(relative, text, origin));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read docs from " + url, e);
        }
        return new ArrayList<>(files.values());
    }

    private static String decode(byte[] bytes, String origin) {
        // the fast path: the JDK's own decoding replaces malformed input with U+FFFD, so a result without one
        // was valid UTF-8 (and is what the strict decoder gives); a page that has one is checked strictly
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.indexOf('\uFFFD') < 0) {
            return text;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            LOG.warn("Docs page {} is not valid UTF-8; reading it with replacement characters", origin);
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    static String normalizeFolder(String folder) {
        String f = folder == null ? "" : folder.replace('\\', '/').strip();
        while (f.startsWith("/")) {
            f = f.substring(1);
        }
        while (f.endsWith("/")) {
            f = f.substring(0, f.length() - 1);
        }
        if (f.isEmpty()) {
            throw new IllegalArgumentException("a classpath docs folder must be named, such as \"docs\"");
        }
        return f;
    }

    private static boolean isMarkdown(String name) {
        return name.toLowerCase(Locale.ROOT).endsWith(".md");
    }

    private static String relative(Path root, Path file) {
        String relative = root.relativize(file).toString();
        String separator = file.getFileSystem().getSeparator();
        return separator.equals("/") ? relative : relative.replace(separator, "/");
    }
}
