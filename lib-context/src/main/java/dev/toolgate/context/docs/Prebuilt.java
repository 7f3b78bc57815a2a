package dev.toolgate.context.docs;

import dev.toolgate.context.docs.DocsIndex.Postings;
import dev.toolgate.context.docs.DocsIndex.Unit;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The prebuilt index file of {@link DocsIndex#writeTo} and {@link DocsIndex#readFrom}. Big-endian throughout:
 *
 * <pre>
 * magic "TGDOCIDX" (8 bytes), int format version, 32 bytes SHA-256 of the sources, int payload length,
 * payload, long CRC-32 of version, digest, length and payload
 *
 * payload: int sources, each (string path, 32 bytes SHA-256 of its UTF-8 text)
 *          int maxPageBytes, int pages, each (string slug, section, title, description or null,
 *              int content length (a prefix of the body), byte truncated, int sections, each (string heading
 *              or null, parent or null, byte level, int start, end, body start))
 *          each page's body (string)
 *          int terms, string of the terms sorted, each followed by '\n'
 *          int[terms] postings per term, int total postings, int[total] units, float[total] weights,
 *          byte[total] in heading (0 or 1)
 * </pre>
 *
 * A string is an int count of bytes ({@code -1} for null, then nothing more), a byte 0 for Latin-1 or 1 for
 * UTF-8, and the bytes. The CRC-32 covers everything after the magic. Loading decodes strings and
 * copies arrays: nothing is tokenized or parsed.
 */
final class Prebuilt {

    static final byte[] MAGIC = "TGDOCIDX".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION = 1;
    static final int DIGEST_BYTES = 32;
    static final int HEADER_BYTES = MAGIC.length + 4 + DIGEST_BYTES + 4;

    private Prebuilt() {
    }

    /** The SHA-256 of one page as read: its text's UTF-8 bytes. */
    static byte[] sha256(String text) {
        return sha256().digest(text.getBytes(StandardCharsets.UTF_8));
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The digest of all sources: each path's UTF-8 bytes, a 0 byte and its page's SHA-256, in path order. */
    static byte[] digest(String[] paths, byte[][] hashes) {
        MessageDigest digest = sha256();
        for (int i = 0; i < paths.length; i++) {
            digest.update(paths[i].getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0);
            digest.update(hashes[i]);
        }
        return digest.digest();
    }

    /**
     * Reads a whole file; every inconsistency is an {@link IllegalArgumentException}. The file streams through a
     * small buffer into the index's own arrays: on a cold JVM fresh memory is dear, so nothing is held twice.
     */
    static DocsIndex read(InputStream in) {
        try {
            byte[] header = in.readNBytes(HEADER_BYTES);
            if (header.length < MAGIC.length || !Arrays.equals(header, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
                throw new IllegalArgumentException("not a prebuilt docs index: the file does not start with TGDOCIDX");
            }
            if (header.length < HEADER_BYTES) {
                throw new IllegalArgumentException("prebuilt docs index truncated: " + header.length
                        + " bytes, no full header");
            }
            ByteBuffer head = ByteBuffer.wrap(header);
            int version = head.getInt(MAGIC.length);
            if (version != VERSION) {
                throw new IllegalArgumentException("prebuilt docs index has format version " + version
                        + ", this library reads version " + VERSION + ": rebuild it with DocsIndexTool");
            }
            int payloadLength = head.getInt(HEADER_BYTES - 4);
            if (payloadLength < 0) {
                throw corrupt("its header announces " + payloadLength + " payload bytes");
            }
            PrebuiltInput input = new PrebuiltInput(in, payloadLength);
            input.crc.update(header, MAGIC.length, HEADER_BYTES - MAGIC.length);
            DocsIndex index;
            try {
                index = payload(input);
            } catch (BufferUnderflowException | IndexOutOfBoundsException | NegativeArraySizeException e) {
                throw corrupt("its content is inconsistent (" + e + ")");
            }
            if (input.remaining() != 0) {
                throw corrupt(input.remaining() + " payload bytes left over after the postings");
            }
            long computed = input.finish();
            byte[] trailer = in.readNBytes(8);
            if (trailer.length < 8) {
                throw new IllegalArgumentException("prebuilt docs index truncated: its checksum is missing");
            }
            if (ByteBuffer.wrap(trailer).getLong() != computed) {
                throw corrupt("its checksum does not match its content");
            }
            if (in.read() >= 0) {
                throw corrupt("it has bytes after its checksum");
            }
            return index;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the prebuilt docs index", e);
        }
    }

    private static DocsIndex payload(PrebuiltInput input) throws IOException {
        int sourceCount = input.count(4 + DIGEST_BYTES, "sources");
        String[] paths = new String[sourceCount];
        byte[][] hashes = new byte[sourceCount][DIGEST_BYTES];
        for (int i = 0; i < sourceCount; i++) {
            paths[i] = input.string(false);
            input.get(hashes[i]);
            if (i > 0 && paths[i - 1].compareTo(paths[i]) >= 0) {
                throw corrupt("its source paths are not sorted");
            }
        }
        int maxPageBytes = input.getInt();
        if (maxPageBytes < DocsIndex.MIN_MAX_PAGE_BYTES) {
            throw corrupt("page budget " + maxPageBytes);
        }
        int pageCount = input.count(4 * 5 + 1, "pages");
        String[] slugs = new String[pageCount];
        String[] sectionNames = new String[pageCount];
        String[] titles = new String[pageCount];
        String[] descriptions = new String[pageCount];
        int[] contentLengths = new int[pageCount];
        boolean[] truncated = new boolean[pageCount];
        List<List<Markdown.Section>> pageSections = new ArrayList<>(pageCount);
        List<Unit> units = new ArrayList<>();
        for (int p = 0; p < pageCount; p++) {
            slugs[p] = input.string(false);
            if (p > 0 && slugs[p - 1].compareTo(slugs[p]) >= 0) {
                throw corrupt("its pages are not sorted by slug");
            }
            sectionNames[p] = input.string(false);
            titles[p] = input.string(false);
            descriptions[p] = input.string(true);
            contentLengths[p] = input.getInt();
            truncated[p] = input.flag();
            int sectionCount = input.count(4 * 5 + 1, "sections");
            Markdown.Section[] sections = new Markdown.Section[sectionCount];
            for (int s = 0; s < sectionCount; s++) {
                String heading = input.string(true);
                String parent = input.string(true);
                int level = input.get();
                int start = input.getInt();
                int end = input.getInt();
                int bodyStart = input.getInt();
                sections[s] = new Markdown.Section(heading, parent, level, start, end);
                units.add(new Unit(p, heading, start, end, bodyStart));
            }
            pageSections.add(List.of(sections));
        }
        String[] bodies = new String[pageCount];
        List<DocPage> pages = new ArrayList<>(pageCount);
        for (int p = 0; p < pageCount; p++) {
            String body = input.string(false);
            bodies[p] = body;
            if (contentLengths[p] < 0 || contentLengths[p] > body.length()) {
                throw corrupt("page " + slugs[p] + " has a content longer than its body");
            }
            List<Markdown.Section> sections = pageSections.get(p);
            List<String> headings = new ArrayList<>(sections.size());
            int previousEnd = 0;
            for (Markdown.Section section : sections) {
                if (section.start() < previousEnd || section.end() < section.start() || section.end() > body.length()) {
                    throw corrupt("page " + slugs[p] + " has a section outside its body");
                }
                previousEnd = section.end();
                if (section.heading() != null) {
                    headings.add(section.heading());
                }
            }
            String content = contentLengths[p] == body.length() ? body : body.substring(0, contentLengths[p]);
            pages.add(new DocPage(slugs[p], sectionNames[p], titles[p], descriptions[p], headings, content, truncated[p]));
        }
        for (Unit unit : units) {
            if (unit.bodyStart() < unit.start() || unit.bodyStart() > unit.end()) {
                throw corrupt("a section's body starts outside it");
            }
        }
        int vocabulary = input.count(4, "terms");
        String joined = input.string(false);
        int[] sizes = new int[vocabulary];
        input.getInts(sizes);
        int total = input.count(9, "postings");
        int unitCount = units.size();
        long sum = 0;
        for (int size : sizes) {
            if (size < 1) {
                throw corrupt("a term has no postings");
            }
            sum += size;
        }
        if (sum != total) {
            throw corrupt("its term table does not match its postings");
        }
        int[][] termUnits = new int[vocabulary][];
        for (int t = 0; t < vocabulary; t++) {
            termUnits[t] = new int[sizes[t]];
            input.getInts(termUnits[t]);
            ascending(termUnits[t], unitCount);
        }
        float[][] termTf = new float[vocabulary][];
        for (int t = 0; t < vocabulary; t++) {
            termTf[t] = new float[sizes[t]];
            input.getFloats(termTf[t]);
        }
        Map<String, Postings> postings = new HashMap<>(vocabulary * 2);
        byte[] flags = new byte[1024];
        int from = 0;
        for (int t = 0; t < vocabulary; t++) {
            int size = sizes[t];
            if (flags.length < size) {
                flags = new byte[size];
            }
            input.get(flags, size);
            boolean[] inHeading = booleans(flags, size);
            int newline = joined.indexOf('\n', from);
            if (newline < 0) {
                throw corrupt("its term table does not match its postings");
            }
            postings.put(joined.substring(from, newline), new Postings(termUnits[t], termTf[t], inHeading));
            from = newline + 1;
        }
        if (from != joined.length()) {
            throw corrupt("its term table does not match its postings");
        }
        return DocsIndex.loaded(maxPageBytes, pages, bodies, pageSections, units.toArray(new Unit[0]), postings, paths,
                hashes);
    }

    /** A term's units ascend and name sections of the index. */
    private static void ascending(int[] units, int unitCount) {
        int previous = -1;
        for (int unit : units) {
            if (unit <= previous || unit >= unitCount) {
                throw corrupt("a posting names no section of the index");
            }
            previous = unit;
        }
    }

    private static boolean[] booleans(byte[] bytes, int n) {
        boolean[] out = new boolean[n];
        for (int i = 0; i < n; i++) {
            byte b = bytes[i];
            if (b != 0) {
                if (b != 1) {
                    throw corrupt("a flag is " + b);
                }
                out[i] = true;
            }
        }
        return out;
    }

    static IllegalArgumentException corrupt(String what) {
        return new IllegalArgumentException("prebuilt docs index corrupt: " + what);
    }
}
