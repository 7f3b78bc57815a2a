package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.tool.Effect;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The narrow insert of a finished call names a column exactly when its component holds a value: a
 * column mapped to the wrong component would store one field in another's place or drop it.
 */
class CallRowsTest {

    private static final RecordComponent[] COMPONENTS = CallRecord.class.getRecordComponents();

    @Test
    void everyComponentIsTheColumnOfItsOwnName() {
        assertThat(COMPONENTS).hasSize(CallRows.COLUMNS.split(", ").length);
        for (int i = 0; i < COMPONENTS.length; i++) {
            String column = snake(COMPONENTS[i].getName());
            assertThat(CallRows.insertOf(1L << i, Map.of()))
                    .isEqualTo("INSERT INTO toolgate_call (" + column + ") VALUES (:" + column + ")");
        }
    }

    @Test
    void aColumnIsPresentExactlyWhenItsComponentHoldsAValue() throws Exception {
        long every = (1L << COMPONENTS.length) - 1;
        assertThat(CallRows.presentColumns(record(-1))).isEqualTo(every);
        for (int i = 0; i < COMPONENTS.length; i++) {
            CallRecord without;
            try {
                without = record(i);
            } catch (java.lang.reflect.InvocationTargetException required) {
                continue; // a component every record has, or half of a step's (execution, seq) pair
            }
            assertThat(CallRows.presentColumns(without)).as(COMPONENTS[i].getName()).isEqualTo(every & ~(1L << i));
        }
        CallRecord noStep = record(-1).toBuilder().executionId(null).stepSeq(null).build();
        int execution = indexOf("executionId");
        int seq = indexOf("stepSeq");
        assertThat(CallRows.presentColumns(noStep)).isEqualTo(every & ~(1L << execution) & ~(1L << seq));
    }

    @Test
    void expressionsReplaceTheBoundValuesOfTheirColumns() {
        long idAndCreated = (1L << indexOf("id")) | (1L << indexOf("createdAt"));
        assertThat(CallRows.insertOf(idAndCreated, Map.of("created_at", "CURRENT_TIMESTAMP")))
                .isEqualTo("INSERT INTO toolgate_call (id, created_at) VALUES (:id, CURRENT_TIMESTAMP)");
    }

