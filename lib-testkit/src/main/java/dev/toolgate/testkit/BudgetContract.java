package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-principal rolling-window budget: exact under concurrency, counting proposals and applies. */
public interface BudgetContract extends ContractCase {

    private Toolgate budgeted(int calls) {
        return fx().gate(b -> b.budget(ToolBudget.perPrincipal(calls, Duration.ofSeconds(60))));
    }

    /** Each of {@code threads} threads makes {@code perThread} calls; returns how many were admitted. */
    private static int hammer(int threads, int perThread, Runnable call, List<BudgetExceededException> refusals)
            throws Exception {
        return Together.run(threads, t -> {
            int admitted = 0;
            for (int i = 0; i < perThread; i++) {
                try {
                    call.run();
                    admitted++;
                } catch (BudgetExceededException e) {
                    refusals.add(e);
                }
            }
            return admitted;
        }).stream().mapToInt(Integer::intValue).sum();
    }

    @Test
    default void thirtyTwoThreadsNeverGetMoreThanTheCapInAWindow() throws Exception {
        Toolgate gate = budgeted(60);
        CallContext ctx = fx().ctx(fx().reader);
        List<BudgetExceededException> refusals = new java.util.concurrent.CopyOnWriteArrayList<>();

        int admitted = hammer(32, 5, () -> gate.call(ctx, "notes.list", "{}"), refusals);

        assertThat(admitted).isEqualTo(60);
        assertThat(refusals).hasSize(100).allSatisfy(e -> {
            assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(60));
            assertThat(e.principalKey()).isEqualTo("user:reader");
            assertThat(e.retryAfterSeconds()).isEqualTo(60);
        });
        assertThat(fx().records()).hasSize(60);
        assertThat(fx().notes.reads).hasValue(60);
    }

    @Test
    default void theWindowRollsSlotBySlotAndReportsWhenTheNextFrees() {
        Toolgate gate = budgeted(3);
        CallContext ctx = fx().ctx(fx().reader);
        gate.call(ctx, "notes.list", "{}");                  // t = 0
        fx().clock.advance(Duration.ofSeconds(20));
        gate.call(ctx, "notes.list", "{}");                  // t = 20
        gate.call(ctx, "notes.list", "{}");                  // t = 20
        fx().clock.advance(Duration.ofSeconds(10));          // t = 30

        assertThatThrownBy(() -> gate.call(ctx, "notes.list", "{}"))
                .isInstanceOfSatisfying(BudgetExceededException.class,
                        e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(30)));
        fx().clock.advance(Duration.ofSeconds(30).minusMillis(1));   // t = 59.999: the first admission is still inside
        assertThatThrownBy(() -> gate.call(ctx, "notes.list", "{}")).isInstanceOfSatisfying(BudgetExceededException.class,
                e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofMillis(1)));
        fx().clock.advance(Duration.ofMillis(1));                    // t = 60: it left the window
        gate.call(ctx, "notes.list", "{}");
        assertThatThrownBy(() -> gate.call(ctx, "notes.list", "{}")).isInstanceOf(BudgetExceededException.class);
        assertThat(fx().records()).hasSize(4);
    }

    @Test
    default void eachPrincipalHasItsOwnBudget() {
        Toolgate gate = budgeted(1);
        gate.call(fx().ctx(fx().reader), "notes.list", "{}");
        gate.call(fx().ctx(fx().writer), "notes.list", "{}");
        assertThatThrownBy(() -> gate.call(fx().ctx(fx().reader), "notes.list", "{}")).isInstanceOf(BudgetExceededException.class);
    }

    @Test
    default void proposalsAndAppliesCountAndAnOverBudgetApplyChangesNothing() {
        Toolgate gate = budgeted(2);
        CallContext ctx = fx().ctx(fx().writer);
        Proposal first = (Proposal) gate.call(ctx, "notes.add", "{\"id\":\"a\",\"text\":\"x\"}");
        gate.apply(ctx, first.token());
        Proposal blocked = (Proposal) fx().gate().call(fx().ctx(fx().writer), "notes.add", "{\"id\":\"b\",\"text\":\"x\"}");

        assertThatThrownBy(() -> gate.apply(ctx, blocked.token())).isInstanceOf(BudgetExceededException.class);
        assertThatThrownBy(() -> gate.call(ctx, "notes.list", "{}")).isInstanceOf(BudgetExceededException.class);
        assertThat(fx().store.calls().find(blocked.callId()).orElseThrow().status().wireName()).isEqualTo("proposed");
        assertThat(fx().notes.mutations).hasValue(1);

        fx().clock.advance(Duration.ofSeconds(60));
        assertThat(gate.apply(ctx, blocked.token()).status()).isEqualTo("applied");
    }
}
