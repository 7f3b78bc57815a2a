package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.BudgetLimit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class KnownRefusalsTest {

    private static final BudgetLimit LIMIT = BudgetLimit.of(5, Duration.ofSeconds(10));
    private static final BudgetCharge ANN = new BudgetCharge("user:ann", LIMIT);

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Test
    void anExactClockKeepsARefusalUntilTheMomentItsSlotFrees() {
        KnownRefusals refusals = new KnownRefusals(nanos::get, true);
        long before = refusals.now();
        nanos.addAndGet(Duration.ofMillis(3).toNanos()); // the statement's round trip
        refusals.keep(ANN, refusal(ANN, Duration.ofSeconds(4)), before);

        assertThatThrownBy(() -> refusals.refuseIfKept(ANN)).isInstanceOfSatisfying(BudgetExceededException.class, e -> {
            assertThat(e.principalKey()).isEqualTo("user:ann");
            assertThat(e.limit()).isEqualTo(LIMIT);
            assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(4).minusMillis(3));
        });
        nanos.set(before + Duration.ofSeconds(4).toNanos() - 1);
        assertThatThrownBy(() -> refusals.refuseIfKept(ANN)).isInstanceOf(BudgetExceededException.class);
        nanos.set(before + Duration.ofSeconds(4).toNanos());
        assertThatCode(() -> refusals.refuseIfKept(ANN)).as("the slot frees: the database decides").doesNotThrowAnyException();
        assertThat(refusals.size()).as("an ended refusal is dropped").isZero();
    }

    @Test
    void theMonotonicClockEndsARefusalEarlierByTheMarginAndTheDrift() {
        KnownRefusals refusals = new KnownRefusals(nanos::get, false);
        long before = refusals.now();
        refusals.keep(ANN, refusal(ANN, Duration.ofSeconds(10)), before);
        long end = before + Duration.ofSeconds(10).toNanos() - Duration.ofSeconds(10).toNanos() / 1000
                - Duration.ofMillis(KnownRefusals.MARGIN_MILLIS).toNanos();
        nanos.set(end - 1);
        assertThatThrownBy(() -> refusals.refuseIfKept(ANN)).isInstanceOf(BudgetExceededException.class);
        nanos.set(end);
        assertThatCode(() -> refusals.refuseIfKept(ANN)).doesNotThrowAnyException();

        refusals.keep(ANN, refusal(ANN, Duration.ofNanos(900_000)), refusals.now());
        assertThat(refusals.size()).as("a refusal shorter than the margin is not kept").isZero();
    }

    @Test
    void aRefusalHoldsForItsPrincipalAndLimitOnly() {
        KnownRefusals refusals = new KnownRefusals(nanos::get, true);
        refusals.keep(ANN, refusal(ANN, Duration.ofSeconds(5)), refusals.now());
        assertThatCode(() -> refusals.refuseIfKept(new BudgetCharge("user:bob", LIMIT))).doesNotThrowAnyException();
        assertThatCode(() -> refusals.refuseIfKept(new BudgetCharge("user:ann", BudgetLimit.of(6, Duration.ofSeconds(10)))))
                .as("a changed limit goes to the database").doesNotThrowAnyException();
        assertThatThrownBy(() -> refusals.refuseIfKept(ANN)).isInstanceOf(BudgetExceededException.class);
    }

    @Test
    void atMostMaxEntriesAreKeptAndEndedOnesMakeRoom() {
        KnownRefusals refusals = new KnownRefusals(nanos::get, true);
        for (int i = 0; i < KnownRefusals.MAX_ENTRIES; i++) {
            BudgetCharge charge = new BudgetCharge("user:" + i, LIMIT);
            refusals.keep(charge, refusal(charge, Duration.ofSeconds(1 + i % 2)), refusals.now());
        }
        BudgetCharge late = new BudgetCharge("user:late", LIMIT);
        refusals.keep(late, refusal(late, Duration.ofSeconds(5)), refusals.now());
        assertThat(refusals.size()).isEqualTo(KnownRefusals.MAX_ENTRIES);
        assertThatCode(() -> refusals.refuseIfKept(late)).as("full: not kept").doesNotThrowAnyException();

        nanos.addAndGet(Duration.ofMillis(1500).toNanos()); // half of them ended
        refusals.keep(late, refusal(late, Duration.ofSeconds(5)), refusals.now());
        assertThat(refusals.size()).isEqualTo(KnownRefusals.MAX_ENTRIES / 2 + 1);
        assertThatThrownBy(() -> refusals.refuseIfKept(late)).isInstanceOf(BudgetExceededException.class);
    }

    private static BudgetExceededException refusal(BudgetCharge charge, Duration retryAfter) {
        return new BudgetExceededException(charge.principalKey(), charge.limit(), retryAfter);
    }
}
