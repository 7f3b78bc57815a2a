package dev.toolgate.jdbc;

import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.spi.CallStore.Claim;
import dev.toolgate.spi.CallStore.ClaimResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The claims of {@link JdbcCallStore}: the single-use update of a proposal (with the budget's admission
 * in the same transaction when charged), why a claim lost, and the claim of a call's one revert.
 */
final class JdbcClaims {

    private static final String TABLE = CallRows.TABLE;
    private static final String SELECT = "SELECT " + CallRows.COLUMNS + " FROM " + TABLE;
    /** Attempts of a revert's claim that lost to a revert it then could not read (purged in between). */
    private static final int REVERT_ATTEMPTS = 50;

    private final Db db;
    private final Admissions admissions;
    /** The row and the database's time, to tell why a claim lost. */
    private final String selectWithNow;
    /** The single-use update, reading back the whole row. */
    private final PlainSql claimRow;
    /** {@link #claimRow} reading back only the two times it sets: the claim of a proposal the caller holds. */
    private final PlainSql claimTimes;
    private final PlainSql claimRevert;
    private final String revertOf;

    /** {@code pending}: the SQL condition of a pending proposal; {@code selectWithNow}: a row with the database's time. */
    JdbcClaims(Db db, Admissions admissions, String pending, String selectWithNow) {
        this.db = db;
        this.admissions = admissions;
        this.selectWithNow = selectWithNow;
        Dialect dialect = db.dialect();
        String now = db.nowSql();
        String claimUpdate = "UPDATE " + TABLE + " SET status = 'applying', applied_by = :applied_by,"
                + " applied_at = " + now + ", outcome_due_at = " + Db.plusMicros(now, '+', "outcome_us")
                + ", decided_by = :decided_by, decision_reason = :decision_reason"
                + " WHERE id = :id AND " + pending;
        this.claimRow = PlainSql.of(dialect.returning(claimUpdate, CallRows.COLUMNS));
        this.claimTimes = PlainSql.of(dialect.returning(claimUpdate, "applied_at, outcome_due_at"));
        String revert = "INSERT INTO " + TABLE + " (" + CallRows.COLUMNS + ") VALUES ("
                + CallRows.values(now, ":expires_at", ":completed_at", now, Db.plusMicros(now, '+', "outcome_us")) + ")"
                + (dialect == Dialect.POSTGRESQL ? " ON CONFLICT (reverts) WHERE reverts IS NOT NULL DO NOTHING" : "");
        this.claimRevert = PlainSql.of(dialect.returning(revert, "created_at, applied_at, outcome_due_at"));
        this.revertOf = SELECT + " WHERE reverts = :reverts";
    }

    /** The claim of proposal {@code id}, reading back its whole row. */
    ClaimResult claim(String id, Claim claim, BudgetCharge charge) {
        return claim(id, claim, charge, claimRow, rs -> CallRows.MAPPER.map(rs, null), true);
    }

    /** The claim of a proposal the caller holds, reading back only the two times it sets. */
    ClaimResult claim(CallRecord proposal, Claim claim, BudgetCharge charge) {
        Objects.requireNonNull(proposal, "proposal");
        if (proposal.status() != CallStatus.PROPOSED) {
            return claim(proposal.id(), claim, charge);
        }
        // what a claim leaves alone never changes while the proposal is pending: only the two times it
        // sets are read back (a whole row read back costs about as much again as the update's own work)
        return claim(proposal.id(), claim, charge, claimTimes, rs -> proposal.toBuilder()
                .status(CallStatus.APPLYING)
                .appliedBy(claim.appliedBy())
                .appliedAt(Db.instant(rs, 1))
                .outcomeDueAt(Db.instant(rs, 2))
                .decidedBy(claim.decidedBy())
                .decisionReason(claim.decisionReason())
                .build(), proposal.precondition() != null);
    }

    /**
     * The claim of {@code id} by {@code update}, whose returned row {@code claimed} reads. Without a
     * charge the single-use update is the whole step: one autocommit statement, sent without a JDBI
     * handle (whose set-up is measurable on every apply). With one, a transaction that takes the
     * principal's lock first and admits at the claim's own time, so {@code appliedAt} is when the
     * budget counted it; a refused admission throws and rolls the claim back. A lost claim is then read.
     */
    /**
     * {@code mayConflict}: the proposal may have a precondition, so its claim may violate the index of
     * applying preconditions. On H2 such a claim runs in a transaction even without a charge: a
     * {@code SELECT ... FROM FINAL TABLE (UPDATE ...)} that fails on the index in autocommit mode leaves
     * its update in place (seen with H2 2.x and the generated column the index is on); the rollback of a
     * transaction does not.
     */
    private ClaimResult claim(String id, Claim claim, BudgetCharge charge, PlainSql update,
                              PlainSql.Reader<CallRecord> claimed, boolean mayConflict) {
        try {
            return claimOnce(id, claim, charge, update, claimed, mayConflict && db.dialect() == Dialect.H2);
        } catch (RuntimeException e) {
            if (Db.violates(e, JdbcCallStore.APPLYING_STATE_INDEX)) { // another call of the same precondition is applying
                return new ClaimResult(ClaimResult.Status.CONFLICT, null);
            }
            throw e;
        }
    }

