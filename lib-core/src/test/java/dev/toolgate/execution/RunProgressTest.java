package dev.toolgate.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.ClientChannel;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Elicitation;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.SamplingRequest;
import dev.toolgate.tool.SamplingResult;
import dev.toolgate.tool.Tool;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** The client waiting on a run hears each step as progress; unattended steps never get its channel. */
class RunProgressTest {

    /** Records progress; a tool that holds it sees canSample() true. */
    static final class Recording implements ClientChannel {
        final List<String> heard = new CopyOnWriteArrayList<>();

        @Override
        public void progress(double progress, Double total, String message) {
            heard.add((int) progress + " " + message);
        }

        @Override
        public void log(LogLevel level, String logger, Object data) {
        }

        @Override
        public boolean canSample() {
            return true;
        }

        @Override
        public boolean canElicit() {
            return true;
        }

        @Override
        public SamplingResult sample(SamplingRequest request) {
            throw new UnsupportedOperationException("not in this test");
        }

        @Override
        public Elicitation elicit(String message, ObjectNode requestedSchema) {
            throw new UnsupportedOperationException("not in this test");
        }
    }

    @Test
    void theCallerHearsEachStepAndAnApproverHearsTheReplay() {
        List<String> reached = new CopyOnWriteArrayList<>();
        Tool<NoInput, Integer> ping = Tool.builder("ping", NoInput.class).description("ping").effect(Effect.READ)
                .requires("t.use").execute((in, ctx) -> {
                    if (ctx.channel().canSample()) {
                        reached.add("ping");
                    }
                    return 1;
                }).build();
        Tool<NoInput, String> touch = Tool.builder("touch", NoInput.class).description("touch").effect(Effect.MUTATE)
                .requires("t.use").dryRun((in, ctx) -> Preview.of("touch it")).execute((in, ctx) -> {
                    if (ctx.channel().canSample()) {
                        reached.add("touch");
                    }
                    return "touched";
                }).build();
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO).tools("t", ping, touch)
                .program("t.flow", run -> {
                    run.call("t.ping", null);
                    run.call("t.touch", null);
                    return run.call("t.ping", null);
                }).build()) {
            Recording caller = new Recording();
            ExecutionOutcome paused = gate.executions().start(
                    CallContext.of(Principal.user("u", "t.use")).withChannel(caller), "t.flow", (String) null);
            assertThat(paused).isInstanceOf(ExecutionOutcome.Paused.class);
            assertThat(caller.heard).containsExactly("1 step 1: t.ping", "2 step 2: t.touch");

            Recording approver = new Recording();
            ExecutionOutcome done = gate.executions().approve(
                    CallContext.of(Principal.user("boss", "*")).withChannel(approver), paused.executionId());
            assertThat(done).isInstanceOf(ExecutionOutcome.Completed.class);
            assertThat(approver.heard).containsExactly("1 step 1: t.ping", "2 step 2: t.touch", "3 step 3: t.ping");
            assertThat(caller.heard).hasSize(2);
            // the unattended steps never reach a client; the approved step runs for its approver, as an apply does
            assertThat(reached).containsExactly("touch");
        }
    }

    @Test
    void aRunWithoutAClientReportsNowhere() {
        Tool<NoInput, Integer> ping = Tool.builder("ping", NoInput.class).description("ping").effect(Effect.READ)
                .requires("t.use").execute((in, ctx) -> 1).build();
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO).tools("t", ping)
                .program("t.once", run -> run.call("t.ping", null)).build()) {
            ExecutionOutcome outcome = gate.executions().start(CallContext.of(Principal.user("u", "t.use")), "t.once",
                    (String) null);
            assertThat(outcome).isInstanceOf(ExecutionOutcome.Completed.class);
        }
    }
}
