package dev.toolgate.jdbc;

import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * Admissions as single statements (PostgreSQL): one call of the schema's function
 * {@code toolgate_admit}, which does what {@link LockingAdmissions} does on H2, inside the database:
 * it locks the principal ({@code pg_advisory_xact_lock} on {@value #LOCK_SPACE} and the principal's
 * hash, held to the end of the transaction); being a {@code VOLATILE} function, each of its later
 * statements takes a fresh snapshot under READ COMMITTED, so they see everything the previous holder of
 * the lock committed; it reads the budget row's {@code next_seq} and {@code last_at}, the time after the
 * lock ({@code clock_timestamp()}, or the injected clock's time), looks up the cap-th newest admission
 * by its number, and, when admitted, advances the row (guarded by the number it read: a purge that
 * deleted the row meanwhile makes it return no row, as a missing row does), inserts the admission and
 * deletes the one that left the window. See {@link AdmissionLog} for the rule and why it is exact. A
 * refusal writes nothing: an advisory lock lives in the server's lock table, where the budget row's
 * {@code FOR UPDATE} lock (before, within version 5) wrote a tuple lock, WAL and a transaction id.
 *
 * <p>{@link #admit(BudgetCharge)} is that one autocommit statement, one round trip. It commits without
 * waiting for the write-ahead log flush: a committed admission is visible to every other session at
 * once, which is all exactness needs; a database crash could forget the last fraction of a second of
 * admissions, never admit past the cap while it runs. When the function finds no budget row (a
 * principal never seen, or one a purge just deleted), the row is created and the call repeated.
 *
 * <p>A claim's admission runs after {@link #beforeClaim} took the same lock, at the claim's time, in the
 * claim's (durable) transaction.
 */
final class StatementAdmissions extends Admissions {

    /** Creations before giving up; each retry means a purge deleted the row again in between. */
    private static final int MAX_ATTEMPTS = 50;

    private static final String CALL = "toolgate_admit(CAST(:charge_principal AS TEXT), CAST(:cap AS INTEGER),"
            + " CAST(:window_us AS BIGINT), CAST(:now AS TIMESTAMP WITH TIME ZONE)) AS f";
    private static final String COLUMNS = "SELECT f.is_admitted, f.at_time, f.cap_th FROM ";
    /** The first key of the principals' advisory locks: the ASCII of "tbud" (see {@code toolgate_admit}). */
    static final int LOCK_SPACE = 1952609636;
    private static final String LOCK = "SELECT 1 FROM (SELECT pg_advisory_xact_lock(" + LOCK_SPACE
            + ", hashtext(CAST(:key AS TEXT)))) AS principal_lock";

    private final PlainSql admitAlone = PlainSql.of(COLUMNS
            + "(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit, " + CALL);
    private final String admitInTransaction = COLUMNS + CALL;

    StatementAdmissions(Db db) {
        super(db);
    }

    @Override
    Instant admitInDatabase(BudgetCharge charge) {
        for (int attempt = 1; ; attempt++) {
            Instant now = db.clockInstant(); // null: the database's clock, read after the lock
            Optional<Outcome> outcome = db.withConnection(c -> admitAlone.queryFirst(c, p -> p
                    .timestamp("now", now)
                    .string("charge_principal", charge.principalKey())
                    .integer("cap", charge.limit().calls())
                    .number("window_us", Db.micros(charge.limit().window())), StatementAdmissions::outcome));
            if (outcome.isPresent()) {
                return decided(charge, outcome.get(), now);
            }
            missing(charge, attempt);
            db.withHandle(h -> {
                rows.create(h, charge.principalKey());
                return null;
            });
        }
    }

    /**
     * Takes the principal's lock as the function does ({@code pg_advisory_xact_lock} on
     * {@value #LOCK_SPACE} and the principal's hash), not the row's: every path then takes that lock
     * first, so a claim holding it never waits for a row that an admission holding the row waits to lock
     * after it (a deadlock the row lock here would allow).
     */
    @Override
    void beforeClaim(Handle handle, BudgetCharge charge) {
        handle.createQuery(LOCK).bind("key", charge.principalKey()).mapTo(Integer.class).findOne();
    }

    @Override
    void admit(Handle h, BudgetCharge charge, Instant at) {
        for (int attempt = 1; ; attempt++) {
            Optional<Outcome> outcome = h.createQuery(admitInTransaction)
                    .bind("now", Db.timestamp(at))
                    .bind("charge_principal", charge.principalKey())
                    .bind("cap", charge.limit().calls())
                    .bind("window_us", Db.micros(charge.limit().window()))
                    .map((rs, ctx) -> outcome(rs))
                    .findOne();
            if (outcome.isPresent()) {
                decided(charge, outcome.get(), at);
                return;
            }
            missing(charge, attempt);
            rows.create(h, charge.principalKey());
        }
    }

    /** The admission time, or the refusal. {@code now} is the time asked for, null for the database's. */
    private static Instant decided(BudgetCharge charge, Outcome outcome, Instant now) {
        if (outcome.admitted()) {
            return outcome.at();
        }
        // a slot frees when the cap-th newest admission leaves the window
        Instant from = now == null ? outcome.at() : now;
        throw new BudgetExceededException(charge.principalKey(), charge.limit(),
                Duration.between(from, outcome.capTh().plus(charge.limit().window())));
    }

    private static void missing(BudgetCharge charge, int attempt) {
        if (attempt > MAX_ATTEMPTS) {
            throw new IllegalStateException("the toolgate_budget row of " + charge.principalKey() + " vanished "
                    + MAX_ATTEMPTS + " times while admitting");
        }
    }

    private static Outcome outcome(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new Outcome(rs.getBoolean(1), Db.instant(rs, 2), Db.instant(rs, 3));
    }

    private record Outcome(boolean admitted, Instant at, Instant capTh) {
    }
}
