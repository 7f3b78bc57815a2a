package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.json.Json;
import dev.toolgate.testkit.Notes;
import dev.toolgate.testkit.Together;
import dev.toolgate.access.Principal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Codemode runs on durable stores, several instances each with its own pool on one database: a run
 * started on one instance is approved and rolled back on another, and of many concurrent approvers
 * across instances exactly one resumes each run. H2 (a shared in-memory database) and PostgreSQL
 * ({@code TOOLGATE_TEST_PG_URL}; required under {@code CI=true}).
 */
class CodemodeDurableTest {

    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static final String SCRIPT = """
            const before = tools.notes.list({});
            tools.notes.add({id: "s" + %d, text: "written by a script"});
            return Object.keys(tools.notes.list({})).length - Object.keys(before).length;
            """;

    private final Notes notes = new Notes();
    private final Principal writer = Principal.user("writer", Notes.READ, Notes.WRITE);
    private final Principal approver = Principal.user("approver", Notes.READ, Notes.WRITE, "toolgate.approvals.manage");
    private final List<Toolgate> gates = new ArrayList<>();

    @AfterEach
    void close() {
        gates.forEach(Toolgate::close);
    }

    private static String url(String database) {
        if (database.equals("h2")) {
            return "jdbc:h2:mem:codemode-durable-" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1";
        }
        String base = System.getenv("TOOLGATE_TEST_PG_URL");
        if (base == null || base.isBlank()) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                Assertions.fail("TOOLGATE_TEST_PG_URL must be set under CI=true");
            }
            Assumptions.abort("TOOLGATE_TEST_PG_URL is not set");
        }
        String schema = "tg_codemode_" + DATABASES.incrementAndGet();
        try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            s.execute("CREATE SCHEMA " + schema);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        return base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    /** One instance: its own store and pool on the shared database, the codemode program and tools. */
    private Toolgate instance(String url) {
        Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false)
                .store(JdbcStore.builder().url(url).poolSize(4).build())
                .provider(notes.provider()).programs(Codemode.programs())
                .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO).build();
        gate.registry().register(Codemode.tools(gate));
        gates.add(gate);
        return gate;
    }

    private static CallContext ctx(Principal principal) {
        return CallContext.of(principal).withTenant("acme").withSession("s-" + principal.id());
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aRunStartedOnOneInstanceIsApprovedAndRolledBackOnAnother(String database) {
        String url = url(database);
        Toolgate first = instance(url);
        Toolgate second = instance(url);

        Applied started = (Applied) first.call(ctx(writer), Codemode.RUN, Json.toTree(Map.of("code", SCRIPT.formatted(1))));
        JsonNode outcome = started.result();
        assertThat(outcome.get("status").asString()).isEqualTo("paused");
        String id = outcome.get("executionId").asString();

        ExecutionOutcome done = second.executions().approve(ctx(approver), id);
        assertThat(done).isInstanceOfSatisfying(ExecutionOutcome.Completed.class, c -> assertThat(c.result().asInt()).isEqualTo(1));
        assertThat(notes.snapshot()).containsOnlyKeys("s1");
        assertThat(first.executions().find(id).orElseThrow().status()).isEqualTo(ExecutionStatus.COMPLETED);

        assertThat(first.executions().rollback(ctx(approver), id).reverted()).isEqualTo(1);
        assertThat(notes.snapshot()).isEmpty();
        assertThat(second.executions().find(id).orElseThrow().status()).isEqualTo(ExecutionStatus.ROLLED_BACK);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void ofConcurrentApproversOnThreeInstancesExactlyOneResumesEachRun(String database) throws Exception {
        String url = url(database);
        List<Toolgate> instances = List.of(instance(url), instance(url), instance(url));
        int runs = 10;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            Toolgate starter = instances.get(i % instances.size());
            Applied started = (Applied) starter.call(ctx(writer), Codemode.RUN, Json.toTree(Map.of("code", SCRIPT.formatted(i))));
            ids.add(started.result().get("executionId").asString());
        }
        for (String id : ids) {
            List<ExecutionOutcome> outcomes = Together.run(6, thread ->
                    instances.get(thread % instances.size()).executions().approve(ctx(approver), id));
            assertThat(outcomes).filteredOn(o -> o instanceof ExecutionOutcome.Completed).as(id).hasSize(1);
            assertThat(outcomes).filteredOn(o -> !(o instanceof ExecutionOutcome.Completed))
                    .allSatisfy(o -> assertThat(o).isInstanceOf(ExecutionOutcome.NotPaused.class));
        }
        assertThat(notes.snapshot()).hasSize(runs);
        assertThat(notes.mutations).as("each approved step ran once").hasValue(runs);
    }
}
