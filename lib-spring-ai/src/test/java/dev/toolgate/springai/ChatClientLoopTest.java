package dev.toolgate.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.UnknownProposalException;
import dev.toolgate.json.Json;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Tool;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import tools.jackson.databind.JsonNode;

/**
 * Spring AI's real tool-calling loop ({@code ChatClient} with its auto-registered ToolCallingAdvisor and
 * default ToolCallingManager) against a scripted model, with the gate's tools offered through
 * {@link ToolgateToolCallbacks}.
 */
class ChatClientLoopTest {

    private final Incidents incidents = new Incidents();
    private final Principal writer = Principal.user("ana", Incidents.READ, Incidents.WRITE);
    private final Principal reader = Principal.user("bo", Incidents.READ);
    private final AtomicReference<Principal> current = new AtomicReference<>(writer);
    private Toolgate gate;

    private Toolgate gate(ToolBudget budget) {
        gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(budget).tools("incident", incidents.tools().toArray(new Tool<?, ?>[0])).build();
        return gate;
    }

    @AfterEach
    void close() {
        if (gate != null) {
            gate.close();
        }
    }

    private static String ask(ScriptedChatModel model, ToolgateToolCallbacks tools) {
        return ChatClient.create(model).prompt("help with incidents").toolCallbacks(tools).call().content();
    }

    private static JsonNode lastResult(ScriptedChatModel model) {
        List<String> results = model.toolResults();
        return Json.parse(results.get(results.size() - 1));
    }

    @Test
    void aReadRunsAndItsResultReachesTheModel() {
        gate(ToolBudget.unlimited());
        incidents.byId.put("INC-9", new Incidents.Incident("INC-9", "disk full", "high"));
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(current::get).build();
        ScriptedChatModel model = ScriptedChatModel.calling(new ScriptedChatModel.Call("incident__list", "{\"severity\":\"high\"}"));

        String answer = ask(model, tools);

        JsonNode result = lastResult(model);
        assertThat(result.path("status").asString()).isEqualTo("executed");
        assertThat(result.path("tool").asString()).isEqualTo("incident__list");
        assertThat(result.path("result").get(0).path("title").asString()).isEqualTo("disk full");
        assertThat(answer).contains("disk full");
    }

    @Test
    void aCreateComesBackAsAProposalAndNothingIsCreatedUntilTheHostApplies() {
        gate(ToolBudget.unlimited());
        List<Proposal> cards = new CopyOnWriteArrayList<>();
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(current::get)
                .onProposal(cards::add).build();
        ScriptedChatModel model = ScriptedChatModel.calling(
                new ScriptedChatModel.Call("incident__create", "{\"title\":\"db down\",\"severity\":\"high\"}"));

        String answer = ask(model, tools);

        JsonNode proposal = lastResult(model);
        assertThat(proposal.path("status").asString()).isEqualTo("awaiting_user");
        assertThat(proposal.path("summary").asString()).isEqualTo("Open incident 'db down' (high)");
        assertThat(proposal.has("token")).as("the token is hidden from the model by default").isFalse();
        assertThat(answer).doesNotContain("propose:");
        assertThat(incidents.byId).isEmpty();
        assertThat(incidents.executions).hasValue(0);
        assertThat(cards).hasSize(1);
        assertThat(tools.heldTokens()).isEqualTo(1);

        // the user agreed: the host applies by the id the model saw
        String proposalId = proposal.path("proposalId").asString();
        Applied applied = tools.apply(CallContext.of(writer), proposalId);

        assertThat(applied.status()).isEqualTo("applied");
        assertThat(incidents.byId.values()).extracting(Incidents.Incident::title).containsExactly("db down");
        assertThat(tools.heldTokens()).isZero();
        assertThatThrownBy(() -> tools.apply(CallContext.of(writer), proposalId))
                .isInstanceOf(UnknownProposalException.class).hasMessageContaining(proposalId);
        assertThat(incidents.byId).hasSize(1);
    }

    @Test
    void theHostCanApplyTheTokenFromTheConfirmCardItself() {
        gate(ToolBudget.unlimited());
        List<Proposal> cards = new CopyOnWriteArrayList<>();
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(current::get)
                .onProposal(cards::add).build();
        ask(ScriptedChatModel.calling(new ScriptedChatModel.Call("incident__create", "{\"title\":\"x\",\"severity\":\"low\"}")),
                tools);
        assertThat(incidents.byId).isEmpty();

        gate.apply(CallContext.of(writer), cards.get(0).token());

        assertThat(incidents.byId.values()).extracting(Incidents.Incident::severity).containsExactly("low");
    }

