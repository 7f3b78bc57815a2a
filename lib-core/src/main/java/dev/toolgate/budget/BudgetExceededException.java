package dev.toolgate.budget;

import java.time.Duration;

/**
 * A principal has used its whole budget for the current window. Nothing was executed or recorded.
 * {@link #retryAfter()} is when the oldest admission in the window leaves it, so a slot frees.
 */
public class BudgetExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String principalKey;
    private final transient BudgetLimit limit;
    private final Duration retryAfter;

    /** A refusal for {@code principalKey}, which may retry after {@code retryAfter}. */
    public BudgetExceededException(String principalKey, BudgetLimit limit, Duration retryAfter) {
        super("Tool budget exceeded for " + principalKey + ": " + limit + "; retry after "
                + Math.max(1, retryAfter.toMillis()) + " ms");
        this.principalKey = principalKey;
        this.limit = limit;
        this.retryAfter = retryAfter.isNegative() ? Duration.ZERO : retryAfter;
    }

    /** The metered principal, as {@code <kind>:<id>}. */
    public String principalKey() {
        return principalKey;
    }

    /** The limit that was reached. */
    public BudgetLimit limit() {
        return limit;
    }

    /** How long until a slot frees. */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** {@link #retryAfter()} rounded up to whole seconds, at least 1, as for an HTTP {@code Retry-After}. */
    public long retryAfterSeconds() {
        long millis = retryAfter.toMillis();
        return Math.max(1, (millis + 999) / 1000);
    }
}
