package dev.toolgate.jdbc;

import dev.toolgate.budget.BudgetLimit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The sliding-window decision over a principal's admission log, the same rule the in-memory store
 * applies: a call is admitted at {@code now} if fewer than {@code calls} admissions are later than
 * {@code now - window}. The log keeps the {@code calls} latest admission times, which is all the rule
 * ever needs.
 *
 * <p>Exactness does not depend on admissions arriving in time order: whoever admits last under the
 * row lock counted every kept admission later than its own {@code now - window}, so no interval of
 * length {@code window} ever holds more than {@code calls} admissions.
 */
final class AdmissionLog {

    private AdmissionLog() {
    }

    /**
     * The outcome of one admission attempt.
     *
     * @param admitted   whether the call is admitted
     * @param log        the log to store when admitted (newest first, at most the cap)
     * @param retryAfter when refused, how long until a slot frees
     */
    record Decision(boolean admitted, List<Instant> log, Duration retryAfter) {
    }

    static Decision decide(List<Instant> admitted, Instant now, BudgetLimit limit) {
        List<Instant> newestFirst = new ArrayList<>(admitted);
        newestFirst.sort(Comparator.reverseOrder());
        Instant windowStart = now.minus(limit.window());
        long inWindow = newestFirst.stream().filter(t -> t.isAfter(windowStart)).count();
        if (inWindow >= limit.calls()) {
            // a slot frees when the cap-th newest admission leaves the window
            Instant capTh = newestFirst.get(limit.calls() - 1);
            return new Decision(false, admitted, Duration.between(now, capTh.plus(limit.window())));
        }
        newestFirst.add(now);
        newestFirst.sort(Comparator.reverseOrder());
        List<Instant> kept = List.copyOf(newestFirst.subList(0, Math.min(limit.calls(), newestFirst.size())));
        return new Decision(true, kept, Duration.ZERO);
    }
}