    @Test
    void showTokenToModelPutsTheTokenInTheResult() {
        gate(ToolBudget.unlimited());
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(current::get)
                .showTokenToModel(true).build();
        ScriptedChatModel model = ScriptedChatModel.calling(
                new ScriptedChatModel.Call("incident__create", "{\"title\":\"y\",\"severity\":\"low\"}"));
        ask(model, tools);

        String token = lastResult(model).path("token").asString();
        assertThat(token).startsWith("propose:");
        assertThat(tools.heldTokens()).isZero();
        gate.apply(CallContext.of(writer), token);
        assertThat(incidents.byId).hasSize(1);
    }

    @Test
    void aHiddenToolIsNotOfferedToTheModel() {
        gate(ToolBudget.unlimited());
        current.set(reader);
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(current::get).build();
        ScriptedChatModel model = ScriptedChatModel.calling(
                new ScriptedChatModel.Call("incident__create", "{\"title\":\"z\",\"severity\":\"low\"}"));

        String answer = ask(model, tools);

        assertThat(model.offered()).hasSize(1);
        assertThat(model.offered().get(0)).containsExactly("incident__list");
        assertThat(answer).isEqualTo("No tool was used.");

        // resolved per request: the same provider offers more to a writer
        current.set(writer);
        ScriptedChatModel second = ScriptedChatModel.calling();
        ask(second, tools);
        assertThat(second.offered().get(0)).containsExactly("incident__create", "incident__list", "incident__retitle");
    }

    @Test
    void aCallForAToolThePrincipalCannotSeeIsReportedUnknownAndRunsNothing() {
        gate(ToolBudget.unlimited());
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(current::get)
                .principalFromToolContext(ctx -> (Principal) ctx.getContext().get("principal")).build();
        ScriptedChatModel model = ScriptedChatModel.calling(
                new ScriptedChatModel.Call("incident__create", "{\"title\":\"z\",\"severity\":\"low\"}"));

        // listed for the writer, but this request's tool context says the reader calls
        ChatClient.create(model).prompt("go").toolCallbacks(tools).toolContext(Map.of("principal", reader)).call().content();

        assertThat(lastResult(model).path("status").asString()).isEqualTo("unknown_tool");
        assertThat(incidents.executions).hasValue(0);
        assertThat(tools.heldTokens()).isZero();
    }

    @Test
    void overBudgetIsReportedToTheModelWithRetryAfterNotThrown() {
        gate(ToolBudget.perPrincipal(1, Duration.ofMinutes(1)));
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(current::get).build();
        ScriptedChatModel model = ScriptedChatModel.calling(
                new ScriptedChatModel.Call("incident__list", "{\"severity\":\"low\"}"),
                new ScriptedChatModel.Call("incident__list", "{\"severity\":\"low\"}"));

        String answer = ask(model, tools);

        List<String> results = model.toolResults();
        assertThat(results).hasSize(2);
        assertThat(Json.parse(results.get(0)).path("status").asString()).isEqualTo("executed");
        JsonNode over = Json.parse(results.get(1));
        assertThat(over.path("status").asString()).isEqualTo("over_budget");
        assertThat(over.path("retryAfterSeconds").asLong()).isBetween(1L, 60L);
        assertThat(over.path("limit").asInt()).isEqualTo(1);
        assertThat(answer).contains("over_budget");
    }

    @Test
    void invalidArgumentsComeBackAsFeedbackTheModelCanCorrect() {
        gate(ToolBudget.unlimited());
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(current::get).build();
        ScriptedChatModel model = ScriptedChatModel.calling(
                new ScriptedChatModel.Call("incident__create", "{\"title\":42,\"severity\":\"low\",\"extra\":true}"));

        ask(model, tools);

        JsonNode feedback = lastResult(model);
        assertThat(feedback.path("status").asString()).isEqualTo("invalid");
        assertThat(feedback.path("issues").isArray()).isTrue();
        assertThat(feedback.path("issues").size()).isPositive();
        assertThat(incidents.executions).hasValue(0);
        assertThat(tools.heldTokens()).isZero();
    }

    @Test
    void theDefinitionsCarryTheGatesSchemaAndDescription() {
        gate(ToolBudget.unlimited());
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(current::get).build();
        var create = java.util.Arrays.stream(tools.getToolCallbacks())
                .filter(c -> c.getToolDefinition().name().equals("incident__create")).findFirst().orElseThrow();

        assertThat(create.getToolDefinition().description()).isEqualTo("Opens an incident");
        assertThat(Json.parse(create.getToolDefinition().inputSchema()))
                .isEqualTo(gate.registry().find("incident.create").orElseThrow().descriptor().inputSchema());
        assertThat(Json.parse(create.call("{\"title\":\"t\",\"severity\":\"low\"}")).path("status").asString())
                .isEqualTo("awaiting_operator");
        assertThat(incidents.byId).isEmpty();
    }

    @Test
    void noPrincipalMeansNoToolsAndNoCalls() {
        gate(ToolBudget.unlimited());
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(() -> null).build();
        assertThat(tools.getToolCallbacks()).isEmpty();
        assertThatThrownBy(() -> ToolgateToolCallbacks.builder(gate).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("principal");
    }
}
