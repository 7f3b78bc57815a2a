package dev.toolgate.call;

import java.time.Duration;

/**
 * How long the gate keeps what it stores before its sweeper purges it, in small batches. Each age is
 * counted from when the row closed; null keeps that kind forever.
 *
 * <ul>
 *   <li>{@code finishedCalls} (default 90 days): the audit trail of calls that ran or were refused:
 *       executed, failed, invalid, denied, applied and interrupted calls, by when their outcome was
 *       recorded.</li>
 *   <li>{@code closedProposals} (default 7 days): proposals that closed without running (rejected,
 *       expired, superseded), by when they closed.</li>
 *   <li>{@code idleSessions} (default 7 days): the bookkeeping row of a session with no pending
 *       proposal, by its last proposal. A session the host {@linkplain dev.toolgate.Toolgate#endSession
 *       ends} loses it at once.</li>
 *   <li>{@code idleBudgets} (default 7 days): a principal's budget row, by its newest admission. It
 *       must be longer than the longest budget window, or a purge would forget admissions still inside
 *       a window.</li>
 * </ul>
 *
 * <p>Pending proposals and calls still applying are never purged, whatever their age. Immutable.
 *
 * @param finishedCalls   how long finished calls are kept, or null for ever
 * @param closedProposals how long proposals closed without running are kept, or null for ever
 * @param idleSessions    how long an idle session's row is kept, or null for ever
 * @param idleBudgets     how long an idle principal's budget row is kept, or null for ever
 */
public record Retention(Duration finishedCalls, Duration closedProposals, Duration idleSessions, Duration idleBudgets) {

    /** Checks that every age given is positive. */
    public Retention {
        positive(finishedCalls, "finishedCalls");
        positive(closedProposals, "closedProposals");
        positive(idleSessions, "idleSessions");
        positive(idleBudgets, "idleBudgets");
    }

    /** 90 days for finished calls, 7 days for the rest. */
    public static Retention defaults() {
        return new Retention(Duration.ofDays(90), Duration.ofDays(7), Duration.ofDays(7), Duration.ofDays(7));
    }

    /** Keeps everything for ever (the sweeper purges nothing; {@code Toolgate.purge} still works). */
    public static Retention keepForever() {
        return new Retention(null, null, null, null);
    }

    /** This retention with another age for finished calls (null: for ever). */
    public Retention withFinishedCalls(Duration age) {
        return new Retention(age, closedProposals, idleSessions, idleBudgets);
    }

    /** This retention with another age for proposals closed without running (null: for ever). */
    public Retention withClosedProposals(Duration age) {
        return new Retention(finishedCalls, age, idleSessions, idleBudgets);
    }

    /** This retention with another age for idle sessions' rows (null: for ever). */
    public Retention withIdleSessions(Duration age) {
        return new Retention(finishedCalls, closedProposals, age, idleBudgets);
    }

    /** This retention with another age for idle principals' budget rows (null: for ever). */
    public Retention withIdleBudgets(Duration age) {
        return new Retention(finishedCalls, closedProposals, idleSessions, age);
    }

    private static void positive(Duration age, String name) {
        if (age != null && (age.isNegative() || age.isZero())) {
            throw new IllegalArgumentException(name + " must be positive or null (keep for ever), got " + age);
        }
    }
}