    @Test
    void aShapeWritesItsEnumsAsLiteralsAndBindsTheRest() throws Exception {
        CallRecord read = record(-1).toBuilder().effect(Effect.READ).status(CallStatus.EXECUTED).mode(Mode.ALLOW)
                .modeSource(ModeSource.INFERRED_DEFAULT).build();
        Object[] values = CallRows.values(read);
        long shape = CallRows.shapeOf(values);
        assertThat(shape & ((1L << COMPONENTS.length) - 1)).isEqualTo(CallRows.presentColumns(values));
        String sql = CallRows.insertOf(shape, Map.of());
        String[] columns = sql.substring(sql.indexOf('(') + 1, sql.indexOf(')')).split(", ");
        String[] written = sql.substring(sql.indexOf("VALUES (") + 8, sql.length() - 1).split(", ");
        assertThat(columns).hasSize(COMPONENTS.length).hasSameSizeAs(written);
        Map<String, String> literals = Map.of("effect", "'read'", "status", "'executed'", "mode", "'allow'",
                "mode_source", "'inferred_default'");
        for (int i = 0; i < columns.length; i++) {
            assertThat(written[i]).as(columns[i]).isEqualTo(literals.getOrDefault(columns[i], ":" + columns[i]));
        }
        // each constant of each enum column is its own shape, with its own wire name
        for (Enum<?>[] constants : new Enum<?>[][] {Effect.values(), CallStatus.values(), Mode.values(), ModeSource.values()}) {
            java.util.Set<Long> shapes = new java.util.HashSet<>();
            for (Enum<?> constant : constants) {
                Object[] one = values.clone();
                String name = Map.of(Effect.class, "effect", CallStatus.class, "status", Mode.class, "mode",
                        ModeSource.class, "mode_source").get(constant.getDeclaringClass());
                int column = Arrays.asList(CallRows.COLUMNS.split(", ")).indexOf(name);
                one[column] = constant;
                long oneShape = CallRows.shapeOf(one);
                shapes.add(oneShape);
                String wire = (String) constant.getDeclaringClass().getMethod("wireName").invoke(constant);
                assertThat(CallRows.insertOf(oneShape, Map.of()).split("VALUES \\(")[1].split(", ")[column])
                        .isEqualTo("'" + wire + "'");
            }
            assertThat(shapes).hasSize(constants.length);
        }
        // nothing bound for the literals: the first bound position after id and tool_name is the principal
        java.util.List<Object> bound = new java.util.ArrayList<>();
        java.sql.PreparedStatement recorder = (java.sql.PreparedStatement) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {java.sql.PreparedStatement.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("set")) {
                        assertThat((Integer) args[0]).isEqualTo(bound.size() + 1);
                        bound.add(args[1]);
                    }
                    return null;
                });
        CallRows.bindPresent(recorder, values);
        assertThat(bound).hasSize(COMPONENTS.length - literals.size());
        assertThat(bound.get(2)).isEqualTo(read.principal().key());
        assertThat(bound).noneMatch(v -> v instanceof Enum<?>);
    }

    @Test
    void everyConstantOfEveryEnumIsStoredAsRecordedOnH2() throws Exception {
        everyConstantRoundTrips(TestStores.h2MemoryUrl("call-rows-enums"));
    }

    @Test
    void everyConstantOfEveryEnumIsStoredAsRecordedOnPostgres() throws Exception {
        everyConstantRoundTrips(PostgresDatabase.freshSchema("call_rows_enums"));
    }

    @Test
    void aProposalsInsertNamesTheColumnsItFillsAndTheTwoTheStoreComputes() throws Exception {
        ProposalShapes shapes = new ProposalShapes(Dialect.POSTGRESQL, "CREATED()", "EXPIRES()", "ROOM()");
        CallRecord proposal = record(-1).toBuilder().status(CallStatus.PROPOSED).effect(Effect.MUTATE)
                .mode(Mode.REQUIRE_APPROVAL).modeSource(ModeSource.INFERRED_DEFAULT).createdAt(null).expiresAt(null)
                .completedAt(null).durationMillis(null).resultJson(null).error(null).appliedBy(null).appliedAt(null)
                .outcomeDueAt(null).decidedBy(null).decisionReason(null).supersededBy(null).executionId(null)
                .stepSeq(null).reverts(null).revertedBy(null).precondition(null).preconditionJson(null).build();
        String anywhere = shapes.anywhere(proposal).named();
        assertThat(anywhere).startsWith("INSERT INTO toolgate_call (id, tool_name, effect, principal, tenant_id, session_id,"
                + " automation_id, transport, status, mode, mode_source, arguments_hash, created_at, summary, payload_json,"
                + " diff_json, token_digest, expires_at, supersedes) VALUES (:id, :tool_name, 'mutate', :principal,"
                + " :tenant_id, :session_id, :automation_id, :transport, 'proposed', 'require_approval',"
                + " 'inferred_default', :arguments_hash, CREATED(), :summary, :payload_json, :diff_json, :token_digest,"
                + " EXPIRES(), :supersedes)").endsWith(" RETURNING created_at, expires_at");
        assertThat(shapes.inSession(proposal).named()).contains(" SELECT :id, :tool_name, 'mutate', ")
                .contains(" FROM (SELECT 1 AS one) AS single WHERE ROOM() RETURNING created_at, expires_at");
        assertThat(shapes.anywhere(proposal)).isSameAs(shapes.anywhere(proposal));
        assertThat(shapes.size()).isEqualTo(2);
        // a proposal that fills another column is a shape of its own; past the cap, none (the full insert)
        assertThat(shapes.anywhere(proposal.toBuilder().summary(null).build()).named()).doesNotContain("summary");
        for (int i = 0; shapes.size() < 2 * ProposalShapes.MAX_SHAPES; i++) {
            shapes.inSession(proposal.toBuilder().tenantId(i % 2 == 0 ? null : "t").summary(i % 4 < 2 ? null : "s")
                    .diffJson(i % 8 < 4 ? null : "{}").automationId(i % 16 < 8 ? null : "a").supersedes(i % 32 < 16 ? null : "p")
                    .sessionId(i % 64 < 32 ? null : "s").mode(Mode.values()[(i / 64) % Mode.values().length]).build());
            shapes.anywhere(proposal.toBuilder().tenantId(i % 2 == 0 ? null : "t").summary(i % 4 < 2 ? null : "s")
                    .diffJson(i % 8 < 4 ? null : "{}").automationId(i % 16 < 8 ? null : "a").supersedes(i % 32 < 16 ? null : "p")
                    .sessionId(i % 64 < 32 ? null : "s").mode(Mode.values()[(i / 64) % Mode.values().length]).build());
        }
        assertThat(shapes.anywhere(proposal.toBuilder().modeSource(ModeSource.TENANT_DEFAULT).build())).isNull();
        assertThat(shapes.inSession(proposal.toBuilder().modeSource(ModeSource.TENANT_DEFAULT).build())).isNull();
    }

    @Test
    void everyShapeOfAProposalIsStoredAsProposedOnH2() throws Exception {
        proposalsRoundTrip(TestStores.h2MemoryUrl("call-rows-proposals"));
    }

    @Test
    void everyShapeOfAProposalIsStoredAsProposedOnPostgres() throws Exception {
        proposalsRoundTrip(PostgresDatabase.freshSchema("call_rows_proposals"));
    }

    /**
     * Each proposal, with every component a proposal has and then without each one it can go without, in a
     * session and outside one, each component holding a value of its own, comes back from the store as
     * proposed (with the times the store set).
     */
    private static void proposalsRoundTrip(String url) throws Exception {
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).build()) {
            java.util.Set<String> unset = java.util.Set.of("completedAt", "durationMillis", "resultJson", "error",
                    "appliedBy", "appliedAt", "outcomeDueAt", "decidedBy", "decisionReason", "supersededBy", "executionId",
                    "stepSeq", "reverts", "revertedBy");
            int shapes = 0;
            for (boolean inSession : new boolean[] {false, true}) {
                for (int nulled = -1; nulled < COMPONENTS.length; nulled++) {
                    if (nulled >= 0 && unset.contains(COMPONENTS[nulled].getName())) {
                        continue;
                    }
                    CallRecord full;
                    try {
                        full = distinct(nulled, shapes + 1000);
                    } catch (java.lang.reflect.InvocationTargetException required) {
                        continue;
                    }
                    CallRecord.Builder b = full.toBuilder().status(CallStatus.PROPOSED).completedAt(null).durationMillis(null)
                            .resultJson(null).error(null).appliedBy(null).appliedAt(null).outcomeDueAt(null).decidedBy(null)
                            .decisionReason(null).supersededBy(null).executionId(null).stepSeq(null).reverts(null)
                            .revertedBy(null).expiresAt(null);
                    if (!inSession) {
                        b.sessionId(null);
                    } else if (full.sessionId() == null) {
                        continue;
                    }
                    CallRecord proposal = b.build();
                    if (proposal.tokenDigest() == null || proposal.payloadJson() == null) {
                        continue; // a proposal needs both
                    }
                    dev.toolgate.spi.CallStore.ProposeResult result = store.calls().propose(proposal, Duration.ofMinutes(5), 100);
                    assertThat(result.status()).isEqualTo(dev.toolgate.spi.CallStore.ProposeResult.Status.PROPOSED);
                    CallRecord stored = result.record();
                    String without = nulled < 0 ? "nothing" : COMPONENTS[nulled].getName();
                    assertThat(store.calls().find(stored.id())).as("without %s, in a session: %s", without, inSession)
                            .contains(stored);
                    assertThat(stored.toBuilder().createdAt(proposal.createdAt()).expiresAt(null).build())
                            .as("without %s", without).isEqualTo(proposal);
                    assertThat(stored.expiresAt()).isAfter(stored.createdAt());
                    shapes++;
                }
            }
            assertThat(shapes).isGreaterThanOrEqualTo(15);
        }
    }

    /** Each effect, recordable status, mode and mode source, the others fixed, reads back as recorded. */
    private static void everyConstantRoundTrips(String url) throws Exception {
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).build()) {
            CallRecord base = distinct(-1, 0).toBuilder().executionId(null).stepSeq(null).reverts(null).build();
            java.util.List<CallRecord> records = new java.util.ArrayList<>();
            for (Effect effect : Effect.values()) {
                records.add(base.toBuilder().effect(effect).build());
            }
            for (CallStatus status : new CallStatus[] {CallStatus.EXECUTED, CallStatus.FAILED, CallStatus.INVALID, CallStatus.DENIED}) {
                records.add(base.toBuilder().status(status).build());
            }
            for (Mode mode : Mode.values()) {
                records.add(base.toBuilder().mode(mode).build());
            }
            for (ModeSource source : ModeSource.values()) {
                records.add(base.toBuilder().modeSource(source).build());
            }
            int n = 0;
            for (CallRecord record : records) {
                CallRecord unique = record.toBuilder().id("enum-" + n++).build();
                CallRecord stored = store.calls().record(unique);
                assertThat(store.calls().find(stored.id())).contains(stored);
                assertThat(stored.toBuilder().createdAt(unique.createdAt()).completedAt(unique.completedAt()).build())
                        .isEqualTo(unique);
            }
        }
    }

    @Test
    void everyShapeOfAFinishedRowIsStoredAsRecordedOnH2() throws Exception {
        roundTrips(TestStores.h2MemoryUrl("call-rows"));
    }

    @Test
    void everyShapeOfAFinishedRowIsStoredAsRecordedOnPostgres() throws Exception {
        roundTrips(PostgresDatabase.freshSchema("call_rows"));
    }

    /**
     * Each finished record, with every component and then without each one it can go without, each
     * component holding a value of its own (a value bound at another column's position would show),
     * comes back from the store as recorded: the narrow insert binds by position.
     */
    private static void roundTrips(String url) throws Exception {
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).build()) {
            int shapes = 0;
            for (int nulled = -1; nulled < COMPONENTS.length; nulled++) {
                CallRecord record;
                try {
                    record = distinct(nulled, shapes);
                } catch (java.lang.reflect.InvocationTargetException required) {
                    continue;
                }
                CallRecord stored = store.calls().record(record);
                assertThat(store.calls().find(stored.id())).as("without %s", nulled < 0 ? "nothing" : COMPONENTS[nulled].getName())
                        .contains(stored);
                // the store sets the times a finished row gets (a missing creation time, the completion time)
                assertThat(stored.toBuilder().createdAt(record.createdAt()).completedAt(record.completedAt()).build())
                        .isEqualTo(record);
                shapes++;
            }
            assertThat(shapes).isGreaterThan(20);
        }
    }

    /** A finished record with a value of its own in every component but {@code nulled}; ids differ by {@code n}. */
    private static CallRecord distinct(int nulled, int n) throws Exception {
        Object[] values = new Object[COMPONENTS.length];
        for (int i = 0; i < COMPONENTS.length; i++) {
            Class<?> type = COMPONENTS[i].getType();
            String name = COMPONENTS[i].getName();
            Object value;
            if (type == String.class) {
                value = name + "-" + n; // a step (execution, seq) is logged once: each record is its own
            } else if (type == Instant.class) { // microseconds, the databases' precision; completedAt the latest
                value = Instant.parse("2026-01-02T03:04:05Z").plusSeconds(i).plusNanos(1_000L * i);
            } else if (type == Long.class) {
                value = 7L + i;
            } else if (type == Integer.class) {
                value = 3 + i;
            } else if (type == PrincipalRef.class) {
                value = new PrincipalRef(dev.toolgate.access.PrincipalKind.USER, name);
            } else if (type == CallStatus.class) {
                value = CallStatus.EXECUTED;
            } else {
                value = sample(type);
            }
            values[i] = i == nulled ? null : value;
        }
        Constructor<CallRecord> canonical = CallRecord.class.getDeclaredConstructor(
                Arrays.stream(COMPONENTS).map(RecordComponent::getType).toArray(Class<?>[]::new));
        return canonical.newInstance(values);
    }

    /** A record with every component set, but component {@code nulled} (none if negative). */
    private static CallRecord record(int nulled) throws Exception {
        Object[] values = new Object[COMPONENTS.length];
        for (int i = 0; i < COMPONENTS.length; i++) {
            values[i] = i == nulled ? null : sample(COMPONENTS[i].getType());
        }
        Constructor<CallRecord> canonical = CallRecord.class.getDeclaredConstructor(
                Arrays.stream(COMPONENTS).map(RecordComponent::getType).toArray(Class<?>[]::new));
        return canonical.newInstance(values);
    }

    private static Object sample(Class<?> type) {
        if (type == String.class) {
            return "x";
        } else if (type == Instant.class) {
            return Instant.parse("2026-01-02T03:04:05Z");
        } else if (type == Long.class) {
            return 7L;
        } else if (type == Integer.class) {
            return 3;
        } else if (type == PrincipalRef.class) {
            return new PrincipalRef(dev.toolgate.access.PrincipalKind.USER, "ann");
        } else if (type == Effect.class) {
            return Effect.MUTATE;
        } else if (type == CallStatus.class) {
            return CallStatus.APPLIED;
        } else if (type == Mode.class) {
            return Mode.ALLOW;
        } else if (type == ModeSource.class) {
            return ModeSource.values()[0];
        }
        throw new IllegalStateException("no sample of " + type);
    }

    private static int indexOf(String component) {
        for (int i = 0; i < COMPONENTS.length; i++) {
            if (COMPONENTS[i].getName().equals(component)) {
                return i;
            }
        }
        throw new IllegalArgumentException(component);
    }

    private static String snake(String camel) {
        return camel.replaceAll("([A-Z])", "_$1").toLowerCase(Locale.ROOT);
    }
}
