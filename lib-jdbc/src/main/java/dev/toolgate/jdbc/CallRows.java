package dev.toolgate.jdbc;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.tool.Effect;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * How a {@link CallRecord} maps to a {@code toolgate_call} row: one column per component, principals
 * as their {@code <kind>:<id>} key, enums as their lower-case wire names.
 */
final class CallRows {

    static final String TABLE = "toolgate_call";

    /** Every column, in {@link CallRecord} component order. */
    static final String COLUMNS = "id, tool_name, effect, principal, tenant_id, session_id, automation_id, transport, "
            + "status, mode, mode_source, arguments_hash, created_at, summary, payload_json, diff_json, token_digest, "
            + "expires_at, result_json, error, completed_at, duration_millis, applied_by, applied_at, outcome_due_at, "
            + "decided_by, decision_reason, supersedes, superseded_by, execution_id, step_seq, reverts, reverted_by, "
            + "precondition, precondition_json";

    /** {@link #COLUMNS} one by one, in the same order. */
    private static final String[] COLUMN_NAMES = COLUMNS.split(", ");

    /** Reads a row selected with {@link #COLUMNS}. */
    static final RowMapper<CallRecord> MAPPER = CallRows::map;

    private CallRows() {
    }

    /**
     * The {@code VALUES} list for {@link #COLUMNS}, with SQL for the three times the store sets:
     * {@code created_at}, {@code expires_at} and {@code completed_at}.
     */
    static String values(String createdAt, String expiresAt, String completedAt) {
        return values(createdAt, expiresAt, completedAt, ":applied_at", ":outcome_due_at");
    }

    /** {@link #values(String, String, String)} with SQL for {@code applied_at} and {@code outcome_due_at} too. */
    static String values(String createdAt, String expiresAt, String completedAt, String appliedAt, String outcomeDueAt) {
        return ":id, :tool_name, :effect, :principal, :tenant_id, :session_id, :automation_id, :transport, "
                + ":status, :mode, :mode_source, :arguments_hash, " + createdAt + ", :summary, :payload_json, :diff_json, "
                + ":token_digest, " + expiresAt + ", :result_json, :error, " + completedAt + ", :duration_millis, :applied_by, "
                + appliedAt + ", " + outcomeDueAt + ", :decided_by, :decision_reason, :supersedes, :superseded_by, "
                + ":execution_id, :step_seq, :reverts, :reverted_by, :precondition, :precondition_json";
    }

    /**
     * {@code call} with the times a finished call's row gets at {@code now}: its {@code createdAt} (an
     * admission's time) or {@code now}, and {@code now} as {@code completedAt}, never before {@code createdAt}.
     */
    static CallRecord finished(CallRecord call, Instant now) {
        Instant created = call.createdAt() != null ? call.createdAt() : now;
        return call.toBuilder().createdAt(created).completedAt(now.isBefore(created) ? created : now).build();
    }

    /**
     * Which columns of {@code r}'s row hold a value: bit {@code i} for the {@code i}-th of {@link #COLUMNS}
     * (a column the row leaves out is null: none has a default).
     */
    static long presentColumns(CallRecord r) {
        return presentColumns(values(r));
    }

