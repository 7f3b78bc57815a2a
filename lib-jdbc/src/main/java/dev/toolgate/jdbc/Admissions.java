package dev.toolgate.jdbc;

import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import java.time.Instant;
import org.jdbi.v3.core.Handle;

/**
 * Budget admissions against {@code toolgate_budget} (one row per metered principal: its next
 * admission number and its newest admission time; on H2 also its lock) and {@code toolgate_budget_admission}
 * (its admissions, by number). Every admission holds the principal's lock (H2: the budget row's; PostgreSQL:
 * an advisory lock, see {@link StatementAdmissions}) while it decides and appends, so
 * admissions of one principal are serialized across all instances and connections, and each decides
 * on the log its predecessor committed; {@link AdmissionLog} has the rule, why it is exact and why it
 * costs the same whatever the cap. Two implementations, chosen by {@link Dialect#admitsInOneStatement()}:
 * {@link StatementAdmissions} and {@link LockingAdmissions}.
 */
abstract class Admissions {

    final Db db;
    final RowLocks rows;
    /** Refusals kept until their slot frees, so that a principal held at its cap costs no statement. */
    final KnownRefusals refusals;

    Admissions(Db db) {
        this.db = db;
        this.rows = new RowLocks(db.dialect(), "toolgate_budget", "principal");
        this.refusals = new KnownRefusals(db.clock());
    }

    /** The implementation for {@code db}'s dialect. */
    static Admissions forDialect(Db db) {
        return db.dialect().admitsInOneStatement() ? new StatementAdmissions(db) : new LockingAdmissions(db);
    }

    /**
     * Admits one call of {@code charge}'s principal, in its own short transaction; a principal this
     * instance saw refused is refused again without a statement until the slot it waits for frees
     * ({@link KnownRefusals}).
     *
     * @return the admission time, which becomes the call's {@code createdAt}
     * @throws BudgetExceededException when over budget; nothing is written then
     */
    final Instant admit(BudgetCharge charge) {
        refusals.refuseIfKept(charge);
        long before = refusals.now();
        try {
            return admitInDatabase(charge);
        } catch (BudgetExceededException refused) {
            refusals.keep(charge, refused, before);
            throw refused;
        }
    }

    /** {@link #admit(BudgetCharge)} in the database. */
    abstract Instant admitInDatabase(BudgetCharge charge);

    /**
     * Called first in a claim's transaction: locks the applier's budget row, so the claim reads its
     * time after any wait for that lock and {@link #admit} then decides at that time.
     */
    void beforeClaim(Handle handle, BudgetCharge charge) {
        rows.lock(handle, charge.principalKey());
    }

    /**
     * Admits {@code charge} at {@code at} inside the transaction open on {@code handle}, after
     * {@link #beforeClaim}. A claim admits at its own time ({@code appliedAt}), so the audit trail
     * shows every admission at the instant the budget counted it.
     *
     * @throws dev.toolgate.budget.BudgetExceededException when over budget; the caller rolls back
     */
    abstract void admit(Handle handle, BudgetCharge charge, Instant at);
}
