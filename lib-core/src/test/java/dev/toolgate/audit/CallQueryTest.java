package dev.toolgate.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallQuery.Cursor;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.tool.Effect;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link CallQuery}'s time bounds and cursor, and {@link Cursor}'s text form. */
class CallQueryTest {

    private static final Instant T = Instant.parse("2026-11-27T05:00:00.123456Z");

    private static CallRecord at(Instant createdAt, String id) {
        return CallRecord.builder().id(id).toolName("notes.list").effect(Effect.READ)
                .principal(new PrincipalRef(PrincipalKind.USER, "ann")).transport("java").status(CallStatus.EXECUTED)
                .mode(Mode.ALLOW).modeSource(ModeSource.INFERRED_DEFAULT).argumentsHash("a".repeat(64))
                .createdAt(createdAt).build();
    }

    private static String b64(String plain) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aCursorSurvivesItsTextForm() {
        for (Cursor c : new Cursor[] {new Cursor(T, "0b7c8a4e-1d2f-4f7a-9a51-3c3e2d1f0a99"), new Cursor(Instant.EPOCH, "x"),
                new Cursor(T.plusNanos(789), "id.with.dots"), new Cursor(CallQuery.MAX_TIME, "ü/+=?&#"),
                new Cursor(T, "i".repeat(Cursor.MAX_ID_LENGTH))}) {
            String text = c.encode();
            assertThat(text).matches("[A-Za-z0-9_-]+");
            assertThat(Cursor.decode(text)).isEqualTo(c);
        }
        assertThat(Cursor.of(at(T, "c1"))).isEqualTo(new Cursor(T, "c1"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "!!!!", "abc$", "a b", "====", "YQ", // "a": one part
        "MTIzLjQ1Ng", // "123.456": no id
        "LTEuMC5pZA", // "-1.0.id": negative seconds
        "MS4tNS5pZA", // "1.-5.id": negative nanos
        "MS4xMDAwMDAwMDAwLmlk", // "1.1000000000.id": nanos out of range
        "LjAu", // ".0.": empty seconds and id
        "MS4wLg", // "1.0.": empty id
        "OTk5OTk5OTk5OTk5OTk5OTk5OS4wLmlk", // "9999999999999999999.0.id": seconds overflow a long
        "OTk5OTk5OTk5OTk5LjAuaWQ", // "999999999999.0.id": after the year 9999
        "KzEuMC5pZA", // "+1.0.id": a sign
        "MWUzLjAuaWQ", // "1e3.0.id": not decimal
        "_w" // 0xFF: not UTF-8
    })
    void hostileTextIsAnIllegalArgument(String text) {
        assertThatThrownBy(() -> Cursor.decode(text)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not a valid audit cursor: ");
    }

    @Test
    void moreHostileText() {
        assertThatThrownBy(() -> Cursor.decode(null)).isExactlyInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cursor.decode("A".repeat(10_000_000))).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("longer than");
        assertThatThrownBy(() -> Cursor.decode(b64("1.0." + "i".repeat(Cursor.MAX_ID_LENGTH + 1))))
                .isExactlyInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cursor.decode(b64("1.0.id") + "=")).isExactlyInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cursor.decode(b64("1.0.id").replace('_', '/') + "+"))
                .isExactlyInstanceOf(IllegalArgumentException.class);
        // the sanity check for the tests above: the same parts, well formed, decode
        assertThat(Cursor.decode(b64("1.5.id"))).isEqualTo(new Cursor(Instant.ofEpochSecond(1, 5), "id"));
        // every byte sequence of a few bytes gives a cursor or an IllegalArgumentException, nothing else
        java.util.Random random = new java.util.Random(42);
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = new byte[random.nextInt(24)];
            random.nextBytes(bytes);
            String text = random.nextBoolean() ? Base64.getUrlEncoder().withoutPadding().encodeToString(bytes)
                    : new String(bytes, StandardCharsets.ISO_8859_1);
            try {
                Cursor.decode(text);
            } catch (IllegalArgumentException expected) {
                // fine
            }
        }
    }

    @Test
    void aCursorHoldsOnlyStoredPositions() {
        assertThatThrownBy(() -> new Cursor(Instant.EPOCH.minusNanos(1), "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Cursor(T, "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Cursor(null, "x")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Cursor.of(at(null, "draft"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("draft");
    }

    @Test
    void fromIsInclusiveUntilExclusiveAndTheCursorStrict() {
        CallQuery q = CallQuery.latest(10).from(T).until(T.plusSeconds(1));
        assertThat(q.matches(at(T, "a"))).isTrue();
        assertThat(q.matches(at(T.minusNanos(1), "a"))).isFalse();
        assertThat(q.matches(at(T.plusSeconds(1).minusNanos(1), "a"))).isTrue();
        assertThat(q.matches(at(T.plusSeconds(1), "a"))).isFalse();
        assertThat(q.matches(at(null, "draft"))).isFalse();

        CallQuery page = CallQuery.latest(10).after(new Cursor(T, "m"));
        assertThat(page.matches(at(T, "m"))).as("the cursor's own record").isFalse();
        assertThat(page.matches(at(T, "l"))).as("same time, before it by id").isFalse();
        assertThat(page.matches(at(T, "n"))).as("same time, after it by id").isTrue();
        assertThat(page.matches(at(T.minusNanos(1), "a"))).as("older").isTrue();
        assertThat(page.matches(at(T.plusNanos(1), "z"))).as("newer").isFalse();
        assertThat(page.after(null).matches(at(T.plusNanos(1), "z"))).isTrue();
        assertThat(CallQuery.latest(10).from(T).from(null).matches(at(T.minusSeconds(1), "a"))).isTrue();
    }

    @Test
    void badCombinationsAreRefused() {
        assertThatThrownBy(() -> CallQuery.latest(10).from(T).until(T.minusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from").hasMessageContaining("until");
        assertThatThrownBy(() -> CallQuery.latest(10).until(T).from(T.plusNanos(1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(CallQuery.latest(10).from(T).until(T).matches(at(T, "a"))).as("an empty range is allowed").isFalse();
        assertThatThrownBy(() -> CallQuery.latest(10).execution("run").after(new Cursor(T, "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("step order");
        assertThatThrownBy(() -> CallQuery.latest(10).after(new Cursor(T, "x")).execution("run"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CallQuery.latest(10).from(Instant.MIN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CallQuery.latest(10).until(Instant.MAX)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CallQuery.latest(10).limit(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withersKeepEveryOtherComponent() {
        Cursor c = new Cursor(T, "x");
        CallQuery q = CallQuery.latest(7).tenant("t").session("s").principal("user:ann").tool("notes.list")
                .status(CallStatus.EXECUTED).from(T.minusSeconds(9)).until(T.plusSeconds(9)).after(c).limit(3);
        assertThat(q).isEqualTo(new CallQuery("t", "s", "user:ann", "notes.list", CallStatus.EXECUTED, null,
                T.minusSeconds(9), T.plusSeconds(9), c, 3));
        assertThat(q.toString()).contains("from=" + T.minusSeconds(9)).contains("until=" + T.plusSeconds(9))
                .contains("after=Cursor[" + T + ", x]").contains("limit=3");
        assertThat(new CallQuery("t", null, null, null, null, "run", 5))
                .isEqualTo(CallQuery.latest(5).tenant("t").execution("run"));
    }
}
