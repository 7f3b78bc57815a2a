package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.budget.BudgetExceededException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The store contract on the budget: exact admission in a rolling window.
 * It is one link of the chain of superclasses of {@link StoreContractTest}, so extending that
 * one class runs every part.
 */
abstract class StoreBudgetContract extends StoreCallContract {

    // ------------------------------------------------------------------------------ budget

    @Test
    void theBudgetAdmitsExactlyTheCapUnderConcurrency() throws Exception {
        List<Integer> admitted = Together.run(24, t -> {
            int mine = 0;
            for (int i = 0; i < 5; i++) {
                try {
                    assertThat(calls.admit(charge("ann", 40))).isEqualTo(clock.instant());
                    mine++;
                } catch (BudgetExceededException e) {
                    assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(60));
                }
            }
            return mine;
        });
        assertThat(admitted.stream().mapToInt(Integer::intValue).sum()).isEqualTo(40);
    }

    @Test
    void theWindowIsRollingAndRetryAfterPointsAtTheNextFreeSlot() {
        calls.admit(charge("ann", 2));   // t = 0
        clock.advance(Duration.ofSeconds(45));
        calls.admit(charge("ann", 2));   // t = 45
        assertThatThrownBy(() -> calls.admit(charge("ann", 2)))
                .isInstanceOfSatisfying(BudgetExceededException.class,
                        e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(15)));
        clock.advance(Duration.ofSeconds(15));   // t = 60: the first admission left the window
        calls.admit(charge("ann", 2));
        assertThatThrownBy(() -> calls.admit(charge("ann", 2)))
                .isInstanceOfSatisfying(BudgetExceededException.class,
                        e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(45)));
        calls.admit(charge("bob", 2));   // another principal is unaffected
    }

    @Test
    void aChangedCapAppliesToAdmissionsAlreadyMade() {
        for (int i = 0; i < 5; i++) {
            calls.admit(charge("ann", 10));
        }
        assertThatThrownBy(() -> calls.admit(charge("ann", 3))).isInstanceOf(BudgetExceededException.class);
        calls.admit(charge("ann", 6));
        assertThatThrownBy(() -> calls.admit(charge("ann", 6))).isInstanceOf(BudgetExceededException.class);
    }
}
