package dev.toolgate.jdbc;

import dev.toolgate.audit.CallRecord;
import java.util.Map;

/**
 * A proposal's insert narrowed to the columns the proposal fills, its effect, status, mode and mode
 * source written as literals, one statement per shape ({@link CallRows#shapeOf}), as a finished call's
 * insert is: the insert of all 33 columns bound a proposal's empty half as nulls, each a parameter on
 * both ends (under {@code CallRows.bind}, 8 % of the calling threads' samples of a propose + apply pair
 * at 4 threads on PostgreSQL). The statements take the same named parameters as the full ones; a name
 * a narrowed statement does not use is not bound. Up to {@value #MAX_SHAPES} shapes each, then null:
 * the caller uses the full statement.
 */
final class ProposalShapes {

    /** Shapes kept for each of the two statements (a host's proposals take a handful). */
    static final int MAX_SHAPES = 64;

    private final Dialect dialect;
    private final Map<String, String> expressions;
    private final String room;
    /** Columns every proposal's row names: the store computes them. */
    private final long computed;
    private final ShapeCache anywhere = new ShapeCache(MAX_SHAPES, shape -> sql(shape, false));
    private final ShapeCache inSession = new ShapeCache(MAX_SHAPES, shape -> sql(shape, true));

    /**
     * @param createdAt SQL of the row's creation time
     * @param expiresAt SQL of its expiry
     * @param room      the condition that the session has room for one more pending proposal
     */
    ProposalShapes(Dialect dialect, String createdAt, String expiresAt, String room) {
        this.dialect = dialect;
        this.expressions = Map.of("created_at", createdAt, "expires_at", expiresAt);
        this.room = room;
        this.computed = CallRows.bit("created_at") | CallRows.bit("expires_at");
    }

    /** The insert of {@code proposal} outside a session, returning its two times; null past the cap. */
    PlainSql anywhere(CallRecord proposal) {
        return anywhere.get(shape(proposal));
    }

    /** The insert of {@code proposal} if its session has room, returning its two times; null past the cap. */
    PlainSql inSession(CallRecord proposal) {
        return inSession.get(shape(proposal));
    }

    /** How many shapes the two statements hold (tests). */
    int size() {
        return anywhere.size() + inSession.size();
    }

    private long shape(CallRecord proposal) {
        return CallRows.shapeOf(CallRows.values(proposal)) | computed;
    }

    /** The SQL of {@code shape}'s insert (tests read it). */
    String sql(long shape, boolean session) {
        String[] columnsAndValues = CallRows.columnsAndValues(shape, expressions);
        String insert = "INSERT INTO " + CallRows.TABLE + " (" + columnsAndValues[0] + ")"
                + (session ? " SELECT " + columnsAndValues[1] + " FROM (SELECT 1 AS one) AS single WHERE " + room
                        : " VALUES (" + columnsAndValues[1] + ")");
        return dialect.returning(insert, "created_at, expires_at");
    }
}
