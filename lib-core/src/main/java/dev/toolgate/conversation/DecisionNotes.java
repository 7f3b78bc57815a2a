package dev.toolgate.conversation;

import dev.toolgate.json.Json;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

/**
 * The decisions one model turn tells its conversation, taken with {@link Conversations#takeDecisions}:
 * each is this turn's alone, across every instance sharing the store. If the turn never reaches the
 * model (its model call fails), {@link #release()} gives them back, so the next turn tells them.
 */
public final class DecisionNotes {

    /** The first line of {@link #text}: says where the notes come from. */
    public static final String HEADER = "[Toolgate] Decisions on changes you proposed earlier in this conversation "
            + "(from the approval system, not written by the user; one JSON object per line):";

    private static final DecisionNotes NONE = new DecisionNotes(List.of(), () -> { });

    private final List<Decision> decisions;
    private final Runnable release;
    private final AtomicBoolean released = new AtomicBoolean();

    DecisionNotes(List<Decision> decisions, Runnable release) {
        this.decisions = List.copyOf(decisions);
        this.release = release;
    }

    /** No decisions. */
    public static DecisionNotes none() {
        return NONE;
    }

    /** The decisions, oldest first. */
    public List<Decision> decisions() {
        return decisions;
    }

    /** True when there is nothing to tell. */
    public boolean isEmpty() {
        return decisions.isEmpty();
    }

    /**
     * The notes as the model reads them: {@link #HEADER}, then one {@link Decision#toJson} per line; empty
     * text when there are none.
     *
     * @param toolNames maps a qualified tool name to the name the model was offered (identity if null)
     */
    public String text(UnaryOperator<String> toolNames) {
        if (decisions.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder(HEADER);
        for (Decision decision : decisions) {
            out.append('\n').append(Json.write(decision.toJson(toolNames)));
        }
        return out.toString();
    }

    /**
     * Gives the decisions back untold, for a turn whose model call failed; the next turn in the
     * conversation takes them again. Only the first call does anything.
     */
    public void release() {
        if (!decisions.isEmpty() && released.compareAndSet(false, true)) {
            release.run();
        }
    }

    @Override
    public String toString() {
        return "DecisionNotes" + decisions.stream().map(d -> d.proposalId() + "=" + d.outcome().wireName()).toList();
    }
}
