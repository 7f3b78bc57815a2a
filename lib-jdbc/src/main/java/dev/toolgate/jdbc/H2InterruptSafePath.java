package dev.toolgate.jdbc;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import org.h2.store.fs.FilePath;

/**
 * H2's file system {@value #SCHEME}: H2's own file system under it (a path without a prefix), with its
 * files opened as {@link H2InterruptSafeChannel}s, which an interrupted thread cannot close for the
 * others. The store opens an embedded H2 file URL on it (see {@code JdbcUrls.interruptSafe}).
 *
 * <p>Why not H2's {@code async:}, which the store used before: it reads and writes through an
 * {@code AsynchronousFileChannel}, so every read and write of the file waits for a thread of the JDK's
 * pool, and a commit holds H2's store lock meanwhile (every other commit waits for it). Under load the
 * pool's thread waits for a core like every other runnable thread: the MCP load benchmark on H2 saw
 * that hand-off park a commit for 10 ms and more, with every call of every client queued behind it.
 * Why not H2's {@code retry:}: it clears the interrupt of the thread whose I/O was interrupted, and the
 * gate interrupts on purpose (a tool's timeout), so the interrupt must survive the I/O.
 *
 * <p>Registered with H2 once, when the store first opens an H2 URL ({@link #register}); a host that opens
 * the same file elsewhere in the process uses the same prefix, {@code jdbc:h2:interruptsafe:}.
 */
final class H2InterruptSafePath extends FilePath {

    /** The prefix of the file system's paths. */
    static final String SCHEME = "interruptsafe";

    private static final H2InterruptSafePath PROVIDER = new H2InterruptSafePath(SCHEME + ":", null);

    /** H2's path of the file under this file system; null only for the provider registered with H2. */
    private final FilePath base;

    private H2InterruptSafePath(String name, FilePath base) {
        this.name = name;
        this.base = base;
    }

    /** Registers the file system with H2 (idempotent). */
    static void register() {
        FilePath.register(PROVIDER);
    }

    private static H2InterruptSafePath wrap(FilePath base) {
        return base == null ? null : new H2InterruptSafePath(SCHEME + ":" + base.name, base);
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public FilePath getPath(String path) {
        return new H2InterruptSafePath(path, FilePath.get(path.substring(SCHEME.length() + 1)));
    }

    @Override
    public FilePath unwrap() {
        return base;
    }

    @Override
    public FileChannel open(String mode) throws IOException {
        return new H2InterruptSafeChannel(base, mode);
    }

    @Override
    public long size() {
        return base.size();
    }

    @Override
    public void moveTo(FilePath newName, boolean atomicReplace) {
        base.moveTo(newName instanceof H2InterruptSafePath safe ? safe.base : newName, atomicReplace);
    }

    @Override
    public boolean createFile() {
        return base.createFile();
    }

    @Override
    public boolean exists() {
        return base.exists();
    }

    @Override
    public void delete() {
        base.delete();
    }

    @Override
    public List<FilePath> newDirectoryStream() {
        List<FilePath> wrapped = new ArrayList<>();
        for (FilePath path : base.newDirectoryStream()) {
            wrapped.add(wrap(path));
        }
        return wrapped;
    }

    @Override
    public FilePath toRealPath() {
        return wrap(base.toRealPath());
    }

    @Override
    public FilePath getParent() {
        return wrap(base.getParent());
    }

    @Override
    public boolean isDirectory() {
        return base.isDirectory();
    }

    @Override
    public boolean isRegularFile() {
        return base.isRegularFile();
    }

    @Override
    public boolean isAbsolute() {
        return base.isAbsolute();
    }

    @Override
    public long lastModified() {
        return base.lastModified();
    }

    @Override
    public boolean canWrite() {
        return base.canWrite();
    }

    @Override
    public void createDirectory() {
        base.createDirectory();
    }

    @Override
    public boolean setReadOnly() {
        return base.setReadOnly();
    }
}
