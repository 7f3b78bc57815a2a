package dev.toolgate.langchain4j;

import static dev.toolgate.langchain4j.ScriptedChatModel.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** LangChain4j's own tool loop (AiServices) driving gated tools through a scripted model. */
class AiServicesToolLoopTest {

    interface Assistant {
        String chat(@MemoryId String user, @UserMessage String message);
    }

    private static final Map<String, Principal> USERS = Map.of(
            "alice", Principal.user("alice", "incident.read", "incident.manage"),
            "bob", Principal.user("bob", "incident.read"),
            "root", Principal.user("root", "incident.read", "incident.manage", "admin"));

    private final Incidents incidents = new Incidents();
    private final List<Proposal> proposals = new CopyOnWriteArrayList<>();
    private Toolgate gate;

    @AfterEach
    void close() {
        if (gate != null) {
            gate.close();
        }
    }

    private Assistant assistant(ScriptedChatModel model, ToolBudget budget) {
        gate = incidents.gate(budget);
        ToolgateToolProvider tools = ToolgateToolProvider.builder(gate)
                .principal(request -> USERS.get((String) request.chatMemoryId()))
                .onProposal(proposals::add)
                .build();
        return AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
                .toolProvider(tools).build();
    }

    @Test
    void aReadRunsAndTheModelReadsItsResult() {
        ScriptedChatModel model = new ScriptedChatModel(call("incident__find", "{\"text\":\"Database\"}"));
        String answer = assistant(model, ToolBudget.unlimited()).chat("alice", "Any database incidents?");

        JsonNode result = Json.parse(model.toolResultsSeen().get(0));
        assertThat(result.get("status").asString()).isEqualTo("executed");
        assertThat(result.get("tool").asString()).isEqualTo("incident.find");
        assertThat(result.get("result").get(0).get("title").asString()).isEqualTo("Database slow");
        assertThat(answer).contains("Database slow");
    }

    @Test
    void aCreateComesBackAsAProposalAndRunsOnlyWhenTheHostApplies() {
        ScriptedChatModel model = new ScriptedChatModel(
                call("incident__create", "{\"title\":\"Disk full\",\"severity\":\"high\"}"));
        String answer = assistant(model, ToolBudget.unlimited()).chat("alice", "Open an incident: disk full");

        JsonNode seen = Json.parse(model.toolResultsSeen().get(0));
        assertThat(seen.get("status").asString()).isEqualTo("awaiting_user");
        assertThat(seen.get("summary").asString()).isEqualTo("Open incident \"Disk full\" (high)");
        assertThat(seen.has("token")).as("the token is not shown to the model by default").isFalse();
        assertThat(answer).contains("awaiting_user").doesNotContain("propose:");
        assertThat(incidents.all).extracting(Incidents.Incident::title).containsExactly("Database slow");

        assertThat(proposals).hasSize(1);
        Applied applied = ToolgateToolProvider.builder(gate).principal(r -> null).build()
                .apply(CallContext.of(USERS.get("alice")), proposals.get(0).token());
        assertThat(applied.toolName()).isEqualTo("incident.create");
        assertThat(incidents.all).extracting(Incidents.Incident::title).containsExactly("Database slow", "Disk full");
    }

    @Test
    void invalidArgumentsComeBackAsFeedbackAndChangeNothing() {
        ScriptedChatModel model = new ScriptedChatModel(
                call("incident__create", "{\"title\":\"Disk full\",\"severity\":\"urgent\"}"));
        assistant(model, ToolBudget.unlimited()).chat("alice", "Open an urgent incident");

        JsonNode seen = Json.parse(model.toolResultsSeen().get(0));
        assertThat(seen.get("status").asString()).isEqualTo("invalid");
        assertThat(seen.get("issues").get(0).get("path").asString()).isEqualTo("/severity");
        assertThat(proposals).isEmpty();
        assertThat(incidents.all).hasSize(1);
    }

    @Test
    void hiddenToolsAreNotOfferedAndEachCallerSeesTheirOwnTools() {
        ScriptedChatModel model = new ScriptedChatModel(call("admin__purge", "{}"));
        Assistant assistant = assistant(model, ToolBudget.unlimited());

        String answer = assistant.chat("bob", "Delete everything");
        assertThat(model.requests.get(0).toolSpecifications()).extracting(ToolSpecification::name)
                .containsExactly("incident__find");
        assertThat(answer).contains("not available");
        assertThat(incidents.all).hasSize(1);

        assistant.chat("root", "hello");
        assertThat(model.requests.get(model.requests.size() - 1).toolSpecifications())
                .extracting(ToolSpecification::name)
                .containsExactlyInAnyOrder("admin__purge", "incident__create", "incident__find");

        assistant.chat("mallory", "hello");
        assertThat(model.requests.get(model.requests.size() - 1).toolSpecifications()).isNullOrEmpty();
    }

    @Test
    void theOfferedSpecificationCarriesTheGateSchema() {
        ScriptedChatModel model = new ScriptedChatModel();
        assistant(model, ToolBudget.unlimited()).chat("alice", "hello");
        ToolSpecification create = model.requests.get(0).toolSpecifications().stream()
                .filter(s -> s.name().equals("incident__create")).findFirst().orElseThrow();
        assertThat(create.parameters().properties()).containsOnlyKeys("title", "severity");
        assertThat(create.parameters().required()).containsExactlyInAnyOrder("title", "severity");
        assertThat(create.description()).startsWith("Open an incident.").contains("Effect: mutate");
    }

