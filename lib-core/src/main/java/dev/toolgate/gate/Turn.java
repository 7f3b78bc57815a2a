package dev.toolgate.gate;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One model turn, for the duplicate-call guard. A chat loop starts a turn per model response and
 * passes it in the {@link CallContext}; within a turn a call with the same tool and the same
 * arguments (by canonical hash) as an earlier <em>successful</em> call is refused with a
 * {@link DuplicateCallException}. Failed attempts (invalid input, a failed execution) are not
 * remembered, so a corrected retry is always allowed. Thread-safe.
 */
public final class Turn {

    private final Set<String> succeeded = ConcurrentHashMap.newKeySet();

    private Turn() {
    }

    /** A new, empty turn. */
    public static Turn start() {
        return new Turn();
    }

    /** True if this tool with these arguments already succeeded in this turn. */
    public boolean succeeded(String toolName, String argumentsHash) {
        return succeeded.contains(key(toolName, argumentsHash));
    }

    /** Remembers a successful call; the gate calls this after a call executes, proposes or applies. */
    public void recordSuccess(String toolName, String argumentsHash) {
        succeeded.add(key(toolName, argumentsHash));
    }

    private static String key(String toolName, String argumentsHash) {
        return toolName + "\u0000" + argumentsHash;
    }
}
