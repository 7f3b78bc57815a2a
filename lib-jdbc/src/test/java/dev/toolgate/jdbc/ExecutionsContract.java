package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.execution.Program;
import dev.toolgate.json.Json;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.StepTakenException;
import dev.toolgate.testkit.MutableClock;
import dev.toolgate.tool.Effect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the SQL stores must get right about durable executions beyond the contract suites: a second
 * row for a step is told apart from every other unique violation, and a finish that a database crash
 * forgot (PostgreSQL commits it asynchronously) is redone by the sweep's takeover with the same
 * result, running nothing again. Each database runs it through a subclass.
 */
abstract class ExecutionsContract {

    private static final Duration TTL = Duration.ofMinutes(10);

    MutableClock clock;
    JdbcStore store;

    /** A fresh, empty store on {@code clock}. */
    abstract JdbcStore openStore(MutableClock clock);

    /** Where the store's tables are, for the test's own SQL. */
    abstract DataSource dataSource();

    @BeforeEach
    void open() {
        clock = new MutableClock();
        store = openStore(clock);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aSecondRowForAStepIsStepTakenAndNoOtherUniqueViolationIs() {
        CallStore calls = store.calls();
        calls.record(step("c1", "run", 1));
        assertThatThrownBy(() -> calls.record(step("c2", "run", 1)))
                .isInstanceOfSatisfying(StepTakenException.class, e -> assertThat(e.stepSeq()).isEqualTo(1));
        assertThatThrownBy(() -> calls.record(step("c1", "run", 2))).as("the call's id, not the step, is taken")
                .isNotInstanceOf(StepTakenException.class).satisfies(ExecutionsContract::isUniqueViolation);

        calls.propose(proposal("p1", "run", 3, "s1"), TTL, 10);
        assertThatThrownBy(() -> calls.propose(proposal("p2", "run", 3, "s1"), TTL, 10)).as("in a session's transaction")
                .isInstanceOf(StepTakenException.class);
        assertThatThrownBy(() -> calls.propose(proposal("p3", "run", 3, null), TTL, 10)).as("without a session")
                .isInstanceOf(StepTakenException.class);
        assertThatThrownBy(() -> calls.propose(proposal("p1", "run", 4, "s1"), TTL, 10))
                .isNotInstanceOf(StepTakenException.class).satisfies(ExecutionsContract::isUniqueViolation);
        assertThatThrownBy(() -> calls.propose(proposal("p1", "run", 4, null), TTL, 10))
                .isNotInstanceOf(StepTakenException.class).satisfies(ExecutionsContract::isUniqueViolation);

        calls.record(step("r1", "other", 1).toBuilder().reverts("reverted-call").build());
        assertThatThrownBy(() -> calls.record(step("r2", "other", 2).toBuilder().reverts("reverted-call").build()))
                .as("a step whose revert is taken: the revert index, not the step's")
                .isNotInstanceOf(StepTakenException.class).satisfies(ExecutionsContract::isUniqueViolation);
        assertThatThrownBy(() -> calls.record(step("r3", "other", 1).toBuilder().reverts("another-call").build()))
                .isInstanceOf(StepTakenException.class);

        assertThat(calls.query(CallQuery.latest(100).execution("run"))).extracting(CallRecord::id).containsExactly("c1", "p1");
        assertThat(calls.query(CallQuery.latest(100).execution("other"))).extracting(CallRecord::id).containsExactly("r1");
        assertThat(calls.countPending("s1")).as("the refused proposals were rolled back").isEqualTo(1);
    }

    private static void isUniqueViolation(Throwable e) {
        assertThat(e).isInstanceOf(org.jdbi.v3.core.statement.UnableToExecuteStatementException.class);
        assertThat(Db.isUniqueViolation((org.jdbi.v3.core.statement.UnableToExecuteStatementException) e)).isTrue();
        assertThat(Db.violates((RuntimeException) e, JdbcCallStore.STEP_INDEX)).isFalse();
    }

    /** Lists, adds (applied at once: AUTO), lists again; returns what it saw. */
    private static final Program BATCH = run -> {
        int before = run.call("notes.list", Map.of()).size();
        String added = run.call("notes.add", Map.of("id", "n1", "text", "t")).asString();
        int after = run.call("notes.list", Map.of()).size();
        run.log("batch done");
        return Map.of("before", before, "added", added, "after", after);
    };

    @Test
    void aFinishADatabaseCrashForgotIsRedoneByTheSweepWithTheSameResultAndNothingRunsAgain() throws SQLException {
        try (Hosts host = Hosts.on(store, b -> b.program("notes.batch", BATCH).executionTimeout(Duration.ofSeconds(5)))) {
            ExecutionOutcome outcome = host.gate().executions()
                    .start(Hosts.ctx(Hosts.WRITER).withPermissionMode(PermissionMode.AUTO), "notes.batch", "{}");
            assertThat(outcome.status()).isEqualTo("completed");
            ExecutionRecord finished = host.gate().executions().find(outcome.executionId()).orElseThrow();
            forgetTheFinish(finished);
            ExecutionRecord forgotten = host.gate().executions().find(outcome.executionId()).orElseThrow();
            assertThat(forgotten.status()).isEqualTo(ExecutionStatus.RUNNING);
            assertThat(forgotten.attempt()).isEqualTo(1);
            assertThat(host.notes().mutations).hasValue(1);
            assertThat(host.notes().reads).hasValue(2);

            host.gate().sweep();
            assertThat(host.gate().executions().find(outcome.executionId()).orElseThrow().status())
                    .as("not quiet long enough").isEqualTo(ExecutionStatus.RUNNING);
            clock.advance(Duration.ofMinutes(1)); // past the quiet period: 5 s of execution timeout and 30 s
            host.gate().sweep();

            ExecutionRecord redone = host.gate().executions().find(outcome.executionId()).orElseThrow();
            assertThat(redone.status()).isEqualTo(ExecutionStatus.COMPLETED);
            assertThat(redone.attempt()).as("taken over once").isEqualTo(2);
            assertThat(Json.parse(redone.resultJson())).as("the same result").isEqualTo(Json.parse(finished.resultJson()));
            assertThat(redone.logs()).isEqualTo(finished.logs());
            assertThat(host.notes().mutations).as("every step was served from the log").hasValue(1);
            assertThat(host.notes().reads).hasValue(2);
            assertThat(host.gate().executions().steps(outcome.executionId())).extracting(CallRecord::status)
                    .containsExactly(CallStatus.EXECUTED, CallStatus.APPLIED, CallStatus.EXECUTED);
        }
    }

    /** Puts the run back as it was before its finish committed: running at its attempt, its result, error and logs unset. */
    private void forgetTheFinish(ExecutionRecord finished) throws SQLException {
        try (Connection c = dataSource().getConnection(); PreparedStatement s = c.prepareStatement(
                "UPDATE toolgate_execution SET status = 'running', result_json = NULL, error = NULL, logs = '[]',"
                        + " completed_at = NULL, updated_at = ? WHERE id = ?")) {
            s.setObject(1, OffsetDateTime.ofInstant(finished.createdAt(), ZoneOffset.UTC));
            s.setString(2, finished.id());
            assertThat(s.executeUpdate()).isEqualTo(1);
        }
    }

    private static CallRecord step(String id, String run, int seq) {
        return CallRecord.builder().id(id).toolName("notes.list").effect(Effect.READ).principal(dev.toolgate.access.PrincipalRef.of(Hosts.WRITER))
                .tenantId("acme").transport("java").status(CallStatus.EXECUTED).mode(Mode.ALLOW)
                .modeSource(ModeSource.INFERRED_DEFAULT).argumentsHash("a".repeat(64)).resultJson("[]")
                .executionId(run).stepSeq(seq).build();
    }

    private static CallRecord proposal(String id, String run, int seq, String session) {
        return Races.proposal(session).toBuilder().id(id).executionId(run).stepSeq(seq).build();
    }
}
