package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.budget.BudgetLimit;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdmissionLogTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final BudgetLimit THREE_PER_MINUTE = BudgetLimit.of(3, Duration.ofSeconds(60));

    private static Instant at(long seconds) {
        return T0.plusSeconds(seconds);
    }

    @Test
    void admitsIntoAnEmptyLogAndKeepsNewestFirst() {
        AdmissionLog.Decision decision = AdmissionLog.decide(List.of(at(5), at(1)), at(10), THREE_PER_MINUTE);
        assertThat(decision.admitted()).isTrue();
        assertThat(decision.log()).containsExactly(at(10), at(5), at(1));
    }

    @Test
    void refusesAtTheCapAndSaysWhenTheCapThNewestLeavesTheWindow() {
        AdmissionLog.Decision decision = AdmissionLog.decide(List.of(at(0), at(20), at(20)), at(30), THREE_PER_MINUTE);
        assertThat(decision.admitted()).isFalse();
        assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(decision.log()).containsExactlyInAnyOrder(at(0), at(20), at(20));
    }

    @Test
    void anAdmissionExactlyOneWindowOldHasLeftIt() {
        AdmissionLog.Decision decision = AdmissionLog.decide(List.of(at(0), at(20), at(20)), at(60), THREE_PER_MINUTE);
        assertThat(decision.admitted()).isTrue();
        assertThat(decision.log()).as("only the cap newest are kept").containsExactly(at(60), at(20), at(20));
    }

    @Test
    void theLogNeedNotBeInTimeOrder() {
        AdmissionLog.Decision decision = AdmissionLog.decide(List.of(at(20), at(0), at(21)), at(59), THREE_PER_MINUTE);
        assertThat(decision.admitted()).isFalse();
        assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aLoweredCapCountsOnlyTheNewestAndFreesWhenEnoughLeft() {
        // five admissions kept from a cap of 5; the cap is now 2: a slot frees when the 2nd newest leaves
        List<Instant> log = List.of(at(50), at(40), at(30), at(20), at(10));
        AdmissionLog.Decision decision = AdmissionLog.decide(log, at(55), BudgetLimit.of(2, Duration.ofSeconds(60)));
        assertThat(decision.admitted()).isFalse();
        assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(45));
    }
}
