package dev.toolgate.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.ExecutionQuery;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A program that declares its input: the schema is advertised, and a run whose input does not match never starts. */
class ProgramInputTest {

    record Escalation(String systemId, String title, Optional<Integer> priority) {
    }

    private final AtomicInteger ran = new AtomicInteger();

    private Toolgate gate() {
        return Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO)
                .program("typed", Program.withInput(Escalation.class, (run, in) -> {
                    ran.incrementAndGet();
                    return in.systemId() + "/" + in.title() + "/" + in.priority().orElse(0);
                }))
                .program("untyped", run -> run.input().size())
                .build();
    }

    @Test
    void theSchemaIsTheTypesAsAToolWouldAdvertiseIt() {
        try (Toolgate gate = gate()) {
            var schema = gate.executions().inputSchema("typed").orElseThrow();
            assertThat(schema.path("type").asString()).isEqualTo("object");
            assertThat(schema.path("required").toString()).contains("systemId").contains("title").doesNotContain("priority");
            assertThat(schema.path("additionalProperties").asBoolean(true)).isFalse();
            assertThat(gate.executions().inputSchema("untyped")).isEmpty();
            assertThatThrownBy(() -> gate.executions().inputSchema("nope")).isInstanceOf(UnknownProgramException.class);
        }
    }

    @Test
    void aRunWhoseInputDoesNotMatchIsRefusedNamingEachFieldAndNothingIsRecorded() {
        try (Toolgate gate = gate()) {
            CallContext carol = CallContext.of(Principal.user("carol"));
            assertThatThrownBy(() -> gate.executions().start(carol, "typed", Json.object()))
                    .isInstanceOfSatisfying(ToolValidationException.class, e -> assertThat(e.issues())
                            .extracting(ValidationIssue::path).contains("/systemId", "/title"));
            assertThatThrownBy(() -> gate.executions().start(carol, "typed",
                    "{\"systemId\":\"web\",\"title\":\"t\",\"priority\":\"high\",\"extra\":1}"))
                    .isInstanceOfSatisfying(ToolValidationException.class, e -> assertThat(e.issues())
                            .extracting(ValidationIssue::path).contains("/priority", "/extra"));
            assertThat(gate.executions().executions(ExecutionQuery.latest(10))).isEmpty();
            assertThat(ran).hasValue(0);

            ExecutionOutcome done = gate.executions().start(carol, "typed", "{\"systemId\":\"web\",\"title\":\"t\"}");
            assertThat(done).isInstanceOfSatisfying(ExecutionOutcome.Completed.class,
                    c -> assertThat(c.result().asString()).isEqualTo("web/t/0"));
            assertThat(gate.executions().start(carol, "untyped", "{\"anything\":1}"))
                    .isInstanceOf(ExecutionOutcome.Completed.class);
        }
    }
}
