package dev.toolgate.jdbc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import org.h2.engine.ConnectionInfo;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.h2.store.fs.FilePath;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before an embedded H2 file database is opened: if its last process did not close it (it was killed),
 * finds the newest complete commit in the file by reading every chunk, and, where H2's own open would
 * go back to an older one, makes the file point at the newest before H2 opens it.
 *
 * <p>Why it is needed: H2 (2.5.252) finds the newest chunk after an unclean shutdown from its file
 * header, then the chain of each chunk's predicted next position, and the chunk at the end of the file
 * ({@code RandomAccessStore.readStoreHeader}); and it takes the newest of those whose chunks are all
 * there. It rewrites the header when a chunk is written away from the end of the file and not where
 * its predecessor predicted ({@code shouldWriteStoreHeader}), but the header it writes then names the
 * predecessor ({@code writeStoreHeader} reads {@code lastChunk}, which {@code FileStore.storeBuffer} sets
 * to the new chunk only after {@code writeChunk}), whose predicted next position is the wrong one. So a
 * chunk written into a hole of the file, and those chained after it, are found by none of the three,
 * and a process killed then loses its last commits on the next open, silently: the older chunk opens
 * fine. Holes are reused once a dead chunk is older than the retention time, at once where the
 * compaction moved chunks away; a short retention time makes this frequent (H2KillTest at 0, with H2's
 * open alone, lost an applied call within 1 to 17 kills), H2's 45 s rare (none in 40 kills), and by
 * H2's code neither impossible. H2's recovery mode
 * ({@code MVStore.Builder.recoveryMode()}, the one H2's {@code Recover} tool uses) reads every block of
 * the file for chunks instead and takes the newest one whose chunks are all there; H2's database URL
 * has no setting for it.
 *
 * <p>What it does: when the file exists and its header does not say it was closed cleanly, it opens
 * the file read-only twice, as H2 would and in recovery mode, and compares their versions; only if
 * recovery finds a newer one does it open the file in recovery mode for writing and close it, which
 * writes a header naming the newest chunk (and a clean-shutdown mark), and logs a warning saying so.
 * A file another process (or this one) has open is locked and left alone; so is an encrypted one. The
 * full read costs one pass over the file, and only after an unclean shutdown.
 */
final class H2Recovery {

    private static final Logger LOG = LoggerFactory.getLogger(H2Recovery.class);
    private static final int BLOCK_SIZE = 4096;

    /** What {@link #beforeOpen} found. */
    enum Outcome {
        /** Not an embedded, unencrypted H2 file database, or no file yet. */
        NOT_A_FILE,
        /** The file was closed cleanly: nothing to do. */
        CLEAN,
        /** Another process, or this one, has the file open. */
        IN_USE,
        /** The last shutdown was not clean, and H2's own open finds the newest commit. */
        H2_FINDS_NEWEST,
        /** The last shutdown was not clean, and the file now points at newer commits than H2 would have found. */
        RECOVERED,
        /** The file could not be read; H2's own open will say why. */
        FAILED
    }

    private H2Recovery() {
    }

    /** Runs the check for the H2 database {@code url} before it is opened; never throws. */
    static Outcome beforeOpen(String url) {
        String fileName;
        try {
            ConnectionInfo info = new ConnectionInfo(url, new Properties(), null, null);
            if (!info.isPersistent() || info.isRemote() || info.getProperty("CIPHER", null) != null) {
                return Outcome.NOT_A_FILE;
            }
            fileName = info.getName() + ".mv.db";
        } catch (RuntimeException e) {
            return Outcome.NOT_A_FILE; // not a URL H2 reads as a file; H2's own open will say why
        }
        try {
            return check(fileName);
        } catch (RuntimeException | IOException e) {
            LOG.warn("Cannot check the H2 file {} for commits a crash hid from H2 ({}); opening it as it is", fileName,
                    e.toString());
            return Outcome.FAILED;
        }
    }

    private static Outcome check(String fileName) throws IOException {
        FilePath path = FilePath.get(fileName);
        if (!path.exists() || path.size() < 2L * BLOCK_SIZE) {
            return Outcome.NOT_A_FILE;
        }
        if (closedCleanly(path)) {
            return Outcome.CLEAN;
        }
        long asH2Opens;
        long newest;
        try {
            asH2Opens = version(new MVStore.Builder().fileName(fileName).readOnly());
            newest = version(new MVStore.Builder().fileName(fileName).readOnly().recoveryMode());
        } catch (MVStoreException e) {
            if (e.getErrorCode() == DataUtils.ERROR_FILE_LOCKED) {
                LOG.debug("H2 file {} is open elsewhere; not checked", fileName);
                return Outcome.IN_USE;
            }
            throw e;
        }
        if (newest <= asH2Opens) {
            LOG.debug("H2 file {} was not closed cleanly; H2 finds its newest version {}", fileName, asH2Opens);
            return Outcome.H2_FINDS_NEWEST;
        }
        MVStore store = new MVStore.Builder().fileName(fileName).recoveryMode().autoCommitDisabled().open();
        long recovered = store.getCurrentVersion();
        store.close(); // writes the header, naming the newest chunk, with a clean-shutdown mark
        LOG.warn("H2 file {} was not closed cleanly (its process was killed?): H2 would have opened it at version {},"
                + " losing the commits after it; the file now opens at its newest complete version {}", fileName,
                asH2Opens, recovered);
        return Outcome.RECOVERED;
    }

    private static long version(MVStore.Builder builder) {
        MVStore store = builder.autoCommitDisabled().open();
        try {
            return store.getCurrentVersion();
        } finally {
            store.closeImmediately();
        }
    }

    /** Whether both header blocks are intact, agree, and carry H2's clean-shutdown mark. */
    private static boolean closedCleanly(FilePath path) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(2 * BLOCK_SIZE);
        try (FileChannel channel = path.open("r")) {
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, buffer.position()) < 0) {
                    return false;
                }
            }
        }
        Map<String, String> first = header(buffer.array(), 0);
        Map<String, String> second = header(buffer.array(), BLOCK_SIZE);
        return first != null && first.equals(second) && first.containsKey("clean");
    }

    /** A header block's fields if its checksum holds (as H2's {@code DataUtils.parseChecksummedMap}), else null. */
    static Map<String, String> header(byte[] bytes, int offset) {
        int end = offset;
        while (end < offset + BLOCK_SIZE && bytes[end] != '\n' && bytes[end] != 0) {
            end++;
        }
        String line = new String(bytes, offset, end - offset, StandardCharsets.ISO_8859_1);
        int checksumAt = line.lastIndexOf(",fletcher:");
        if (checksumAt < 0) {
            return null;
        }
        try {
            int checksum = (int) Long.parseLong(line.substring(checksumAt + ",fletcher:".length()).trim(), 16);
            if (checksum != DataUtils.getFletcher32(bytes, offset, checksumAt)) {
                return null;
            }
            return DataUtils.parseMap(line.substring(0, checksumAt));
        } catch (RuntimeException e) {
            return null;
        }
    }
}
