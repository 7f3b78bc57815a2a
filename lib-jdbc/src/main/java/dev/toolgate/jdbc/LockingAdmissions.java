package dev.toolgate.jdbc;

import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import java.sql.Array;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.argument.Argument;

/**
 * Admissions with an explicit row lock (H2), in one short transaction: {@code SELECT ... FOR UPDATE}
 * locks the principal's budget row as its own statement; the time is read after the lock wait (H2
 * fixes a transaction's time when it is first read); the next statement reads the log as last
 * committed; {@link AdmissionLog} decides; the new log is written. Nothing is written when over budget.
 */
final class LockingAdmissions extends Admissions {

    private static final String READ = "SELECT admitted FROM toolgate_budget WHERE principal = :charge_principal";
    private static final String WRITE = "UPDATE toolgate_budget SET admitted = :admitted WHERE principal = :charge_principal";

    private final String time;

    LockingAdmissions(Db db) {
        super(db);
        this.time = "SELECT " + db.nowSql();
    }

    @Override
    Instant admit(BudgetCharge charge) {
        return db.inTransaction(h -> {
            rows.lock(h, charge.principalKey());
            Instant now = h.createQuery(time).bind("now", db.now()).map((rs, ctx) -> Db.instant(rs, 1)).one();
            admitLocked(h, charge, now);
            return now;
        });
    }

    @Override
    void admit(Handle h, BudgetCharge charge, Instant at) {
        admitLocked(h, charge, at);
    }

    /** With the row locked: decides at {@code at} on the log as committed before the lock, and appends. */
    private void admitLocked(Handle h, BudgetCharge charge, Instant at) {
        List<Instant> admitted = h.createQuery(READ).bind("charge_principal", charge.principalKey())
                .map((rs, ctx) -> instants(rs.getArray("admitted")))
                .one();
        AdmissionLog.Decision decision = AdmissionLog.decide(admitted, at, charge.limit());
        if (!decision.admitted()) {
            throw new BudgetExceededException(charge.principalKey(), charge.limit(), decision.retryAfter());
        }
        h.createUpdate(WRITE).bind("admitted", array(decision.log())).bind("charge_principal", charge.principalKey()).execute();
    }

    private Argument array(List<Instant> log) {
        Object[] values = log.stream().map(t -> OffsetDateTime.ofInstant(t, ZoneOffset.UTC)).toArray();
        String type = db.dialect().timestampArrayType();
        return (position, statement, context) -> statement.setArray(position, statement.getConnection().createArrayOf(type, values));
    }

    private static List<Instant> instants(Array array) throws SQLException {
        List<Instant> out = new ArrayList<>();
        if (array == null) {
            return out;
        }
        for (Object value : (Object[]) array.getArray()) {
            if (value instanceof OffsetDateTime odt) {
                out.add(odt.toInstant());
            } else if (value instanceof Timestamp ts) {
                out.add(ts.toInstant());
            } else if (value instanceof Instant instant) {
                out.add(instant);
            } else if (value != null) {
                throw new IllegalStateException("unexpected admission time type " + value.getClass().getName());
            }
        }
        return out;
    }

}
