package dev.toolgate.gate;

import dev.toolgate.call.Turn;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The calls running in each model {@link Turn}, for the duplicate-call guard: a call is admitted into
 * its turn before anything runs and leaves it when its outcome is known. A call with the same tool and
 * arguments as one that already succeeded in the turn ({@link Turn#succeeded}) or is still running in
 * it is not admitted. Admission is decided under the turn's monitor; a turn no one holds any more is
 * forgotten with its entry (the map is weak, by identity: {@link Turn} does not override equals).
 */
final class Admissions {

    private static final Map<Turn, Set<String>> RUNNING = Collections.synchronizedMap(new WeakHashMap<>());

    private Admissions() {
    }

    /** Admits a call into a turn: false if the same call already succeeded or is running in it. */
    static boolean begin(Turn turn, String toolName, String argumentsHash) {
        synchronized (turn) {
            return !turn.succeeded(toolName, argumentsHash)
                    && RUNNING.computeIfAbsent(turn, t -> ConcurrentHashMap.newKeySet()).add(key(toolName, argumentsHash));
        }
    }

    /** The call admitted by {@link #begin} is over (successful or not). */
    static void end(Turn turn, String toolName, String argumentsHash) {
        synchronized (turn) {
            Set<String> running = RUNNING.get(turn);
            if (running != null) {
                running.remove(key(toolName, argumentsHash));
            }
        }
    }

    private static String key(String toolName, String argumentsHash) {
        return toolName + "\u0000" + argumentsHash;
    }
}