    /** {@link #presentColumns(CallRecord)} of a record's {@link #values}. */
    static long presentColumns(Object[] values) {
        long present = 0;
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null) {
                present |= 1L << i;
            }
        }
        return present;
    }

    /** The value of each of {@link #COLUMNS} as the record holds it (null for a column left empty). */
    static Object[] values(CallRecord r) {
        return new Object[] {r.id(), r.toolName(), r.effect(), r.principal(), r.tenantId(), r.sessionId(), r.automationId(),
            r.transport(), r.status(), r.mode(), r.modeSource(), r.argumentsHash(), r.createdAt(), r.summary(),
            r.payloadJson(), r.diffJson(), r.tokenDigest(), r.expiresAt(), r.resultJson(), r.error(), r.completedAt(),
            r.durationMillis(), r.appliedBy(), r.appliedAt(), r.outcomeDueAt(), r.decidedBy(), r.decisionReason(),
            r.supersedes(), r.supersededBy(), r.executionId(), r.stepSeq(), r.reverts(), r.revertedBy(), r.precondition(),
            r.preconditionJson()};
    }

    /** Where the enum columns are among {@link #COLUMNS}, in the order of their fields in a {@link #shapeOf}. */
    private static final int[] ENUM_COLUMNS = {column("effect"), column("status"), column("mode"), column("mode_source")};
    /** The wire names of each enum column's constants, by ordinal; each checked to need no quoting. */
    private static final String[][] ENUM_WIRE_NAMES = {
        wireNames(Effect.values(), Effect::wireName), wireNames(CallStatus.values(), CallStatus::wireName),
        wireNames(Mode.values(), Mode::wireName), wireNames(ModeSource.values(), ModeSource::wireName)};
    /** Where a {@link #shapeOf}'s enum fields start: above every column's bit. */
    private static final int ENUM_SHIFT = 40;
    /** The width of each enum field: ordinals up to 30 (0 means not a literal). */
    private static final int ENUM_BITS = 5;

    private static <E extends Enum<E>> String[] wireNames(E[] constants, java.util.function.Function<E, String> wireName) {
        if (constants.length >= (1 << ENUM_BITS)) {
            throw new IllegalStateException(constants[0].getDeclaringClass().getSimpleName() + " has more constants than"
                    + " a shape's field holds");
        }
        String[] names = new String[constants.length];
        for (E constant : constants) {
            String name = wireName.apply(constant);
            if (!name.matches("[a-z_]+")) { // written into SQL as a literal
                throw new IllegalStateException("wire name '" + name + "' is not a plain lower-case word");
            }
            names[constant.ordinal()] = name;
        }
        return names;
    }

    /** Where {@code created_at} and {@code completed_at} are among {@link #COLUMNS}. */
    private static final int CREATED_AT = column("created_at");
    private static final int COMPLETED_AT = column("completed_at");

    /** Where {@code name} is among {@link #COLUMNS}. */
    private static int column(String name) {
        int i = java.util.Arrays.asList(COLUMN_NAMES).indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("no column " + name);
        }
        return i;
    }

    /**
     * The shape of a record's {@link #values}: its {@link #presentColumns} in the low bits, and, for each
     * of its enum columns (effect, status, mode, mode_source), the constant's ordinal + 1 in a field of
     * {@value #ENUM_BITS} bits from bit {@value #ENUM_SHIFT}. {@link #insertOf} writes such a column's
     * wire name into the statement as a literal: a closed set of lower-case names, never input, and one
     * parameter fewer to bind on both ends for each (a read's row has four).
     */
    static long shapeOf(Object[] values) {
        long shape = presentColumns(values);
        for (int k = 0; k < ENUM_COLUMNS.length; k++) {
            if (values[ENUM_COLUMNS[k]] instanceof Enum<?> constant) {
                shape |= (long) (constant.ordinal() + 1) << (ENUM_SHIFT + k * ENUM_BITS);
            }
        }
        return shape;
    }

    /**
     * Binds a record's {@link #values} to the insert {@link #insertOf} made for its {@link #shapeOf}, with
     * {@link #TIMES_AS_MICROS}: each value that is there and not written as a literal, in column order, at
     * the next position. No parameter is looked up by name (on PostgreSQL the 33 lookups of {@link #bind}
     * were about a microsecond of a governed read's own time).
     */
    static void bindPresent(PreparedStatement statement, Object[] values) throws SQLException {
        int position = 0;
        for (int i = 0; i < values.length; i++) {
            Object value = values[i];
            if (value == null || value instanceof Enum<?>) { // an enum is a literal of the shape's insert
                continue;
            }
            position++;
            if (value instanceof String text) {
                statement.setString(position, text);
            } else if (value instanceof Instant instant) {
                if (i == CREATED_AT || i == COMPLETED_AT) {
                    statement.setLong(position, Db.epochMicros(instant));
                } else {
                    statement.setObject(position, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
                }
            } else if (value instanceof Long number) {
                statement.setLong(position, number);
            } else if (value instanceof Integer number) {
                statement.setInt(position, number);
            } else if (value instanceof PrincipalRef principal) {
                statement.setString(position, principal.key());
            } else {
                throw new IllegalStateException("no binding for a " + value.getClass().getName() + " in column "
                        + COLUMN_NAMES[i]);
            }
        }
    }

    /** The SQL of the two times {@link #bindPresent} binds as microseconds since the epoch. */
    static final java.util.Map<String, String> TIMES_AS_MICROS = java.util.Map.of(
            "created_at", Db.fromEpochMicros("created_us"), "completed_at", Db.fromEpochMicros("completed_us"));

    /**
     * An {@code INSERT} of the columns in {@code shape} (see {@link #shapeOf}; the low bits name the
     * columns, as {@link #presentColumns}), each bound as {@code :column}, or as the SQL {@code expressions}
     * gives for it, or, for an enum column whose constant the shape holds, as that constant's wire name
     * in quotes.
     */
    static String insertOf(long shape, java.util.Map<String, String> expressions) {
        String[] columnsAndValues = columnsAndValues(shape, expressions);
        return "INSERT INTO " + TABLE + " (" + columnsAndValues[0] + ") VALUES (" + columnsAndValues[1] + ")";
    }

    /** The column list and the value list of {@link #insertOf}, apart: {@code {columns, values}}. */
    static String[] columnsAndValues(long shape, java.util.Map<String, String> expressions) {
        StringBuilder columns = new StringBuilder();
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < COLUMN_NAMES.length; i++) {
            if ((shape & (1L << i)) != 0) {
                String column = COLUMN_NAMES[i];
                String literal = enumLiteral(shape, i);
                columns.append(columns.length() == 0 ? "" : ", ").append(column);
                values.append(values.length() == 0 ? "" : ", ")
                        .append(literal != null ? literal : expressions.getOrDefault(column, ":" + column));
            }
        }
        return new String[] {columns.toString(), values.toString()};
    }

    /** The bit of {@code column} in a {@link #presentColumns} or {@link #shapeOf}. */
    static long bit(String column) {
        return 1L << column(column);
    }

    /** The quoted wire name {@code shape} holds for column {@code i}, or null if it holds none. */
    private static String enumLiteral(long shape, int i) {
        for (int k = 0; k < ENUM_COLUMNS.length; k++) {
            if (ENUM_COLUMNS[k] == i) {
                int code = (int) (shape >>> (ENUM_SHIFT + k * ENUM_BITS)) & ((1 << ENUM_BITS) - 1);
                return code == 0 ? null : "'" + ENUM_WIRE_NAMES[k][code - 1] + "'";
            }
        }
        return null;
    }

    /** Binds every column of {@link #values}, including {@code :created_at} (null lets the SQL decide). */
    static PlainSql.Params bind(PlainSql.Params p, CallRecord r) throws SQLException {
        return p.string("id", r.id())
                .string("tool_name", r.toolName())
                .string("effect", r.effect().wireName())
                .string("principal", r.principal().key())
                .string("tenant_id", r.tenantId())
                .string("session_id", r.sessionId())
                .string("automation_id", r.automationId())
                .string("transport", r.transport())
                .string("status", r.status().wireName())
                .string("mode", r.mode().wireName())
                .string("mode_source", r.modeSource().wireName())
                .string("arguments_hash", r.argumentsHash())
                .timestamp("created_at", r.createdAt())
                .string("summary", r.summary())
                .string("payload_json", r.payloadJson())
                .string("diff_json", r.diffJson())
                .string("token_digest", r.tokenDigest())
                .timestamp("expires_at", r.expiresAt())
                .string("result_json", r.resultJson())
                .string("error", r.error())
                .timestamp("completed_at", r.completedAt())
                .number("duration_millis", r.durationMillis())
                .string("applied_by", key(r.appliedBy()))
                .timestamp("applied_at", r.appliedAt())
                .timestamp("outcome_due_at", r.outcomeDueAt())
                .string("decided_by", key(r.decidedBy()))
                .string("decision_reason", r.decisionReason())
                .string("supersedes", r.supersedes())
                .string("superseded_by", r.supersededBy())
                .string("execution_id", r.executionId())
                .integerOrNull("step_seq", r.stepSeq())
                .string("reverts", r.reverts())
                .string("reverted_by", r.revertedBy())
                .string("precondition", r.precondition())
                .string("precondition_json", r.preconditionJson());
    }

    /** A principal's key, or null. */
    static String key(PrincipalRef principal) {
        return principal == null ? null : principal.key();
    }

    /** Parses {@code <kind>:<id>}; the kind never contains a colon, the id may. */
    static PrincipalRef principal(String key) {
        if (key == null) {
            return null;
        }
        int colon = key.indexOf(':');
        if (colon < 1) {
            throw new IllegalStateException("malformed principal key in the audit trail: '" + key + "'");
        }
        return new PrincipalRef(PrincipalKind.valueOf(key.substring(0, colon).toUpperCase(Locale.ROOT)), key.substring(colon + 1));
    }

    private static CallRecord map(ResultSet rs, org.jdbi.v3.core.statement.StatementContext context) throws SQLException {
        long duration = rs.getLong("duration_millis");
        Long durationMillis = rs.wasNull() ? null : duration;
        int seq = rs.getInt("step_seq");
        Integer stepSeq = rs.wasNull() ? null : seq;
        return new CallRecord(
                rs.getString("id"),
                rs.getString("tool_name"),
                Effect.fromWireName(rs.getString("effect")),
                principal(rs.getString("principal")),
                rs.getString("tenant_id"),
                rs.getString("session_id"),
                rs.getString("automation_id"),
                rs.getString("transport"),
                CallStatus.fromWireName(rs.getString("status")),
                Mode.fromWireName(rs.getString("mode")),
                ModeSource.valueOf(rs.getString("mode_source").toUpperCase(Locale.ROOT)),
                rs.getString("arguments_hash"),
                Db.instant(rs, "created_at"),
                rs.getString("summary"),
                rs.getString("payload_json"),
                rs.getString("diff_json"),
                rs.getString("token_digest"),
                Db.instant(rs, "expires_at"),
                rs.getString("result_json"),
                rs.getString("error"),
                Db.instant(rs, "completed_at"),
                durationMillis,
                principal(rs.getString("applied_by")),
                Db.instant(rs, "applied_at"),
                Db.instant(rs, "outcome_due_at"),
                principal(rs.getString("decided_by")),
                rs.getString("decision_reason"),
                rs.getString("supersedes"),
                rs.getString("superseded_by"),
                rs.getString("execution_id"),
                stepSeq,
                rs.getString("reverts"),
                rs.getString("reverted_by"),
                rs.getString("precondition"),
                rs.getString("precondition_json"));
    }
}
