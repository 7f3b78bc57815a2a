package dev.toolgate.context.docs;

import dev.toolgate.context.docs.DocsIndex.Postings;
import dev.toolgate.context.docs.DocsIndex.Unit;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;

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
    private static final int HEADER_BYTES = MAGIC.length + 4 + DIGEST_BYTES + 4;

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

    static void write(DocsIndex index, OutputStream out) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 20);
        DataOutputStream data = new DataOutputStream(bytes);
        String[] paths = index.sourcePaths();
        byte[][] hashes = index.sourceHashes();
        data.writeInt(paths.length);
        for (int i = 0; i < paths.length; i++) {
            string(data, paths[i]);
            data.write(hashes[i]);
        }
        data.writeInt(index.maxPageBytes());
        List<DocPage> pages = index.pages();
        data.writeInt(pages.size());
        Unit[] units = index.units();
        int u = 0;
        for (int p = 0; p < pages.size(); p++) {
            DocPage page = pages.get(p);
            String body = index.body(p);
            if (!body.startsWith(page.content())) {
                throw new IllegalStateException("page " + page.slug() + ": its content is not a prefix of its body");
            }
            string(data, page.slug());
            string(data, page.section());
            string(data, page.title());
            string(data, page.description());
            data.writeInt(page.content().length());
            data.writeByte(page.truncated() ? 1 : 0);
            List<Markdown.Section> sections = index.sectionsOf(p);
            data.writeInt(sections.size());
            for (Markdown.Section section : sections) {
                Unit unit = units[u++];
                if (unit.page() != p || unit.start() != section.start() || unit.end() != section.end()) {
                    throw new IllegalStateException("page " + page.slug() + ": its sections and units differ");
                }
                string(data, section.heading());
                string(data, section.parent());
                data.writeByte(section.level());
                data.writeInt(section.start());
                data.writeInt(section.end());
                data.writeInt(unit.bodyStart());
            }
        }
        if (u != units.length) {
            throw new IllegalStateException("the index has " + units.length + " units for " + u + " sections");
        }
        for (int p = 0; p < pages.size(); p++) {
            string(data, index.body(p));
        }
        TreeMap<String, Postings> sorted = new TreeMap<>(index.postings());
        data.writeInt(sorted.size());
        StringBuilder terms = new StringBuilder();
        long total = 0;
        for (Map.Entry<String, Postings> entry : sorted.entrySet()) {
            terms.append(entry.getKey()).append('\n');
            total += entry.getValue().units().length;
        }
        string(data, terms.toString());
        for (Postings list : sorted.values()) {
            data.writeInt(list.units().length);
        }
        data.writeInt(Math.toIntExact(total));
        for (Postings list : sorted.values()) {
            for (int unit : list.units()) {
                data.writeInt(unit);
            }
        }
        for (Postings list : sorted.values()) {
            for (float tf : list.tf()) {
                data.writeFloat(tf);
            }
        }
        for (Postings list : sorted.values()) {
            for (boolean inHeading : list.inHeading()) {
                data.writeByte(inHeading ? 1 : 0);
            }
        }
        data.flush();
        byte[] payload = bytes.toByteArray();
        ByteArrayOutputStream header = new ByteArrayOutputStream(HEADER_BYTES);
        DataOutputStream head = new DataOutputStream(header);
        head.write(MAGIC);
        head.writeInt(VERSION);
        head.write(digest(paths, hashes));
        head.writeInt(payload.length);
        head.flush();
        CRC32 crc = new CRC32();
        crc.update(header.toByteArray(), MAGIC.length, HEADER_BYTES - MAGIC.length);
        crc.update(payload);
        DataOutputStream file = new DataOutputStream(out);
        file.write(header.toByteArray());
        file.write(payload);
        file.writeLong(crc.getValue());
        file.flush();
    }

    private static void string(DataOutputStream data, String text) throws IOException {
        if (text == null) {
            data.writeInt(-1);
            return;
        }
        boolean latin1 = true;
        for (int i = 0; i < text.length() && latin1; i++) {
            latin1 = text.charAt(i) <= 0xFF;
        }
        // Latin-1 loads as a plain copy; UTF-8 decoding runs interpreted on a cold JVM
        byte[] bytes = text.getBytes(latin1 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
        data.writeInt(bytes.length);
        data.writeByte(latin1 ? 0 : 1);
        data.write(bytes);
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
            Input input = new Input(in, payloadLength);
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

    /**
     * The payload, read through one buffer: every byte consumed goes into the CRC when the buffer is refilled or
     * finished, and nothing past the announced payload is read.
     */
    private static final class Input {
        private final InputStream in;
        private final byte[] buffer = new byte[64 * 1024];
        private final ByteBuffer view = ByteBuffer.wrap(buffer);
        final CRC32 crc = new CRC32();
        private int position;
        private int limit;
        private long unread;

        Input(InputStream in, int payloadLength) {
            this.in = in;
            this.unread = payloadLength;
        }

        /** Payload bytes not consumed yet. */
        long remaining() {
            return unread + (limit - position);
        }

        /** Makes {@code n} (at most the buffer's size) bytes available. */
        private void need(int n) throws IOException {
            if (limit - position >= n) {
                return;
            }
            if (remaining() < n) {
                throw new IllegalArgumentException("prebuilt docs index truncated: its content ends early");
            }
            crc.update(buffer, 0, position);
            int kept = limit - position;
            System.arraycopy(buffer, position, buffer, 0, kept);
            position = 0;
            limit = kept;
            int wanted = (int) Math.min(buffer.length - kept, unread);
            int read = in.readNBytes(buffer, kept, wanted);
            unread -= read;
            limit += read;
            if (read < wanted || limit < n) {
                throw new IllegalArgumentException("prebuilt docs index truncated: the header announces more "
                        + "payload bytes than the file holds");
            }
        }

        /** The CRC of everything consumed. */
        long finish() {
            crc.update(buffer, 0, position);
            crc.update(buffer, position, limit - position);
            position = limit;
            return crc.getValue();
        }

        int getInt() throws IOException {
            need(4);
            int value = view.getInt(position);
            position += 4;
            return value;
        }

        byte get() throws IOException {
            need(1);
            return buffer[position++];
        }

        void get(byte[] into) throws IOException {
            get(into, into.length);
        }

        /** Reads {@code count} bytes into the start of {@code into}. */
        void get(byte[] into, int count) throws IOException {
            int done = 0;
            while (done < count) {
                need(1);
                int n = Math.min(count - done, limit - position);
                System.arraycopy(buffer, position, into, done, n);
                position += n;
                done += n;
            }
        }

        void getInts(int[] into) throws IOException {
            int done = 0;
            while (done < into.length) {
                need(4);
                int n = Math.min(into.length - done, (limit - position) / 4);
                view.position(position);
                view.asIntBuffer().get(into, done, n);
                position += 4 * n;
                done += n;
            }
        }

        void getFloats(float[] into) throws IOException {
            int done = 0;
            while (done < into.length) {
                need(4);
                int n = Math.min(into.length - done, (limit - position) / 4);
                view.position(position);
                view.asFloatBuffer().get(into, done, n);
                position += 4 * n;
                done += n;
            }
        }

        String string(boolean nullable) throws IOException {
            int length = getInt();
            if (length == -1 && nullable) {
                return null;
            }
            if (length < 0 || length >= remaining()) {
                throw corrupt("a string of " + length + " bytes with " + remaining() + " left");
            }
            byte encoding = get();
            if (encoding != 0 && encoding != 1) {
                throw corrupt("a string's encoding is " + encoding);
            }
            Charset charset = encoding == 0 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8;
            if (length <= buffer.length) {
                need(length);
                String text = new String(buffer, position, length, charset);
                position += length;
                return text;
            }
            byte[] bytes = new byte[length];
            get(bytes);
            return new String(bytes, charset);
        }

        boolean flag() throws IOException {
            byte b = get();
            if (b != 0 && b != 1) {
                throw corrupt("a flag is " + b);
            }
            return b == 1;
        }

        /** A count of items each at least {@code minBytes} long: never more than the bytes left could hold. */
        int count(int minBytes, String what) throws IOException {
            int count = getInt();
            if (count < 0 || (long) count * minBytes > remaining()) {
                throw corrupt("it announces " + count + " " + what + ", more than its " + remaining()
                        + " remaining bytes hold");
            }
            return count;
        }
    }

    private static DocsIndex payload(Input input) throws IOException {
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

    private static IllegalArgumentException corrupt(String what) {
        return new IllegalArgumentException("prebuilt docs index corrupt: " + what);
    }
}
