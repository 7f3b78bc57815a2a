package dev.toolgate.springai;

import static dev.toolgate.springai.ConsentLoopTest.CREATE;
import static dev.toolgate.springai.ConsentLoopTest.ask;
import static dev.toolgate.springai.ConsentLoopTest.call;
import static dev.toolgate.springai.ConsentLoopTest.json;
import static dev.toolgate.springai.ConsentLoopTest.notesIn;
import static dev.toolgate.springai.ConsentLoopTest.responsesIn;
import static dev.toolgate.springai.ConsentLoopTest.userText;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.GateSettings;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.tool.Tool;
import dev.toolgate.testkit.TestPostgres;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;

/**
 * Two instances of a Spring AI application, each with its own gate and connection pool, on one
 * PostgreSQL database: a conversation's turns are served by either; an operator decides on the other.
 * Needs {@code TOOLGATE_TEST_PG_URL} (required under {@code CI=true}).
 */
class ConsentAcrossInstancesPostgresTest {

    private static String url() {
        return TestPostgres.freshSchema("spring_ai");
    }

    private static Toolgate instance(JdbcStore store, Incidents incidents) {
        return Toolgate.builder().discoverTools(false).discoverComponents(false)
                .store(store)
                .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO)
                .tools("incident", incidents.tools().toArray(new Tool<?, ?>[0])).build();
    }

    @Test
    void aDecisionMadeOnOneInstanceIsToldOnceThroughWhicheverInstanceServesTheNextTurn() {
        String url = url();
        Principal ana = Principal.user("ana", Incidents.READ, Incidents.WRITE);
        CallContext operator = CallContext.of(Principal.user("olga", Incidents.READ, Incidents.WRITE,
                GateSettings.DEFAULT_APPROVER_RULE));
        Incidents onA = new Incidents();
        Incidents onB = new Incidents();
        try (JdbcStore storeA = JdbcStore.builder().url(url).poolSize(3).build();
             JdbcStore storeB = JdbcStore.builder().url(url).poolSize(3).build();
             Toolgate a = instance(storeA, onA); Toolgate b = instance(storeB, onB)) {
            ScriptedChatModel modelA = ScriptedChatModel.sending(
                    List.of(call("incident__create", CREATE)), ScriptedChatModel.ANSWER,       // turn 1 on A
                    ScriptedChatModel.ANSWER,                                                  // turn 3 on A
                    List.of(call("incident__create", CREATE)), ScriptedChatModel.ANSWER,       // turn 4 on A: the retry
                    ScriptedChatModel.ANSWER);                                                 // turn 6 on A
            ScriptedChatModel modelB = ScriptedChatModel.sending(
                    ScriptedChatModel.ANSWER,                                                  // turn 2 on B
                    List.of(call("incident__create", "{\"title\":\"db down\",\"severity\":\"low\"}")),
                    ScriptedChatModel.ANSWER);                                                 // turn 5 on B
            ChatClient chatA = ChatClient.builder(modelA)
                    .defaultAdvisors(ToolgateToolCallbacks.builder(a).principal(() -> ana).build().advisor()).build();
            ChatClient chatB = ChatClient.builder(modelB)
                    .defaultAdvisors(ToolgateToolCallbacks.builder(b).principal(() -> ana).build().advisor()).build();

            ask(chatA, "open an incident");
            String first = json(responsesIn(modelA, 1).get(0)).path("proposalId").asString();
            assertThat(b.reject(operator, first, "already tracked as INC-3"))
                    .isInstanceOf(dev.toolgate.call.InboxResult.Rejected.class);

            ask(chatB, "well?");
            assertThat(notesIn(userText(modelB, 0))).singleElement().satisfies(n -> {
                assertThat(n.path("proposalId").asString()).isEqualTo(first);
                assertThat(n.path("decision").asString()).isEqualTo("declined");
                assertThat(n.path("reason").asString()).isEqualTo("already tracked as INC-3");
            });
            ask(chatA, "and?");
            assertThat(notesIn(userText(modelA, 2))).as("told once, across instances").isEmpty();

            ask(chatA, "create it anyway");
            assertThat(json(responsesIn(modelA, 4).get(0)).path("status").asString()).isEqualTo("declined");
            assertThat(a.pending(operator, null)).as("the retry proposed nothing").isEmpty();

            ask(chatB, "a low one then");
            String second = json(responsesIn(modelB, 2).get(0)).path("proposalId").asString();
            a.approve(operator, second, Approval.once());

            ask(chatA, "done?");
            assertThat(notesIn(userText(modelA, 5))).singleElement().satisfies(n -> {
                assertThat(n.path("proposalId").asString()).isEqualTo(second);
                assertThat(n.path("decision").asString()).isEqualTo("applied");
                assertThat(n.path("result").path("severity").asString()).isEqualTo("low");
            });
            assertThat(onA.executions.get() + onB.executions.get()).as("the approved change ran once").isEqualTo(1);
            assertThat(onB.executions).as("nothing ran where it was proposed").hasValue(0);
        }
    }
}
