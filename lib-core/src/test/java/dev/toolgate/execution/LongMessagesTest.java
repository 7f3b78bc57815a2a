package dev.toolgate.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.json.TextCap;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool's or a program's message of 10 MB: the caller, the audit trail and the run's outcome get its
 * redacted beginning and a marker, at most {@link TextCap#MESSAGE_CHARS} characters, never nothing.
 */
class LongMessagesTest {

    private static final String HUGE = "password=hunter2 " + "x".repeat(10_000_000);
    private static final CallContext CALLER = CallContext.of(Principal.user("u", "t.read"));

    private Toolgate gate;

    @BeforeEach
    void open() {
        Tool<NoInput, Object> broken = Tool.builder("broken", NoInput.class).description("fails").effect(Effect.READ)
                .requires("t.read").execute((in, ctx) -> {
                    throw new IllegalStateException(HUGE);
                }).build();
        gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO).tools("t", broken)
                .program("t.says", run -> {
                    throw new ProgramException(HUGE);
                })
                .program("t.throws", run -> {
                    throw new IllegalArgumentException(HUGE);
                })
                .program("t.rethrows", run -> run.call("t.broken", null))
                .build();
    }

    @AfterEach
    void close() {
        gate.close();
    }

    private static void assertCapped(String message) {
        assertThat(message).isNotNull().hasSizeLessThanOrEqualTo(TextCap.MESSAGE_CHARS).contains("password=[REDACTED] xxxx")
                .endsWith(" more characters)").doesNotContain("hunter2");
    }

    @Test
    void aFailingToolsMessageIsCutForTheCallerAndTheAuditTrail() {
        assertThatThrownBy(() -> gate.call(CALLER, "t.broken", (String) null)).isInstanceOfSatisfying(ToolExecutionException.class,
                e -> assertCapped(e.getMessage()));
        CallRecord record = gate.findCalls(CallQuery.latest(1)).get(0);
        assertCapped(record.error());
    }

    @Test
    void aFailingProgramsMessageIsCutAndTheOutcomeAlwaysHasItsError() {
        for (String program : new String[] {"t.says", "t.throws", "t.rethrows"}) {
            ExecutionOutcome outcome = gate.executions().start(CALLER, program, (String) null);
            assertThat(outcome).as(program).isInstanceOf(ExecutionOutcome.Failed.class);
            ObjectNode json = outcome.toJson();
            assertThat(json.has("error")).as(program).isTrue();
            assertCapped(json.get("error").asString());
            assertCapped(gate.executions().find(outcome.executionId()).orElseThrow().error());
        }
    }
}
