package dev.toolgate.langchain4j;

import static dev.toolgate.langchain4j.ConsentLoopTest.CREATE;
import static dev.toolgate.langchain4j.ConsentLoopTest.OPERATOR;
import static dev.toolgate.langchain4j.ConsentLoopTest.assistant;
import static dev.toolgate.langchain4j.ConsentLoopTest.json;
import static dev.toolgate.langchain4j.ConsentLoopTest.notesIn;
import static dev.toolgate.langchain4j.ConsentLoopTest.resultsIn;
import static dev.toolgate.langchain4j.ConsentLoopTest.userText;
import static dev.toolgate.langchain4j.ScriptedChatModel.ANSWER;
import static dev.toolgate.langchain4j.ScriptedChatModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Approval;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.testkit.TestPostgres;
import java.util.List;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * Two instances of a LangChain4j application, each with its own gate and connection pool, on one
 * PostgreSQL database: a conversation's turns are served by either; an operator decides on the other.
 * Needs {@code TOOLGATE_TEST_PG_URL} (required under {@code CI=true}).
 */
class ConsentAcrossInstancesPostgresTest {

    private static String url() {
        return TestPostgres.freshSchema("langchain4j");
    }

    @Test
    void aDecisionMadeOnOneInstanceIsToldOnceThroughWhicheverInstanceServesTheNextTurn() {
        String url = url();
        Incidents onA = new Incidents();
        Incidents onB = new Incidents();
        try (JdbcStore storeA = JdbcStore.builder().url(url).poolSize(3).build();
             JdbcStore storeB = JdbcStore.builder().url(url).poolSize(3).build();
             Toolgate a = onA.gate(ToolBudget.unlimited(), storeA);
             Toolgate b = onB.gate(ToolBudget.unlimited(), storeB)) {
            ScriptedChatModel modelA = ScriptedChatModel.sending(List.of(call("incident__create", CREATE)), ANSWER,
                    ANSWER, List.of(call("incident__create", CREATE)), ANSWER, ANSWER);
            ScriptedChatModel modelB = ScriptedChatModel.sending(ANSWER,
                    List.of(call("incident__create", "{\"title\":\"Disk full\",\"severity\":\"low\"}")), ANSWER);
            ConsentLoopTest.Assistant onInstanceA = assistant(a, modelA);
            ConsentLoopTest.Assistant onInstanceB = assistant(b, modelB);

            onInstanceA.chat("alice", "open an incident");
            String first = json(resultsIn(modelA, 1).get(0)).path("callId").asString();
            b.reject(OPERATOR, first, "already tracked as INC-3");

            onInstanceB.chat("alice", "well?");
            assertThat(notesIn(userText(modelB, 0))).singleElement().satisfies(n -> {
                assertThat(n.path("proposalId").asString()).isEqualTo(first);
                assertThat(n.path("decision").asString()).isEqualTo("declined");
                assertThat(n.path("reason").asString()).isEqualTo("already tracked as INC-3");
            });
            onInstanceA.chat("alice", "and?");
            assertThat(notesIn(userText(modelA, 2))).as("told once, across instances").isEmpty();

            onInstanceA.chat("alice", "create it anyway");
            assertThat(json(resultsIn(modelA, 4).get(0)).path("status").asString()).isEqualTo("declined");
            assertThat(a.pending(OPERATOR, null)).as("the retry proposed nothing").isEmpty();

            onInstanceB.chat("alice", "a low one then");
            String second = json(resultsIn(modelB, 2).get(0)).path("callId").asString();
            a.approve(OPERATOR, second, Approval.once());

            onInstanceA.chat("alice", "done?");
            assertThat(notesIn(userText(modelA, 5))).singleElement().satisfies(n -> {
                assertThat(n.path("proposalId").asString()).isEqualTo(second);
                assertThat(n.path("decision").asString()).isEqualTo("applied");
                assertThat(n.path("result").path("severity").asString()).isEqualTo("low");
            });
            assertThat(onA.mutations.get() + onB.mutations.get()).as("the approved change ran once").isEqualTo(1);
        }
    }
}
