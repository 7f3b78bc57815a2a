package dev.toolgate.context.docs;

import dev.toolgate.context.docs.DocsIndex.Postings;
import dev.toolgate.context.docs.DocsIndex.Unit;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;

/** Writes the prebuilt index file of {@link DocsIndex#writeTo}, in the format {@link Prebuilt} describes. */
final class PrebuiltWriter {

    private PrebuiltWriter() {
    }

    /** Writes {@code index} to {@code out}; the same index always gives the same bytes. */
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
        ByteArrayOutputStream header = new ByteArrayOutputStream(Prebuilt.HEADER_BYTES);
        DataOutputStream head = new DataOutputStream(header);
        head.write(Prebuilt.MAGIC);
        head.writeInt(Prebuilt.VERSION);
        head.write(Prebuilt.digest(paths, hashes));
        head.writeInt(payload.length);
        head.flush();
        CRC32 crc = new CRC32();
        crc.update(header.toByteArray(), Prebuilt.MAGIC.length, Prebuilt.HEADER_BYTES - Prebuilt.MAGIC.length);
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
}
