package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.call.Applied;
import dev.toolgate.json.Json;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.testkit.Fixture;
import dev.toolgate.testkit.MutableClock;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Codemode is one of the paths that runs a proposal: a script's step approved after its object changed
 * since the preview ends stale, runs nothing, and the outcome says what changed.
 */
class CodemodeStaleTest {

    private Fixture fx;
    private Toolgate gate;

    @BeforeEach
    void open() {
        MutableClock clock = new MutableClock();
        fx = new Fixture(clock, new InMemoryStore(clock));
        gate = fx.gate(b -> b.programs(Codemode.programs()));
        gate.registry().register(Codemode.tools(gate));
    }

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void aScriptsStepApprovedAfterItsNoteChangedEndsStaleAndRunsNothing() {
        fx.notes.put("a", "alpha");
        JsonNode paused = ((Applied) gate.call(fx.ctx(fx.writer), Codemode.RUN, Json.toTree(Map.of("code", """
                tools.notes.edit({id: "a", text: "from a script"});
                return "edited";
                """)))).result();
        assertThat(paused.get("status").asString()).isEqualTo("paused");
        String id = paused.get("executionId").asString();
        fx.notes.put("a", "changed elsewhere");

        ExecutionOutcome outcome = gate.executions().approve(fx.ctx(fx.approver), id);

        assertThat(outcome).isInstanceOfSatisfying(ExecutionOutcome.Failed.class, failed -> assertThat(failed.error())
                .contains("stale").contains("\"alpha\" -> \"changed elsewhere\"").doesNotContain("Exception"));
        assertThat(fx.notes.snapshot()).containsEntry("a", "changed elsewhere");
        assertThat(fx.notes.mutations).hasValue(0);
        assertThat(gate.executions().steps(id)).extracting(CallRecord::status).containsExactly(CallStatus.STALE);
    }
}
