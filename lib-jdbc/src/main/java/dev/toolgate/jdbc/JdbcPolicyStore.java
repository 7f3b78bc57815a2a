package dev.toolgate.jdbc;

import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeOverride;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PolicyView;
import dev.toolgate.policy.ToolReview;
import dev.toolgate.spi.PolicyStore;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * Mode overrides and schema reviews in {@code toolgate_mode_override} and {@code toolgate_tool_review}.
 * {@link #view} reads both overrides and the review in one query (one round trip per governed call);
 * writes are single upserts.
 */
final class JdbcPolicyStore implements PolicyStore {

    private static final String OVERRIDE_COLUMNS = "scope, scope_id, tool_name, mode, set_by, set_at";
    private static final String REVIEW_COLUMNS = "tenant_id, tool_name, fingerprint, reviewed_by, reviewed_at";

    /**
     * The automation's and the tenant's overrides of one tool and the tenant's review, as one row of
     * one query: three primary-key lookups joined to a single-row anchor (a UNION is re-planned on
     * every execution by H2 and costs ten times as much there).
     */
    private static final PlainSql VIEW = PlainSql.of("SELECT a.mode AS a_mode, a.set_by AS a_by, a.set_at AS a_at,"
            + " t.mode AS t_mode, t.set_by AS t_by, t.set_at AS t_at,"
            + " r.fingerprint AS r_fingerprint, r.reviewed_by AS r_by, r.reviewed_at AS r_at"
            + " FROM (VALUES (1)) AS anchor(x)"
            + " LEFT JOIN toolgate_mode_override a"
            + " ON a.scope = 'automation' AND a.scope_id = :automation_id AND a.tool_name = :tool_name"
            + " LEFT JOIN toolgate_mode_override t"
            + " ON t.scope = 'tenant' AND t.scope_id = :tenant_id AND t.tool_name = :tool_name"
            + " LEFT JOIN toolgate_tool_review r ON r.tenant_id = :tenant_key AND r.tool_name = :tool_name");

    private final Db db;
    private final String putOverride;
    private final String putReview;
    private final String addReview;

    JdbcPolicyStore(Db db) {
        this.db = db;
        Dialect dialect = db.dialect();
        String now = db.nowSql();
        this.putOverride = dialect.upsert("toolgate_mode_override", "scope, scope_id, tool_name", OVERRIDE_COLUMNS,
                ":scope, :scope_id, :tool_name, :mode, :set_by, " + now);
        String reviewValues = ":tenant_id, :tool_name, :fingerprint, :reviewed_by, " + now;
        this.putReview = dialect.upsert("toolgate_tool_review", "tenant_id, tool_name", REVIEW_COLUMNS, reviewValues);
        this.addReview = dialect.insertIfAbsent("toolgate_tool_review", "tenant_id, tool_name", REVIEW_COLUMNS, reviewValues);
    }

    @Override
    public PolicyView view(String toolName, String tenantId, String automationId) {
        return db.withConnection(c -> VIEW.queryFirst(c, p -> p
                        .string("tool_name", toolName)
                        .string("automation_id", automationId)
                        .string("tenant_id", tenantId)
                        .string("tenant_key", tenantId == null ? "" : tenantId),
                rs -> new PolicyView(
                        override(rs, "a_", OverrideScope.AUTOMATION, automationId, toolName),
                        override(rs, "t_", OverrideScope.TENANT, tenantId, toolName),
                        rs.getString("r_fingerprint") == null ? Optional.empty()
                                : Optional.of(new ToolReview(tenantId == null ? "" : tenantId, toolName,
                                        rs.getString("r_fingerprint"), CallRows.principal(rs.getString("r_by")),
                                        Db.instant(rs, "r_at")))))
                .orElseThrow());
    }

    private static Optional<ModeOverride> override(ResultSet rs, String prefix, OverrideScope scope, String scopeId,
                                                   String toolName) throws SQLException {
        String mode = rs.getString(prefix + "mode");
        return mode == null ? Optional.empty() : Optional.of(new ModeOverride(scope, scopeId, toolName, Mode.fromWireName(mode),
                CallRows.principal(rs.getString(prefix + "by")), Db.instant(rs, prefix + "at")));
    }

    @Override
    public void putOverride(ModeOverride override) {
        db.withHandle(h -> h.createUpdate(putOverride)
                .bind("scope", override.scope().wireName())
                .bind("scope_id", override.scopeId())
                .bind("tool_name", override.toolName())
                .bind("mode", override.mode().wireName())
                .bind("set_by", override.setBy().key())
                .bind("now", db.now())
                .execute());
    }

    @Override
    public boolean removeOverride(OverrideScope scope, String scopeId, String toolName) {
        return db.withHandle(h -> h.createUpdate("DELETE FROM toolgate_mode_override"
                        + " WHERE scope = :scope AND scope_id = :scope_id AND tool_name = :tool_name")
                .bind("scope", scope.wireName()).bind("scope_id", scopeId).bind("tool_name", toolName)
                .execute()) > 0;
    }

    @Override
    public List<ModeOverride> overrides(OverrideScope scope, String scopeId) {
        return db.withHandle(h -> h.createQuery("SELECT tool_name, mode, set_by, set_at FROM toolgate_mode_override"
                        + " WHERE scope = :scope AND scope_id = :scope_id ORDER BY tool_name")
                .bind("scope", scope.wireName()).bind("scope_id", scopeId)
                .map((rs, ctx) -> new ModeOverride(scope, scopeId, rs.getString("tool_name"),
                        Mode.fromWireName(rs.getString("mode")), CallRows.principal(rs.getString("set_by")),
                        Db.instant(rs, "set_at")))
                .list());
    }

    @Override
    public ToolReview reviewIfAbsent(ToolReview review) {
        return db.withHandle(h -> {
            try {
                bindReview(h.createUpdate(addReview), review).execute();
            } catch (UnableToExecuteStatementException e) {
                if (!Db.isUniqueViolation(e)) {
                    throw e;
                }
            }
            return findReview(h, review.tenantId(), review.toolName());
        });
    }

    @Override
    public void putReview(ToolReview review) {
        db.withHandle(h -> bindReview(h.createUpdate(putReview), review).execute());
    }

    private org.jdbi.v3.core.statement.Update bindReview(org.jdbi.v3.core.statement.Update update, ToolReview review) {
        return update.bind("tenant_id", review.tenantId())
                .bind("tool_name", review.toolName())
                .bind("fingerprint", review.fingerprint())
                .bind("reviewed_by", review.reviewedBy().key())
                .bind("now", db.now());
    }

    private static ToolReview findReview(Handle h, String tenantId, String toolName) {
        return h.createQuery("SELECT fingerprint, reviewed_by, reviewed_at FROM toolgate_tool_review"
                        + " WHERE tenant_id = :tenant_id AND tool_name = :tool_name")
                .bind("tenant_id", tenantId).bind("tool_name", toolName)
                .map((rs, ctx) -> new ToolReview(tenantId, toolName, rs.getString("fingerprint"),
                        CallRows.principal(rs.getString("reviewed_by")), Db.instant(rs, "reviewed_at")))
                .one();
    }
}
