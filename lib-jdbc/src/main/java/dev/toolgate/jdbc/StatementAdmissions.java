package dev.toolgate.jdbc;

import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.argument.Argument;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * Admissions as single statements (PostgreSQL). The {@code UPDATE} of the principal's budget row
 * carries the whole rule in its {@code WHERE} clause; under READ COMMITTED a concurrent admission
 * makes it wait for the row lock and then re-evaluate that clause on the newly committed row, so the
 * check and the append happen under the lock on the latest log. {@link #admit(BudgetCharge)} is that
 * one autocommit statement, one round trip. It commits without waiting for the write-ahead log flush:
 * a committed admission is visible to every other session at once, which is all exactness needs; a
 * database crash could forget the last fraction of a second of admissions, never admit past the cap
 * while it runs.
 *
 * <p>When it matches no row, a read tells why: no budget row yet (create it and retry), over budget
 * (refuse with the time until the cap-th newest admission leaves the window), or a slot freed in
 * between (retry).
 *
 * <p>A claim's admission runs after {@link #beforeClaim} locked the row, at the claim's time, so it
 * never waits and its refusal is counted from a time read after the lock.
 */
final class StatementAdmissions extends Admissions {

    /** Retries after a slot freed between the refusal and the read; each retry is a fresh decision. */
    private static final int MAX_ATTEMPTS = 20;

    private final String admit;
    private final PlainSql admitAlone;
    private final String state;

    StatementAdmissions(Db db) {
        super(db);
        String now = db.nowSql();
        String windowStart = Db.plusMicros(now, '-', "window_us");
        // appends now and keeps the cap newest, only if fewer than the cap are inside the window
        String set = "UPDATE toolgate_budget"
                + " SET admitted = ARRAY(SELECT t.a FROM unnest(admitted || " + now + ") AS t(a) ORDER BY t.a DESC LIMIT :cap)";
        String where = " WHERE principal = :charge_principal"
                + " AND (SELECT count(*) FROM unnest(admitted) AS t(a) WHERE t.a > " + windowStart + ") < :cap";
        this.admit = set + where;
        this.admitAlone = PlainSql.of(set + db.dialect().asynchronousCommitFrom() + where + " RETURNING " + now);
        this.state = "SELECT"
                + " (SELECT count(*) FROM unnest(b.admitted) AS t(a) WHERE t.a > " + windowStart + ") AS in_window,"
                + " (SELECT min(x.a) FROM (SELECT t.a FROM unnest(b.admitted) AS t(a) ORDER BY t.a DESC LIMIT :cap) AS x)"
                + " AS cap_th, " + now + " AS now_"
                + " FROM toolgate_budget b WHERE b.principal = :charge_principal";
    }

    @Override
    Instant admit(BudgetCharge charge) {
        for (int attempt = 1; ; attempt++) {
            Optional<Instant> admitted = db.withConnection(c -> admitAlone.queryFirst(c, p -> p
                    .timestamp("now", db.clockInstant())
                    .string("charge_principal", charge.principalKey())
                    .integer("cap", charge.limit().calls())
                    .number("window_us", Db.micros(charge.limit().window())), rs -> Db.instant(rs, 1)));
            if (admitted.isPresent()) {
                return admitted.get();
            }
            int tried = attempt;
            db.withHandle(h -> {
                explainRefusal(h, charge, db.now(), tried); // a later statement: a slot may have freed
                return null;
            });
        }
    }

    @Override
    void admit(Handle h, BudgetCharge charge, Instant at) {
        Argument now = Db.timestamp(at);
        for (int attempt = 1; ; attempt++) {
            if (bind(h.createUpdate(admit), charge).bind("now", now).execute() == 1) {
                return;
            }
            explainRefusal(h, charge, now, attempt);
        }
    }

    private <S extends SqlStatement<S>> S bind(S statement, BudgetCharge charge) {
        return statement.bind("now", db.now())
                .bind("charge_principal", charge.principalKey())
                .bind("cap", charge.limit().calls())
                .bind("window_us", Db.micros(charge.limit().window()));
    }

    /** Throws when over budget at {@code now}; otherwise prepares a retry (creating the budget row if missing). */
    private void explainRefusal(Handle h, BudgetCharge charge, Argument now, int attempt) {
        Optional<State> found = bind(h.createQuery(state), charge).bind("now", now)
                .map((rs, ctx) -> new State(rs.getLong("in_window"), Db.instant(rs, "cap_th"), Db.instant(rs, "now_")))
                .findOne();
        if (found.isEmpty()) {
            rows.create(h, charge.principalKey());
            return;
        }
        State s = found.get();
        if (s.inWindow() >= charge.limit().calls()) {
            throw new BudgetExceededException(charge.principalKey(), charge.limit(),
                    Duration.between(s.now(), s.capTh().plus(charge.limit().window())));
        }
        if (attempt >= MAX_ATTEMPTS) {
            // the window keeps freeing and filling between our attempts: refuse, retry at once
            throw new BudgetExceededException(charge.principalKey(), charge.limit(), Duration.ZERO);
        }
    }

    private record State(long inWindow, Instant capTh, Instant now) {
    }
}
