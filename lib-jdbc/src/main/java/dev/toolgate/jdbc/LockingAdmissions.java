package dev.toolgate.jdbc;

import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * Admissions with an explicit row lock (H2), in one short transaction: {@code SELECT ... FOR UPDATE}
 * locks the principal's budget row as its own statement; the next statement reads the time (H2 fixes
 * a transaction's time when it is first read, so this is after the lock wait), the row's
 * {@code next_seq} and {@code last_at} as last committed, and the time of the cap-th newest admission
 * by its number; {@link AdmissionLog} decides; when admitted, the budget row is advanced, the
 * admission inserted and the admission that left the window deleted. Nothing is written when over
 * budget: a standalone admission first decides on the log as last committed, without the lock, and a
 * full log is refused there (see {@link #refuseIfFull}). Every statement touches one or two rows by
 * primary key, whatever the cap.
 */
final class LockingAdmissions extends Admissions {

    private static final String FORGET = "DELETE FROM toolgate_budget_admission WHERE principal = :charge_principal AND seq = :seq";
    private static final String LOG = "INSERT INTO toolgate_budget_admission (principal, seq, admitted_at)"
            + " VALUES (:charge_principal, :seq, :at)";
    private static final String ADVANCE = "UPDATE toolgate_budget SET next_seq = :seq + 1, last_at = :at"
            + " WHERE principal = :charge_principal";

    private final String read;

    LockingAdmissions(Db db) {
        super(db);
        this.read = "SELECT " + db.nowSql() + " AS now_, b.next_seq, b.last_at,"
                + " (SELECT a.admitted_at FROM toolgate_budget_admission a WHERE a.principal = b.principal"
                + " AND a.seq = b.next_seq - :cap) AS cap_th"
                + " FROM toolgate_budget b WHERE b.principal = :charge_principal";
    }

    @Override
    Instant admitInDatabase(BudgetCharge charge) {
        refuseIfFull(charge);
        return db.inTransaction(h -> {
            rows.lock(h, charge.principalKey());
            return admitLocked(h, charge, db.now());
        });
    }

    /**
     * Refuses without the lock when the log as last committed is already full. On H2 a
     * {@code SELECT ... FOR UPDATE} is a write (the lock is kept in the row), so every refusal behind it
     * was a commit, about 12 KB of file and 0.3-0.6 ms (measured), and a client held at its cap made the
     * file grow with every retry. Exact: admissions are only ever added, with times that never decrease
     * along their numbers, so the cap-th newest admission under the lock is at least as recent as the
     * cap-th newest committed now; if that one is inside the window, so is the other, and the call
     * would be refused there too. A principal without a row, or with room, goes on to the locked path.
     */
    private void refuseIfFull(BudgetCharge charge) {
        Optional<AdmissionLog.Decision> decision = db.withHandle(h -> decide(h, charge, db.now()).findOne());
        if (decision.isPresent() && !decision.get().admitted()) {
            throw new BudgetExceededException(charge.principalKey(), charge.limit(), decision.get().retryAfter());
        }
    }

    private org.jdbi.v3.core.result.ResultIterable<AdmissionLog.Decision> decide(Handle h, BudgetCharge charge,
                                                                                 org.jdbi.v3.core.argument.Argument now) {
        return h.createQuery(read)
                .bind("now", now)
                .bind("charge_principal", charge.principalKey())
                .bind("cap", (long) charge.limit().calls())
                .map((rs, ctx) -> AdmissionLog.decide(rs.getLong("next_seq"), Db.instant(rs, "last_at"),
                        Db.instant(rs, "cap_th"), Db.instant(rs, "now_"), charge.limit()));
    }

    @Override
    void admit(Handle h, BudgetCharge charge, Instant at) {
        admitLocked(h, charge, Db.timestamp(at));
    }

    /** With the row locked: decides on the log as committed before the lock, and appends. */
    private Instant admitLocked(Handle h, BudgetCharge charge, org.jdbi.v3.core.argument.Argument now) {
        AdmissionLog.Decision decision = decide(h, charge, now).one();
        if (!decision.admitted()) {
            throw new BudgetExceededException(charge.principalKey(), charge.limit(), decision.retryAfter());
        }
        h.createUpdate(ADVANCE).bind("seq", decision.seq()).bind("at", Db.timestamp(decision.at()))
                .bind("charge_principal", charge.principalKey()).execute();
        h.createUpdate(LOG).bind("seq", decision.seq()).bind("at", Db.timestamp(decision.at()))
                .bind("charge_principal", charge.principalKey()).execute();
        if (decision.forgetUpTo() >= 0) {
            h.createUpdate(FORGET).bind("seq", decision.forgetUpTo()).bind("charge_principal", charge.principalKey()).execute();
        }
        return decision.at();
    }
}
