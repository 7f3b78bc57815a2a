package dev.toolgate.jdbc;

import dev.toolgate.budget.BudgetLimit;
import java.time.Duration;
import java.time.Instant;

/**
 * The sliding-window decision over a principal's admission log, the same rule the in-memory store
 * applies: a call is admitted at {@code t} if fewer than {@code calls} admissions are later than
 * {@code t - window}.
 *
 * <p><b>The log.</b> Admissions of one principal are numbered 0, 1, 2, ... in the order they took the
 * principal's lock (H2: its budget row's; PostgreSQL: its advisory lock): {@code toolgate_budget.next_seq} is the next number and
 * {@code last_at} the newest admission's time; {@code toolgate_budget_admission} holds one row per
 * admission, keyed by {@code (principal, seq)}. Admission times never decrease along the numbers: an
 * admission is stamped {@code at = max(now, last_at)} (on the database clock the later of the two is
 * {@code now} anyway: the time is read after the lock, and the previous holder stamped its own time
 * before it committed and let go of the lock; the maximum only guards against a clock that steps
 * back). So the {@code calls}-th newest admission is simply number {@code next_seq - calls}, one
 * primary-key lookup whatever the cap, and "fewer than {@code calls} admissions later than
 * {@code at - window}" is exactly "admission {@code next_seq - calls} does not exist or is not later
 * than {@code at - window}". Deciding costs the same for a cap of 10 and of 10,000, and so does the
 * write: one row inserted, the budget row updated.
 *
 * <p><b>Exact.</b> Admission {@code n} is stamped {@code s(n)} and let in only if
 * {@code s(n - calls) <= s(n) - window}: the half-open window {@code (s(n) - window, s(n)]} then holds
 * at most admissions {@code n - calls + 1 ... n}, that is {@code calls}; and any window
 * {@code (a, a + window]} holds no more than the one ending at its newest admission. No ordering of
 * concurrent admissions changes that: they are serialized by the row lock, and each decides on the log
 * its predecessor committed.
 *
 * <p><b>Forgetting.</b> When admission {@code n} is let in, admission {@code n - calls} (and anything
 * older) is at or before {@code s(n) - window}; as stamps never decrease, it can never be inside a later
 * admission's window again, so admission {@code n - calls} is deleted then, by its number: one row per
 * admission, found by equality (on PostgreSQL a range delete from the oldest number would walk every
 * dead index entry earlier deletes left until vacuum; the equality lookup touches only its own key).
 * A row the log no longer has therefore reads as "outside the window", which is what it is: also for a
 * cap raised later, whose {@code calls}-th newest may be such a row. After a cap is lowered, the rows
 * below the new cap-th newest stay until the principal's budget row is purged; they are true admission
 * times, so reading one (after the cap is raised again) decides correctly. The log holds about the
 * cap's number of rows per principal, and never more than it held when the cap was largest.
 */
final class AdmissionLog {

    private AdmissionLog() {
    }

    /**
     * The outcome of one admission attempt.
     *
     * @param admitted   whether the call is admitted
     * @param at         the admission's time ({@code max(now, last_at)}); when refused, the time decided at
     * @param seq        when admitted, the admission's number
     * @param forgetUpTo when admitted, delete the log's row with this number (none when negative)
     * @param retryAfter when refused, how long from {@code now} until a slot frees
     */
    record Decision(boolean admitted, Instant at, long seq, long forgetUpTo, Duration retryAfter) {
    }

    /**
     * Decides admission number {@code nextSeq} at {@code now}.
     *
     * @param nextSeq   the budget row's next number
     * @param lastAt    the newest admission's time, or null for none
     * @param capTh     the time of admission {@code nextSeq - calls}, or null if the log has no such row
     * @param now       the current time, read after the budget row was locked
     * @param limit     the limit to decide against
     */
    static Decision decide(long nextSeq, Instant lastAt, Instant capTh, Instant now, BudgetLimit limit) {
        Instant at = lastAt != null && lastAt.isAfter(now) ? lastAt : now;
        if (capTh != null && capTh.isAfter(at.minus(limit.window()))) {
            // a slot frees when the cap-th newest admission leaves the window
            return new Decision(false, at, -1, -1, Duration.between(now, capTh.plus(limit.window())));
        }
        return new Decision(true, at, nextSeq, capTh == null ? -1 : nextSeq - limit.calls(), Duration.ZERO);
    }
}