    private ClaimResult claimOnce(String id, Claim claim, BudgetCharge charge, PlainSql update,
                                  PlainSql.Reader<CallRecord> claimed, boolean inTransaction) {
        PlainSql.Binder binder = p -> p
                .string("id", id)
                .string("applied_by", claim.appliedBy().key())
                .string("decided_by", CallRows.key(claim.decidedBy()))
                .string("decision_reason", claim.decisionReason())
                .number("outcome_us", Db.micros(claim.outcomeWithin()))
                .timestamp("now", db.clockInstant());
        if (charge == null && !inTransaction) {
            return db.withConnection(c -> update.queryFirst(c, binder, claimed))
                    .map(record -> new ClaimResult(ClaimResult.Status.CLAIMED, record))
                    .orElseGet(() -> db.withHandle(h -> lostClaim(h, id)));
        }
        return db.inTransaction(h -> {
            if (charge != null) {
                admissions.beforeClaim(h, charge);
            }
            Optional<CallRecord> record = update.queryFirst(h.getConnection(), binder, claimed);
            if (record.isEmpty()) {
                return lostClaim(h, id);
            }
            if (charge != null) {
                admissions.admit(h, charge, record.get().appliedAt());
            }
            return new ClaimResult(ClaimResult.Status.CLAIMED, record.get());
        });
    }

    /** Why a claim matched no row, read right after it. */
    private ClaimResult lostClaim(Handle h, String id) {
        return h.createQuery(selectWithNow)
                .bind("id", id).bind("now", db.now())
                .map((rs, ctx) -> {
                    CallRecord record = CallRows.MAPPER.map(rs, ctx);
                    Instant now = Db.instant(rs, "now_");
                    boolean expired = record.status() == CallStatus.EXPIRED
                            || (record.status() == CallStatus.PROPOSED && !record.pendingAt(now));
                    return new ClaimResult(expired ? ClaimResult.Status.EXPIRED : ClaimResult.Status.NOT_PENDING, record);
                })
                .findOne()
                .orElseGet(() -> new ClaimResult(ClaimResult.Status.NOT_FOUND, null));
    }

    /** One insert of the revert as applying; a caller that lost reads the revert that won. */
    ClaimResult claimRevert(CallRecord revert, Duration outcomeWithin) {
        Objects.requireNonNull(revert.reverts(), "revert.reverts");
        Objects.requireNonNull(outcomeWithin, "outcomeWithin");
        CallRecord draft = revert.toBuilder().status(CallStatus.APPLYING).build();
        PlainSql.Binder binder = p -> CallRows.bind(p, draft)
                .number("outcome_us", Db.micros(outcomeWithin))
                .timestamp("now", db.clockInstant());
        for (int attempt = 1; attempt <= REVERT_ATTEMPTS; attempt++) {
            Optional<CallRecord> claimed;
            try {
                claimed = db.withConnection(c -> claimRevert.queryFirst(c, binder, rs -> draft.toBuilder()
                        .createdAt(Db.instant(rs, 1)).appliedAt(Db.instant(rs, 2)).outcomeDueAt(Db.instant(rs, 3)).build()));
            } catch (UnableToExecuteStatementException e) {
                if (!Db.violates(e, JdbcCallStore.REVERTS_INDEX)) { // H2: another revert of the call is stored
                    throw e;
                }
                claimed = Optional.empty();
            }
            if (claimed.isPresent()) {
                return new ClaimResult(ClaimResult.Status.CLAIMED, claimed.get());
            }
            Optional<CallRecord> earlier = db.withHandle(h -> h.createQuery(revertOf).bind("reverts", revert.reverts())
                    .map(CallRows.MAPPER).findOne());
            if (earlier.isPresent()) {
                return new ClaimResult(ClaimResult.Status.NOT_PENDING, earlier.get());
            }
            // the revert that won is not visible (H2: not committed yet) or was purged since: try again
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
        throw new IllegalStateException("the revert of " + revert.reverts() + " could neither be stored nor read in "
                + REVERT_ATTEMPTS + " attempts");
    }
}
