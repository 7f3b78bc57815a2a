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
