package dev.toolgate.gate;

import java.security.SecureRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * New call ids: version-7 UUIDs (RFC 9562), whose text sorts by creation time.
 *
 * <p>Why not random (version 4) UUIDs: a call id is the primary key of the audit table. Random keys
 * land anywhere in its index, so every insert rewrites a different page of it: on an embedded H2 file,
 * whose pages are copied on write, each commit then keeps a random older chunk partly alive (more chunk
 * metadata rewritten per commit, more file to compact), and on PostgreSQL each insert dirties a random
 * leaf page. Keys in time order land at the index's end. The id is not a secret (a proposal's token
 * carries its own 256-bit nonce); the 48-bit millisecond timestamp it shows is the call's creation
 * time, which its audit record holds anyway.
 *
 * <p>Layout: 48 bits of Unix milliseconds, the version (7), 12 bits of a sequence within the
 * millisecond (RFC 9562 method 3, so ids made in one millisecond by this JVM still sort in order, and
 * the clock going back never makes an id sort before one already made), the variant, and 62 bits of a
 * SplitMix64 sequence whose 64-bit start is drawn from {@link SecureRandom} once per JVM. The sequence
 * never repeats within a JVM (SplitMix64's output function is a bijection of its counter), and two
 * instances collide only if they stamp the same millisecond and sequence and their independently
 * seeded sequences meet in those 62 bits. Drawing the bits from {@code SecureRandom} for every id
 * cost about a microsecond of a governed call (a lock, a SHA-1 mix and now and then a read of the
 * system's random device), for no gain: the id is not a secret.
 */
final class CallIds {

    /** SplitMix64's increment (the golden ratio's fraction, odd). */
    private static final long GAMMA = 0x9E37_79B9_7F4A_7C15L;
    /** SplitMix64's counter, started at a secure random point. */
    private static final AtomicLong SEQUENCE = new AtomicLong(new SecureRandom().nextLong());
    /** The last (millisecond << 12 | sequence) handed out; the next id takes a larger value. */
    private static final AtomicLong LAST = new AtomicLong();

    private CallIds() {
    }

    static String next() {
        return nextUuid().toString();
    }

    static UUID nextUuid() {
        return nextUuid(System.currentTimeMillis());
    }

    /** The next id at this wall-clock time: more than 4,096 ids in a millisecond borrow the next one's stamp. */
    static UUID nextUuid(long nowMillis) {
        long now = nowMillis << 12;
        long stamp = LAST.updateAndGet(last -> Math.max(now, last + 1));
        long millis = stamp >>> 12;
        long sequence = stamp & 0xFFF;
        long msb = (millis << 16) | 0x7000L | sequence;
        long lsb = (mix(SEQUENCE.addAndGet(GAMMA)) & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb);
    }

    /** SplitMix64's output function (Steele, Lea and Flood, 2014): a bijection of the 64-bit counter. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }
}
