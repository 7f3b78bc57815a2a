package dev.toolgate.spi;

import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.spi.CallStore.ClaimResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The budget part of {@link InMemoryStore}: one ledger of admission times per principal, exact under
 * concurrency within the process, and the purge and sweep of ledgers with nothing left to count.
 */
final class InMemoryBudget {

    private final Clock clock;
    private final Map<String, Ledger> ledgers = new ConcurrentHashMap<>();
    private final InMemoryIdleSweep ledgerSweep = new InMemoryIdleSweep();

    InMemoryBudget(Clock clock) {
        this.clock = clock;
    }

    /** Budget rows stored. */
    int size() {
        return ledgers.size();
    }

    /** Admits one call of the charged principal now, or throws {@link BudgetExceededException}; the admission time. */
    Instant admit(BudgetCharge charge) {
        Instant admitted = null;
        while (admitted == null) {
            Ledger ledger = ledgers.computeIfAbsent(charge.principalKey(), k -> new Ledger());
            synchronized (ledger) {
                if (ledger.retired) {
                    continue;
                }
                // read the clock under the ledger's monitor so admissions enter the ledger in time order
                Instant now = clock.instant();
                ledger.admit(charge, now);
                admitted = now;
            }
        }
        ledgerSweep.check(ledgers.size(), this::dropSpentLedgers);
        return admitted;
    }

    /**
     * Runs {@code claim} under the charged principal's ledger; the admission it is given admits one
     * call at the time it passes, or throws.
     */
    ClaimResult claim(BudgetCharge charge, Function<Consumer<Instant>, ClaimResult> claim) {
        ClaimResult result = null;
        while (result == null) {
            Ledger ledger = ledgers.computeIfAbsent(charge.principalKey(), k -> new Ledger());
            synchronized (ledger) {
                if (!ledger.retired) {
                    result = claim.apply(at -> ledger.admit(charge, at));
                }
            }
        }
        ledgerSweep.check(ledgers.size(), this::dropSpentLedgers);
        return result;
    }

    /** Drops every ledger with no admission inside its window; the ledgers left. */
    private int dropSpentLedgers() {
        Instant now = clock.instant();
        for (Map.Entry<String, Ledger> entry : ledgers.entrySet()) {
            Ledger ledger = entry.getValue();
            synchronized (ledger) {
                if (ledger.spent(now)) {
                    ledger.retired = true;
                    ledgers.remove(entry.getKey(), ledger);
                }
            }
        }
        return ledgers.size();
    }

    /** Drops at most {@code limit} ledgers with no admission since {@code before}; how many went. */
    int purge(Instant before, int limit) {
        int purged = 0;
        for (Map.Entry<String, Ledger> entry : ledgers.entrySet()) {
            if (purged >= limit) {
                break;
            }
            Ledger ledger = entry.getValue();
            synchronized (ledger) {
                if (ledger.idleBefore(before)) {
                    ledger.retired = true;
                    ledgers.remove(entry.getKey(), ledger);
                    purged++;
                }
            }
        }
        return purged;
    }

    /**
     * Admission timestamps of one principal, guarded by its own monitor. A purged ledger is
     * {@linkplain #retired retired} under that monitor, so an admission that found it before it left the
     * map starts over on its successor instead of writing into a ledger nobody reads.
     */
    private static final class Ledger {
        private final Deque<Instant> admitted = new ArrayDeque<>();
        /** The longest window this principal was charged with. */
        private Duration window = Duration.ZERO;
        private boolean retired;

        /** Admits one call at {@code now} or throws; caller holds this ledger's monitor. */
        void admit(BudgetCharge charge, Instant now) {
            if (charge.limit().window().compareTo(window) > 0) {
                window = charge.limit().window();
            }
            Instant windowStart = now.minus(charge.limit().window());
            while (!admitted.isEmpty() && !admitted.peekFirst().isAfter(windowStart)) {
                admitted.removeFirst();
            }
            if (admitted.size() >= charge.limit().calls()) {
                // the oldest admission still in the window leaves it at oldest + window
                Duration retryAfter = Duration.between(now, admitted.peekFirst().plus(charge.limit().window()));
                throw new BudgetExceededException(charge.principalKey(), charge.limit(), retryAfter);
            }
            admitted.addLast(now);
        }

        /** Caller holds the monitor. */
        boolean idleBefore(Instant cutoff) {
            return admitted.isEmpty() || admitted.peekLast().isBefore(cutoff);
        }

        /**
         * Whether every admission is outside the longest window charged (as {@link #admit} would find
         * it), so dropping this ledger changes nothing any charge admits. Caller holds the monitor.
         */
        boolean spent(Instant now) {
            return admitted.isEmpty() || !admitted.peekLast().plus(window).isAfter(now);
        }
    }
}
