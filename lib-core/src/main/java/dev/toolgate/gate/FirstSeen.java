package dev.toolgate.gate;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers which keys it has seen, so that something said about them (a log line) is said once.
 * Bounded: a new key when it holds {@code capacity} makes it forget the others, each of which is then
 * seen once more.
 * Safe for concurrent use; two threads seeing a new key at the same moment get one {@code true}.
 */
final class FirstSeen {

    private final Set<List<String>> seen = ConcurrentHashMap.newKeySet();
    private final int capacity;

    FirstSeen(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
    }

    /** True the first time these parts are seen (since the last time it forgot); null parts are allowed. */
    boolean first(String... parts) {
        List<String> key = Arrays.asList(parts.clone());
        if (seen.contains(key)) {
            return false;
        }
        if (seen.size() >= capacity) { // a new key when full: forget the rest
            seen.clear();
        }
        return seen.add(key);
    }
}
