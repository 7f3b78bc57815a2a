package dev.toolgate.jdbc;

import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.BudgetLimit;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The budget refusals this instance received, each kept until the slot it waits for frees, so that a
 * principal held at its cap is refused again here without a statement.
 *
 * <p>Exact: admissions are only ever added, with times that never decrease, so while the cap-th newest
 * admission is inside the window no instance can admit; the slot frees when it leaves the window, which
 * is the refusal's {@code retryAfter} after the moment the database decided. That moment came after
 * this instance sent the statement, so a refusal is kept for {@code retryAfter} from before the
 * statement, on this machine's monotonic clock, less {@value #MARGIN_MILLIS} ms and a thousandth of
 * {@code retryAfter} for the two clocks' drift: it ends at or before the database's own refusal would,
 * never after. (A database clock stepped forward by more than that would end the database's refusal
 * sooner than kept here: only then could a call be refused here that the database would admit.) With
 * an injected {@link Clock} that clock measures the time, with no margin. A refusal is kept for the
 * limit it was made under only: a principal whose limit changed goes to the database.
 *
 * <p>Bounded: at most {@value #MAX_ENTRIES} principals; past that, refusals that ended are dropped, and
 * if none has, a new one is not kept.
 */
final class KnownRefusals {

    /** Principals kept at most. */
    static final int MAX_ENTRIES = 10_000;
    /** Taken off every kept refusal on the monotonic clock, with a thousandth of its length. */
    static final long MARGIN_MILLIS = 1;

    private final ConcurrentHashMap<String, Refusal> byPrincipal = new ConcurrentHashMap<>();
    private final LongSupplier nanos;
    private final boolean exact;

    /** Refusals timed by {@code clock} (exactly), or by {@link System#nanoTime()} (with a margin) if null. */
    KnownRefusals(Clock clock) {
        this(clock == null ? System::nanoTime : () -> {
            java.time.Instant now = clock.instant();
            return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000_000L), now.getNano());
        }, clock != null);
    }

    /** Refusals timed by {@code nanos}; {@code exact}: with no margin (an injected clock's time). */
    KnownRefusals(LongSupplier nanos, boolean exact) {
        this.nanos = nanos;
        this.exact = exact;
    }

    /** A refusal under {@code limit} that holds while the clock reads before {@code freesAt}. */
    private record Refusal(BudgetLimit limit, long freesAt) {
    }

    /** The time to pass as {@code before} to {@link #keep}: read before the admission's statement. */
    long now() {
        return nanos.getAsLong();
    }

    /**
     * Throws the refusal of {@code charge} if one is kept for its principal and limit and has not
     * ended; drops a kept refusal that has ended.
     */
    void refuseIfKept(BudgetCharge charge) {
        Refusal refusal = byPrincipal.get(charge.principalKey());
        if (refusal == null) {
            return;
        }
        long left = refusal.freesAt() - nanos.getAsLong();
        if (left <= 0) {
            byPrincipal.remove(charge.principalKey(), refusal);
        } else if (refusal.limit().equals(charge.limit())) {
            throw new BudgetExceededException(charge.principalKey(), charge.limit(), Duration.ofNanos(left));
        }
    }

    /** Keeps {@code refused}, thrown by a statement sent after {@code before} ({@link #now()}), until its slot frees. */
    void keep(BudgetCharge charge, BudgetExceededException refused, long before) {
        long wait = refused.retryAfter().toNanos();
        long kept = exact ? wait : wait - wait / 1000 - Duration.ofMillis(MARGIN_MILLIS).toNanos();
        if (kept <= 0) {
            return;
        }
        if (byPrincipal.size() >= MAX_ENTRIES) {
            long now = nanos.getAsLong();
            byPrincipal.values().removeIf(r -> r.freesAt() - now <= 0);
            if (byPrincipal.size() >= MAX_ENTRIES) {
                return;
            }
        }
        byPrincipal.put(charge.principalKey(), new Refusal(charge.limit(), before + kept));
    }

    /** Principals with a refusal kept (ended ones included until they are dropped). */
    int size() {
        return byPrincipal.size();
    }
}
