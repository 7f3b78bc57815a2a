package dev.toolgate.jdbc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import org.h2.store.fs.FileBase;
import org.h2.store.fs.FilePath;

/**
 * A file of {@link H2InterruptSafePath}: H2's own channel for the file, read and written by the calling
 * thread (no hand-off), made safe against interrupts in two ways.
 *
 * <ul>
 *   <li>A thread whose interrupt is already set when it reaches the file (the gate interrupts a tool past
 *       its timeout, and the same thread then records the failure) would make the JDK close the channel
 *       at once, for every thread. Its interrupt is cleared for the I/O and set again after it.</li>
 *   <li>A thread interrupted in the middle of its I/O still closes the channel
 *       ({@link ClosedByInterruptException}); so does that I/O fail for the other threads using the channel
 *       meanwhile ({@code AsynchronousCloseException}). Each of them reopens the file once (the first
 *       one to get there; the others use its channel), takes the file lock again if H2 held one, and
 *       repeats its operation from the start: a positional read or write again at the same position,
 *       with its buffer back where it was, so a write cut halfway is written whole. The interrupted
 *       thread gets its interrupt back afterwards.</li>
 * </ul>
 *
 * <p>When H2 closes the file itself, nothing is reopened. An operation that fails 20 times in a row
 * fails with its exception, as any other {@code IOException} does at once.
 */
final class H2InterruptSafeChannel extends FileBase {

    private static final int ATTEMPTS = 20;

    /** One read or write of the current channel. */
    @FunctionalInterface
    private interface Io<T> {
        T on(FileChannel channel) throws IOException;
    }

    private final FilePath base;
    private final String mode;
    private volatile FileChannel channel;
    private volatile boolean closedByH2;
    private Relockable lock;
    private int reopens;
    private long position;

    H2InterruptSafeChannel(FilePath base, String mode) throws IOException {
        this.base = base;
        this.mode = mode;
        this.channel = base.open(mode);
    }

    private <T> T io(Io<T> operation, ByteBuffer buffer) throws IOException {
        // an interrupt set before the I/O would close the channel for everyone: keep it for afterwards
        boolean interrupted = Thread.interrupted();
        int start = buffer == null ? 0 : buffer.position();
        try {
            for (int attempt = 1; ; attempt++) {
                FileChannel current = channel;
                try {
                    return operation.on(current);
                } catch (ClosedChannelException e) {
                    if (closedByH2 || attempt >= ATTEMPTS) {
                        throw e;
                    }
                    interrupted |= e instanceof ClosedByInterruptException | Thread.interrupted();
                    reopen(current);
                    if (buffer != null) {
                        buffer.position(start);
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Opens the file again unless another thread already did since {@code closed} failed. */
    private synchronized void reopen(FileChannel closed) throws IOException {
        if (channel != closed || closedByH2) {
            return;
        }
        FileChannel fresh = base.open(mode);
        if (lock != null) {
            FileLock again = fresh.tryLock(lock.position(), lock.size(), lock.isShared());
            if (again == null) {
                fresh.close();
                throw new IOException("H2 file " + base + " reopened after an interrupt, but its lock is now held"
                        + " by another process");
            }
            lock.held = again;
        }
        channel = fresh;
        reopens++;
    }

    /** How many times the file was opened again after an interrupt closed it (for tests). */
    synchronized int reopened() {
        return reopens;
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return io(c -> c.read(dst, position), dst);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        return io(c -> c.write(src, position), src);
    }

    // the sequential operations keep their own position, which a reopened channel would have lost

    @Override
    public synchronized int read(ByteBuffer dst) throws IOException {
        long at = position;
        int read = io(c -> c.read(dst, at), dst);
        if (read > 0) {
            position += read;
        }
        return read;
    }

    @Override
    public synchronized int write(ByteBuffer src) throws IOException {
        long at = position;
        int written = io(c -> c.write(src, at), src);
        position += written;
        return written;
    }

    @Override
    public synchronized long position() {
        return position;
    }

    @Override
    public synchronized FileChannel position(long newPosition) {
        if (newPosition < 0) {
            throw new IllegalArgumentException("negative position " + newPosition);
        }
        position = newPosition;
        return this;
    }

    @Override
    public long size() throws IOException {
        return io(FileChannel::size, null);
    }

    @Override
    public synchronized FileChannel truncate(long size) throws IOException {
        io(c -> c.truncate(size), null);
        position = Math.min(position, size);
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        io(c -> {
            c.force(metaData);
            return null;
        }, null);
    }

    @Override
    public synchronized FileLock tryLock(long position, long size, boolean shared) throws IOException {
        FileLock held = io(c -> c.tryLock(position, size, shared), null);
        if (held == null) {
            return null;
        }
        lock = new Relockable(this, held);
        return lock;
    }

    @Override
    protected void implCloseChannel() throws IOException {
        closedByH2 = true;
        synchronized (this) {
            channel.close();
        }
    }

    @Override
    public String toString() {
        return H2InterruptSafePath.SCHEME + ":" + base;
    }

    /** H2's lock on the file, taken again on the reopened channel after an interrupt. */
    private static final class Relockable extends FileLock {

        private volatile FileLock held;

        Relockable(FileChannel channel, FileLock held) {
            super(channel, held.position(), held.size(), held.isShared());
            this.held = held;
        }

        @Override
        public boolean isValid() {
            return held.isValid();
        }

        @Override
        public void release() throws IOException {
            held.release();
        }
    }
}
