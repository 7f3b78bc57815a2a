package dev.toolgate.call;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One model turn, for the duplicate-call guard. A chat loop starts a turn per model response and
 * passes it in the {@link CallContext} (the Spring AI and LangChain4j adapters do so by themselves);
 * within a turn a call with the same tool and the same arguments (by canonical hash) as an earlier
 * <em>successful</em> call, or as one still running, is refused with a {@link DuplicateCallException}:
 * the same mutation twice in one response makes one proposal, even when a framework runs the calls of
 * a response at the same time. Failed attempts (invalid input, a failed execution, a denial) are not
 * remembered, so a corrected retry is always allowed. Thread-safe.
 */
public final class Turn {

    private final Set<String> succeeded = ConcurrentHashMap.newKeySet();
    /** The call ids of the proposals made in this turn. */
    private final Set<String> proposals = ConcurrentHashMap.newKeySet();

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

    /**
     * True if the proposal {@code callId} was made in this turn: a later call that repeats it (found by
     * {@code Conversations.repeatOf}) is this turn's duplicate rather than an earlier turn's request.
     */
    public boolean proposed(String callId) {
        return callId != null && proposals.contains(callId);
    }

    /** Remembers a proposal made in this turn; the gate calls this when it records one. */
    public void recordProposal(String callId) {
        proposals.add(callId);
    }

    private static String key(String toolName, String argumentsHash) {
        return toolName + "\u0000" + argumentsHash;
    }
}
