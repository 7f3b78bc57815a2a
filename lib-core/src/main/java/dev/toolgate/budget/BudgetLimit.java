package dev.toolgate.budget;

import java.time.Duration;
import java.util.Objects;

/**
 * How many calls a principal may make in any rolling window: at most {@code calls} admissions in
 * every interval of length {@code window}.
 *
 * @param calls  the cap, at least 1
 * @param window the window length, at least one millisecond
 */
public record BudgetLimit(int calls, Duration window) {

    /** 60 calls per 60 seconds. */
    public static final BudgetLimit DEFAULT = new BudgetLimit(60, Duration.ofSeconds(60));

    /** Checks the components; see the class description for what each must hold. */
    public BudgetLimit {
        Objects.requireNonNull(window, "window");
        if (calls < 1) {
            throw new IllegalArgumentException("a budget allows at least 1 call, got " + calls);
        }
        if (window.toMillis() < 1) {
            throw new IllegalArgumentException("a budget window is at least 1 ms, got " + window);
        }
    }

    /** {@code calls} per {@code window}. */
    public static BudgetLimit of(int calls, Duration window) {
        return new BudgetLimit(calls, window);
    }

    @Override
    public String toString() {
        return calls + " calls per " + window;
    }
}
