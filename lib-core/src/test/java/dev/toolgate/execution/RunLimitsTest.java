package dev.toolgate.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RunLimitsTest {

    @Test
    void aRunTakesAtMostTenThousandSteps() {
        AtomicInteger reads = new AtomicInteger();
        Tool<NoInput, Integer> ping = Tool.builder("ping", NoInput.class).description("ping").effect(Effect.READ)
                .requires("t.read").execute((in, ctx) -> reads.incrementAndGet()).build();
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO).tools("t", ping)
                .program("t.endless", run -> {
                    while (true) {
                        run.call("t.ping", null);
                    }
                }).build()) {
            ExecutionOutcome outcome = gate.executions().start(CallContext.of(Principal.user("u", "t.read")), "t.endless",
                    (String) null);
            assertThat(outcome).isInstanceOfSatisfying(ExecutionOutcome.Failed.class, f -> assertThat(f.error())
                    .isEqualTo("step 10001 was refused: a run takes at most 10000 steps"));
            assertThat(reads).hasValue(Handle.MAX_STEPS);
            assertThat(gate.executions().steps(outcome.executionId())).hasSize(Handle.MAX_STEPS);
        }
    }
}
