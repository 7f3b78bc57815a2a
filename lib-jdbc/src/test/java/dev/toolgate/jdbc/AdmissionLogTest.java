package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.budget.BudgetLimit;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AdmissionLogTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final BudgetLimit THREE_PER_MINUTE = BudgetLimit.of(3, Duration.ofSeconds(60));

    private static Instant at(long seconds) {
        return T0.plusSeconds(seconds);
    }

    @Test
    void admitsWhileTheLogHoldsFewerThanTheCapAndForgetsNothing() {
        AdmissionLog.Decision decision = AdmissionLog.decide(2, at(5), null, at(10), THREE_PER_MINUTE);
        assertThat(decision.admitted()).isTrue();
        assertThat(decision.at()).isEqualTo(at(10));
        assertThat(decision.seq()).isEqualTo(2);
        assertThat(decision.forgetUpTo()).isNegative();
    }

    @Test
    void refusesWhileTheCapThNewestIsInsideTheWindowAndSaysWhenItLeaves() {
        // admissions 0, 1, 2 at 0, 20, 20: number 3 - 3 = 0 is the cap-th newest
        AdmissionLog.Decision decision = AdmissionLog.decide(3, at(20), at(0), at(30), THREE_PER_MINUTE);
        assertThat(decision.admitted()).isFalse();
        assertThat(decision.retryAfter()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void anAdmissionExactlyOneWindowOldHasLeftItAndIsForgotten() {
        AdmissionLog.Decision decision = AdmissionLog.decide(3, at(20), at(0), at(60), THREE_PER_MINUTE);
        assertThat(decision.admitted()).isTrue();
        assertThat(decision.seq()).isEqualTo(3);
        assertThat(decision.forgetUpTo()).as("admission 0 can never be inside a later window").isZero();
    }

    @Test
    void timesNeverGoBackAlongTheLog() {
        // a clock behind the newest admission: decided and stamped at the newest admission's time
        AdmissionLog.Decision refused = AdmissionLog.decide(3, at(59), at(1), at(50), THREE_PER_MINUTE);
        assertThat(refused.admitted()).as("decided at 59, where admission 0 at 1 is still inside").isFalse();
        assertThat(refused.retryAfter()).as("from the clock's now").isEqualTo(Duration.ofSeconds(11));
        AdmissionLog.Decision admitted = AdmissionLog.decide(3, at(70), at(1), at(50), THREE_PER_MINUTE);
        assertThat(admitted.admitted()).isTrue();
        assertThat(admitted.at()).isEqualTo(at(70));
    }

    @Test
    void aLoweredCapLooksFurtherUpTheLogAndARaisedOneFurtherDown() {
        // five admissions 0..4 at 10..50; the cap is now 2: number 3 (at 40) is the 2nd newest
        AdmissionLog.Decision lowered = AdmissionLog.decide(5, at(50), at(40), at(55), BudgetLimit.of(2, Duration.ofSeconds(60)));
        assertThat(lowered.admitted()).isFalse();
        assertThat(lowered.retryAfter()).isEqualTo(Duration.ofSeconds(45));
        // a raised cap whose cap-th newest was already forgotten: forgotten rows are outside every later window
        AdmissionLog.Decision raised = AdmissionLog.decide(5, at(50), null, at(55), BudgetLimit.of(10, Duration.ofSeconds(60)));
        assertThat(raised.admitted()).isTrue();
    }
}