    @Test
    void overBudgetIsReportedToTheModelNotThrown() {
        ScriptedChatModel model = new ScriptedChatModel(
                call("incident__find", "{\"text\":\"Database\"}"),
                call("incident__find", "{\"text\":\"Disk\"}"));
        String answer = assistant(model, ToolBudget.perPrincipal(1, Duration.ofMinutes(10)))
                .chat("alice", "Search twice");

        List<String> seen = model.toolResultsSeen();
        assertThat(Json.parse(seen.get(0)).get("status").asString()).isEqualTo("executed");
        JsonNode second = Json.parse(seen.get(1));
        assertThat(second.get("status").asString()).isEqualTo("over_budget");
        assertThat(second.get("retryAfterSeconds").asLong()).isBetween(1L, 600L);
        assertThat(answer).contains("over_budget");
    }

    @Test
    void aHiddenToolTheModelCallsAnywayDoesNotRun() {
        gate = incidents.gate(ToolBudget.unlimited());
        ScriptedChatModel model = new ScriptedChatModel(true, call("admin__purge", "{}"), call("admin.purge", "{}"));
        ToolgateToolProvider tools = ToolgateToolProvider.builder(gate)
                .principal(request -> USERS.get((String) request.chatMemoryId())).build();
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).toolProvider(tools)
                .hallucinatedToolNameStrategy(ToolgateToolProvider.unknownToolReply()).build();

        assistant.chat("bob", "Delete everything");
        List<String> seen = model.toolResultsSeen();
        assertThat(seen).hasSize(2);
        for (String result : seen) {
            assertThat(Json.parse(result).get("status").asString()).isEqualTo("unknown_tool");
        }
        assertThat(incidents.all).hasSize(1);
        assertThat(gate.findCalls(dev.toolgate.audit.CallQuery.latest(100))).isEmpty();
    }

    @Test
    void withoutTheReplyLangChain4jThrowsOnAnUnofferedToolAndStillNothingRuns() {
        gate = incidents.gate(ToolBudget.unlimited());
        ScriptedChatModel model = new ScriptedChatModel(true, call("admin__purge", "{}"));
        ToolgateToolProvider tools = ToolgateToolProvider.builder(gate)
                .principal(request -> USERS.get((String) request.chatMemoryId())).build();
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).toolProvider(tools).build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> assistant.chat("bob", "Delete everything"))
                .hasMessageContaining("admin__purge");
        assertThat(incidents.all).hasSize(1);
    }

    interface ParameterAssistant {
        String chat(@UserMessage String message, InvocationParameters parameters);
    }

    @Test
    void thePrincipalCanComeFromInvocationParameters() {
        gate = incidents.gate(ToolBudget.unlimited());
        ScriptedChatModel model = new ScriptedChatModel(call("incident__find", "{\"text\":\"Database\"}"));
        ToolgateToolProvider tools = ToolgateToolProvider.builder(gate)
                .principal(request -> USERS.get((String) request.invocationParameters().get("user"))).build();
        ParameterAssistant assistant = AiServices.builder(ParameterAssistant.class).chatModel(model)
                .toolProvider(tools).build();
        assistant.chat("Any database incidents?", InvocationParameters.from("user", "bob"));
        assertThat(model.requests.get(0).toolSpecifications()).extracting(ToolSpecification::name)
                .containsExactly("incident__find");
        assertThat(Json.parse(model.toolResultsSeen().get(0)).get("status").asString()).isEqualTo("executed");
    }

    @Test
    void theTokenIsShownOnlyWhenTheHostSaysSo() {
        gate = incidents.gate(ToolBudget.unlimited());
        ScriptedChatModel model = new ScriptedChatModel(
                call("incident__create", "{\"title\":\"Disk full\",\"severity\":\"low\"}"));
        ToolgateToolProvider tools = ToolgateToolProvider.builder(gate)
                .principal(request -> USERS.get((String) request.chatMemoryId())).exposeToken(true).build();
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).toolProvider(tools).build();
        assistant.chat("alice", "Open an incident");
        JsonNode seen = Json.parse(model.toolResultsSeen().get(0));
        assertThat(seen.get("token").asString()).startsWith("propose:");
        assertThat(incidents.all).hasSize(1);
    }

    @Test
    void aStoreOutageIsAResultTheModelCanRelayAndNothingRuns() {
        dev.toolgate.testkit.FlakyStore store = new dev.toolgate.testkit.FlakyStore(new dev.toolgate.spi.InMemoryStore());
        gate = incidents.gate(ToolBudget.perPrincipal(100, Duration.ofMinutes(1)), store);
        ToolgateToolProvider tools = ToolgateToolProvider.builder(gate)
                .principal(request -> USERS.get((String) request.chatMemoryId())).build();
        store.fail(new dev.toolgate.spi.StoreUnavailableException("Toolgate store unavailable: no connection within 5 s",
                null, dev.toolgate.spi.StoreFault.BUSY, Duration.ofSeconds(1)));
        ScriptedChatModel model = new ScriptedChatModel(call("incident__find", "{\"text\":\"Database\"}"));
        AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
                .toolProvider(tools).build().chat("alice", "Any database incidents?");

        JsonNode refused = Json.parse(model.toolResultsSeen().get(0));
        assertThat(refused.get("status").asString()).isEqualTo("unavailable");
        assertThat(refused.get("fault").asString()).isEqualTo("BUSY");
        assertThat(refused.get("retryAfterSeconds").asLong()).isEqualTo(1);
        assertThat(refused.get("message").asString()).contains("Try again in 1 s");
        assertThat(incidents.reads).as("a read that cannot be metered does not run").hasValue(0);
    }
}
