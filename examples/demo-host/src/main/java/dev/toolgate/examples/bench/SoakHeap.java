package dev.toolgate.examples.bench;

import java.util.List;
import java.util.Locale;

/**
 * The heap check of {@link McpSoakCheck}: the heap left after full GCs, from 20% of the run on, may grow
 * by at most a quarter plus a few megabytes.
 */
final class SoakHeap {

    private static final double FLAT_FROM = 0.2;
    private static final double HEAP_FACTOR = 1.25;
    private static final long HEAP_SLACK_MB = 8;

    private SoakHeap() {
    }

    /** One heap sample: seconds into the run, calls made by then, heap after the full GC in KB. */
    record HeapSample(long seconds, long calls, long heapKb) {
    }

    /**
     * The heap check; {@code cap} > 0 (the in-memory store's finished-call cap) starts the window no
     * earlier than the first sample by which that many calls were made: until then the store grows by
     * design.
     */
    static String heapCheck(List<HeapSample> heap, double seconds, int cap, long callsMade) {
        long from = (long) Math.ceil(seconds * FLAT_FROM);
        List<HeapSample> window = heapWindow(heap, seconds, cap);
        if (window.size() < 2) {
            String why = cap > 0 && callsMade < cap
                    ? String.format(Locale.ROOT, ": the clients made only %,d calls, fewer than the store's cap of %,d"
                            + " finished calls (a smaller --memory-cap reaches it sooner)", callsMade, cap)
                    : (cap > 0 ? String.format(Locale.ROOT, " after the store's cap of %,d finished calls was reached", cap)
                            : "") + ": jcmd GC.run failed, or took longer than the run allows on this machine"
                            + " (see --sample-seconds)";
            return "only " + window.size() + " heap sample(s) from " + from + " s on" + why + " ... FAILED";
        }
        HeapSample first = window.get(0);
        HeapSample last = window.get(window.size() - 1);
        double firstMb = first.heapKb() / 1024.0;
        double lastMb = last.heapKb() / 1024.0;
        double limit = firstMb * HEAP_FACTOR + HEAP_SLACK_MB;
        double maxMb = window.stream().mapToLong(HeapSample::heapKb).max().orElseThrow() / 1024.0;
        long callsInWindow = last.calls() - first.calls();
        String growth = callsInWindow < 1 ? "" : String.format(Locale.ROOT, "; %+.0f bytes per call over the %d calls in between",
                (last.heapKb() - first.heapKb()) * 1024.0 / callsInWindow, callsInWindow);
        return String.format(Locale.ROOT, "%.1f MB at %d s (the first sample from %d%% of the run) -> %.1f MB at %d s (max %.1f MB%s);"
                        + " limit %.1f x %.2f + %d = %.1f MB", firstMb, first.seconds(), Math.round(FLAT_FROM * 100),
                lastMb, last.seconds(), maxMb, growth, firstMb, HEAP_FACTOR, HEAP_SLACK_MB, limit)
                + (lastMb <= limit ? " ... ok" : " ... FAILED");
    }

    /**
     * The samples the heap check compares: from 20% of the run on and, for the in-memory store ({@code cap}
     * > 0), once the clients made as many calls as the store keeps.
     */
    static List<HeapSample> heapWindow(List<HeapSample> heap, double seconds, int cap) {
        long from = (long) Math.ceil(seconds * FLAT_FROM);
        return heap.stream().filter(s -> s.seconds() >= from && s.calls() >= cap).toList();
    }
}
