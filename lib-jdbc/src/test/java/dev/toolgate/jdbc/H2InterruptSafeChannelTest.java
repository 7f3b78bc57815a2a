package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.h2.store.fs.FilePath;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file system the store opens an embedded H2 file on ({@link H2InterruptSafePath}), at the level of
 * the file: what an interrupt may do to the channel of every thread, and what it must not.
 */
class H2InterruptSafeChannelTest {

    private static final int BLOCK = 1 << 20;
    private static final int BLOCKS = 8;

    @TempDir
    Path dir;

    @BeforeAll
    static void register() {
        H2InterruptSafePath.register();
    }

    private H2InterruptSafeChannel open(String name) throws Exception {
        FileChannel channel = FilePath.get(H2InterruptSafePath.SCHEME + ":" + dir.resolve(name).toAbsolutePath()).open("rw");
        assertThat(channel).isInstanceOf(H2InterruptSafeChannel.class);
        return (H2InterruptSafeChannel) channel;
    }

    @Test
    void aThreadWhoseInterruptIsSetReadsAndWritesAndKeepsItsInterruptWithoutClosingTheFile() throws Exception {
        try (H2InterruptSafeChannel file = open("preset")) {
            Thread.currentThread().interrupt();
            try {
                assertThat(file.write(ByteBuffer.wrap("hello".getBytes()), 0)).isEqualTo(5);
                ByteBuffer read = ByteBuffer.allocate(5);
                assertThat(file.read(read, 0)).isEqualTo(5);
                assertThat(new String(read.array())).isEqualTo("hello");
                assertThat(file.size()).isEqualTo(5);
                file.force(false);
                assertThat(Thread.currentThread().isInterrupted()).as("the interrupt, still set for the caller's code").isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThat(file.reopened()).as("a set interrupt must not close the file at all").isZero();
        }
    }

    @Test
    void writesInterruptedHalfwayAreWrittenWholeAndTheOtherThreadsNeverFail() throws Exception {
        try (H2InterruptSafeChannel file = open("hammered")) {
            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            AtomicLong interruptsKept = new AtomicLong();
            AtomicLong written = new AtomicLong();
            // the victim writes 1 MB blocks, each filled with its own number, at the block's position
            Thread victim = new Thread(() -> {
                for (long n = 0; !stop.get(); n++) {
                    int block = (int) (n % BLOCKS);
                    byte[] bytes = new byte[BLOCK];
                    Arrays.fill(bytes, (byte) (n % 100 + 1));
                    try {
                        ByteBuffer buffer = ByteBuffer.wrap(bytes);
                        while (buffer.hasRemaining()) {
                            file.write(buffer, (long) block * BLOCK + buffer.position());
                        }
                        written.incrementAndGet();
                        if (Thread.interrupted()) {
                            interruptsKept.incrementAndGet();
                        }
                        verifyBlock(file, block, bytes[0]);
                    } catch (Throwable e) {
                        failures.add(e);
                        return;
                    }
                }
            }, "h2-channel-victim");
            // others read the first block over and over, never interrupted
            List<Thread> readers = new ArrayList<>();
            AtomicLong reads = new AtomicLong();
            for (int r = 0; r < 2; r++) {
                Thread reader = new Thread(() -> {
                    ByteBuffer buffer = ByteBuffer.allocate(4096);
                    while (!stop.get()) {
                        try {
                            buffer.clear();
                            file.read(buffer, 0);
                            reads.incrementAndGet();
                        } catch (Throwable e) {
                            failures.add(e);
                            return;
                        }
                    }
                }, "h2-channel-reader-" + r);
                readers.add(reader);
            }
            victim.start();
            readers.forEach(Thread::start);
            long deadline = System.nanoTime() + 30_000_000_000L;
            int interrupts = 0;
            while ((file.reopened() < 20 || written.get() < 50) && System.nanoTime() < deadline && failures.isEmpty()) {
                victim.interrupt();
                interrupts++;
                Thread.sleep(0, 300_000);
            }
            stop.set(true);
            victim.join(10_000);
            for (Thread reader : readers) {
                reader.join(10_000);
            }

            assertThat(failures).as("the victim's and the readers' I/O").isEmpty();
            assertThat(interrupts).isGreaterThan(20);
            assertThat(file.reopened()).as("the file reopened after interrupts in the middle of a write").isGreaterThanOrEqualTo(20);
            assertThat(interruptsKept.get()).as("writes after which the victim still saw its interrupt").isPositive();
            assertThat(reads.get()).isPositive();
            assertThat(file.isOpen()).isTrue();
        }
    }

    private static void verifyBlock(FileChannel file, int block, byte expected) throws Exception {
        ByteBuffer back = ByteBuffer.allocate(BLOCK);
        while (back.hasRemaining()) {
            boolean interrupted = Thread.interrupted();
            try {
                if (file.read(back, (long) block * BLOCK + back.position()) < 0) {
                    throw new AssertionError("end of file inside block " + block);
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        for (int i = 0; i < BLOCK; i++) {
            if (back.get(i) != expected) {
                throw new AssertionError("block " + block + " byte " + i + " is " + back.get(i) + ", not " + expected
                        + ": a write cut by an interrupt was not written whole");
            }
        }
    }

    @Test
    void theLockHeldBeforeAnInterruptIsHeldAfterTheReopen() throws Exception {
        try (H2InterruptSafeChannel file = open("locked")) {
            FileLock lock = file.tryLock();
            assertThat(lock).isNotNull();
            file.write(ByteBuffer.allocate(BLOCK), 0);
            int before = file.reopened();
            long deadline = System.nanoTime() + 20_000_000_000L;
            Thread writer = Thread.currentThread();
            while (file.reopened() == before && System.nanoTime() < deadline) {
                Thread interrupter = new Thread(() -> {
                    try {
                        Thread.sleep(0, 200_000);
                    } catch (InterruptedException e) {
                        return;
                    }
                    writer.interrupt();
                });
                interrupter.start();
                for (int i = 0; i < 20; i++) {
                    file.write(ByteBuffer.allocate(BLOCK), (long) i * BLOCK);
                }
                interrupter.join();
                Thread.interrupted();
            }
            assertThat(file.reopened()).as("an interrupt landed inside a write and the file was reopened").isGreaterThan(before);
            assertThat(lock.isValid()).as("H2's lock on the file after the reopen").isTrue();
            // the lock is really held: taking it again on another channel in this JVM overlaps it
            try (FileChannel other = FileChannel.open(dir.resolve("locked"), java.nio.file.StandardOpenOption.WRITE)) {
                assertThatThrownBy(other::tryLock).isInstanceOf(java.nio.channels.OverlappingFileLockException.class);
            }
            lock.release();
            assertThat(lock.isValid()).isFalse();
        }
    }

    @Test
    void sequentialReadsAndWritesKeepTheirOwnPosition() throws Exception {
        try (H2InterruptSafeChannel file = open("sequential")) {
            assertThat(file.write(ByteBuffer.wrap("hello world".getBytes()))).isEqualTo(11);
            assertThat(file.position()).isEqualTo(11);
            file.position(6);
            ByteBuffer word = ByteBuffer.allocate(5);
            assertThat(file.read(word)).isEqualTo(5);
            assertThat(new String(word.array())).isEqualTo("world");
            assertThat(file.read(ByteBuffer.allocate(1))).as("at the end").isEqualTo(-1);
            file.truncate(5);
            assertThat(file.position()).isEqualTo(5);
            assertThat(file.size()).isEqualTo(5);
            assertThatThrownBy(() -> file.position(-1)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aFileH2ClosedIsNotReopened() throws Exception {
        H2InterruptSafeChannel file = open("closed");
        file.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 0);
        file.close();
        assertThatThrownBy(() -> file.read(ByteBuffer.allocate(3), 0)).isInstanceOf(ClosedChannelException.class);
        assertThat(file.reopened()).isZero();
        assertThat(Files.size(dir.resolve("closed"))).isEqualTo(3);
    }

    @Test
    void pathsKeepTheirSchemeAndReachTheSameFiles() throws Exception {
        Path file = dir.resolve("sub").resolve("x.mv.db");
        FilePath path = FilePath.get(H2InterruptSafePath.SCHEME + ":" + file.toAbsolutePath());
        path.getParent().createDirectory();
        assertThat(path.createFile()).isTrue();
        assertThat(path.exists()).isTrue();
        assertThat(Files.exists(file)).isTrue();
        assertThat(path.getName()).isEqualTo("x.mv.db");
        assertThat(path.getParent().toString()).startsWith(H2InterruptSafePath.SCHEME + ":");
        assertThat(path.getParent().newDirectoryStream()).extracting(Object::toString)
                .containsExactly(H2InterruptSafePath.SCHEME + ":" + file.toAbsolutePath());
        FilePath moved = FilePath.get(H2InterruptSafePath.SCHEME + ":" + dir.resolve("sub").resolve("y.mv.db").toAbsolutePath());
        path.moveTo(moved, true);
        assertThat(Files.exists(file)).isFalse();
        assertThat(moved.exists()).isTrue();
        moved.delete();
        assertThat(moved.exists()).isFalse();
    }
}
