package dev.toolgate.codemode;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** A script's console, capped: the first {@code max} lines are kept, then one line tells how many were dropped. */
final class Logs implements Consumer<String> {

    private final int max;
    private final Consumer<String> sink;
    private final List<String> kept = new ArrayList<>();
    private int dropped;

    Logs(int max, Consumer<String> sink) {
        this.max = max;
        this.sink = sink;
    }

    @Override
    public synchronized void accept(String line) {
        if (kept.size() < max) {
            kept.add(line);
            sink.accept(line);
        } else {
            dropped++;
        }
    }

    /** The lines kept, and a last line counting those dropped. */
    synchronized List<String> lines() {
        List<String> lines = new ArrayList<>(kept);
        if (dropped > 0) {
            lines.add("(" + dropped + " more line(s) dropped: at most " + max + " are kept)");
        }
        return lines;
    }

    /** The dropped count as a closing line, for a sink that already holds the kept lines. */
    synchronized String droppedLine() {
        return dropped == 0 ? null : "(" + dropped + " more line(s) dropped: at most " + max + " are kept)";
    }
}
