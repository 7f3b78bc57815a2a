package dev.toolgate.langchain4j;

import static dev.toolgate.langchain4j.ScriptedChatModel.ANSWER;
import static dev.toolgate.langchain4j.ScriptedChatModel.FAIL;
import static dev.toolgate.langchain4j.ScriptedChatModel.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.conversation.DecisionNotes;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.GateSettings;
import dev.toolgate.json.Json;
import dev.toolgate.spi.ToolgateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The consent loop as it is lived in LangChain4j's own tool loop ({@code AiServices}), wired as the README
 * shows ({@code tools.configure(AiServices.builder(...))}): a scripted model sends, in one response, a
 * read, a mutation, a tool it may not see, made-up and wrongly mapped names and the mutation again; an
 * operator declines with a reason; the model is told on its next turn, once; a retry is answered with the
 * decline; a new proposal is approved and the model is told the result.
 */
class ConsentLoopTest {

    interface Assistant {
        String chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    static final String CREATE = "{\"title\":\"Disk full\",\"severity\":\"high\"}";
    static final Map<String, Principal> USERS = Map.of("alice", Principal.user("alice", "incident.read", "incident.manage"));
    static final CallContext OPERATOR = CallContext.of(Principal.user("olga", "incident.read", "incident.manage",
            GateSettings.DEFAULT_APPROVER_RULE));

    private final List<Toolgate> gates = new ArrayList<>();

    @AfterEach
    void close() {
        gates.forEach(Toolgate::close);
    }

    static Assistant assistant(Toolgate gate, ScriptedChatModel model) {
        ToolgateToolProvider tools = ToolgateToolProvider.builder(gate)
                .principal(request -> USERS.get((String) request.chatMemoryId())).build();
        return tools.configure(AiServices.builder(Assistant.class)).chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(50)).build();
    }

    private Toolgate gate(Incidents incidents, ToolgateStore store) {
        Toolgate gate = incidents.gate(ToolBudget.unlimited(), store);
        gates.add(gate);
        return gate;
    }

    /** The tool results the model received in request {@code index}, in the order of its last response. */
    static List<ToolExecutionResultMessage> resultsIn(ScriptedChatModel model, int index) {
        List<ChatMessage> messages = model.requests.get(index).messages();
        List<ToolExecutionResultMessage> results = new ArrayList<>();
        for (int i = messages.size() - 1; i >= 0 && messages.get(i) instanceof ToolExecutionResultMessage r; i--) {
            results.add(0, r);
        }
        return results;
    }

    static JsonNode json(ToolExecutionResultMessage result) {
        return Json.parse(result.text());
    }

    /** The text of the last user message of request {@code index}. */
    static String userText(ScriptedChatModel model, int index) {
        ChatRequest request = model.requests.get(index);
        UserMessage user = UserMessage.findLast(request.messages()).orElseThrow();
        return user.contents().stream().map(c -> ((dev.langchain4j.data.message.TextContent) c).text())
                .collect(Collectors.joining("\n\n"));
    }

    static List<JsonNode> notesIn(String userText) {
        if (!userText.startsWith(DecisionNotes.HEADER)) {
            return List.of();
        }
        String block = userText.substring(DecisionNotes.HEADER.length()).split("\n\n", 2)[0];
        return block.lines().filter(l -> !l.isBlank()).map(Json::parse).toList();
    }

    @Test
    void everyCallOfOneResponseIsAnsweredInOrderAndEveryDecisionIsToldOnce() {
        Incidents incidents = new Incidents();
        Toolgate gate = gate(incidents, null);
        ScriptedChatModel model = ScriptedChatModel.sending(
                List.of(call("incident__find", "{\"text\":\"Disk\"}"), call("incident__create", CREATE), call("admin__purge", "{}"),
                        call("drop_all_tables", "{}"), call("incident.create", CREATE), call("incident__create", CREATE)),
                ANSWER,                                                  // turn 1 ends
                ANSWER,                                                  // turn 2: told of the decline
                List.of(call("incident__create", CREATE)), ANSWER,       // turn 3: the retry
                List.of(call("incident__create", "{\"title\":\"Disk full\",\"severity\":\"low\"}")), ANSWER,
                ANSWER,                                                  // turn 5: told of the apply
                ANSWER);                                                 // turn 6
        Assistant assistant = assistant(gate, model);

        assistant.chat("alice", "open an incident for the full disk");
        assertThat(model.requests.get(0).toolSpecifications()).extracting(s -> s.name())
                .containsExactlyInAnyOrder("incident__find", "incident__create");
        List<ToolExecutionResultMessage> answers = resultsIn(model, 1);
        assertThat(answers).extracting(ToolExecutionResultMessage::id)
                .containsExactly("call-0-0", "call-0-1", "call-0-2", "call-0-3", "call-0-4", "call-0-5");
        assertThat(answers).extracting(ToolExecutionResultMessage::toolName).containsExactly(
                "incident__find", "incident__create", "admin__purge", "drop_all_tables", "incident.create", "incident__create");
        assertThat(answers).extracting(a -> json(a).path("status").asString()).containsExactly(
                "executed", "awaiting_operator", "unknown_tool", "unknown_tool", "unknown_tool", "duplicate");
        assertThat(json(answers.get(5)).path("message").asString()).contains("Use the answer to the first call");
        String proposalId = json(answers.get(1)).path("callId").asString();
        assertThat(incidents.reads).hasValue(1);
        assertThat(incidents.mutations).as("nothing hidden or unapproved ran").hasValue(0);
        assertThat(gate.pending(OPERATOR, null)).singleElement().satisfies(p -> assertThat(p.callId()).isEqualTo(proposalId));

        gate.reject(OPERATOR, proposalId, "a duplicate of INC-7");

        assistant.chat("alice", "any news?");
        String told = userText(model, 2);
        assertThat(told).endsWith("\n\nany news?");
        assertThat(notesIn(told)).singleElement().satisfies(note -> {
            assertThat(note.path("proposalId").asString()).isEqualTo(proposalId);
            assertThat(note.path("tool").asString()).isEqualTo("incident__create");
            assertThat(note.path("decision").asString()).isEqualTo("declined");
            assertThat(note.path("decidedBy").asString()).isEqualTo("operator");
            assertThat(note.path("reason").asString()).isEqualTo("a duplicate of INC-7");
        });

        assistant.chat("alice", "please just create it");
        assertThat(notesIn(userText(model, 3))).as("told once").isEmpty();
        JsonNode retry = json(resultsIn(model, 4).get(0));
        assertThat(retry.path("status").asString()).isEqualTo("declined");
        assertThat(retry.path("reason").asString()).isEqualTo("a duplicate of INC-7");
        assertThat(gate.pending(OPERATOR, null)).isEmpty();

        assistant.chat("alice", "a low one then");
        assertThat(notesIn(userText(model, 6))).as("the decisions are repeated in every request of the invocation")
                .isEmpty();
        String second = json(resultsIn(model, 6).get(0)).path("callId").asString();
        gate.approve(OPERATOR, second, Approval.once());

        assistant.chat("alice", "done?");
        assertThat(notesIn(userText(model, 7))).singleElement().satisfies(note -> {
            assertThat(note.path("proposalId").asString()).isEqualTo(second);
            assertThat(note.path("decision").asString()).isEqualTo("applied");
            assertThat(note.path("result").path("severity").asString()).isEqualTo("low");
        });
        assistant.chat("alice", "thanks");
        assertThat(notesIn(userText(model, 8))).isEmpty();
        assertThat(incidents.mutations).as("the approved mutation ran once").hasValue(1);
        String everything = model.requests.stream().flatMap(r -> r.messages().stream()).map(Object::toString)
                .collect(Collectors.joining("\n"));
        assertThat(everything).as("no token ever reaches the model").doesNotContain("propose:");
    }

    @Test
    void theDecisionsStayInEveryRequestOfTheInvocationThatTellsThem() {
        Incidents incidents = new Incidents();
        Toolgate gate = gate(incidents, null);
        ScriptedChatModel model = ScriptedChatModel.sending(List.of(call("incident__create", CREATE)), ANSWER,
                List.of(call("incident__find", "{\"text\":\"Disk\"}")), ANSWER);
        Assistant assistant = assistant(gate, model);
        assistant.chat("alice", "open it");
        gate.reject(OPERATOR, json(resultsIn(model, 1).get(0)).path("callId").asString(), "no");

        assistant.chat("alice", "look for it");

        assertThat(notesIn(userText(model, 2))).hasSize(1);
        assertThat(notesIn(userText(model, 3))).as("the tool loop's next request of the same turn").hasSize(1);
        assertThat(model.requests.get(3).messages()).filteredOn(m -> m instanceof UserMessage).as("memory is not changed")
                .hasSize(2);
    }

    @Test
    void aHiddenToolsAnswerIsByteForByteTheAnswerForAToolThatDoesNotExist() {
        List<String> answers = new ArrayList<>();
        for (String name : List.of("admin__purge", "admin__purge_everything")) {
            Toolgate gate = gate(new Incidents(), null);
            ScriptedChatModel model = ScriptedChatModel.sending(List.of(call(name, "{}")), ANSWER);
            assistant(gate, model).chat("alice", "purge");
            answers.add(resultsIn(model, 1).get(0).text().replace(name, "NAME"));
            assertThat(resultsIn(model, 1).get(0).isError()).isFalse();
        }
        assertThat(answers.get(0)).isEqualTo(answers.get(1));
    }

    @Test
    void aFailedModelCallKeepsItsDecisionsForTheNextTurnAndItsProposalsAreStillReported() {
        Incidents incidents = new Incidents();
        Toolgate gate = gate(incidents, null);
        ScriptedChatModel model = ScriptedChatModel.sending(List.of(call("incident__create", CREATE)), FAIL, FAIL, ANSWER);
        Assistant assistant = assistant(gate, model);

        assertThatThrownBy(() -> assistant.chat("alice", "open it")).hasMessageContaining("unavailable");
        String proposalId = json(resultsIn(model, 1).get(0)).path("callId").asString();
        gate.reject(OPERATOR, proposalId, "not during the freeze");

        assertThatThrownBy(() -> assistant.chat("alice", "hello?")).hasMessageContaining("unavailable");
        assertThat(notesIn(userText(model, 2))).hasSize(1);

        assistant.chat("alice", "hello again?");
        assertThat(notesIn(userText(model, 3))).as("given back, told again").singleElement()
                .satisfies(n -> assertThat(n.path("reason").asString()).isEqualTo("not during the freeze"));
    }

    @Test
    void callsRunAtOnceInOneResponseStillMakeOneProposal() {
        Incidents incidents = new Incidents();
        Toolgate gate = gate(incidents, null);
        List<ScriptedChatModel.Call> same = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            same.add(call("incident__create", CREATE));
        }
        ScriptedChatModel model = ScriptedChatModel.sending(same, ANSWER);
        ToolgateToolProvider tools = ToolgateToolProvider.builder(gate)
                .principal(request -> USERS.get((String) request.chatMemoryId())).build();
        Assistant assistant = tools.configure(AiServices.builder(Assistant.class)).chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(50))
                .executeToolsConcurrently(java.util.concurrent.Executors.newFixedThreadPool(8)).build();

        assistant.chat("alice", "open it, quickly");

        List<String> statuses = resultsIn(model, 1).stream().map(r -> json(r).path("status").asString()).toList();
        assertThat(statuses).filteredOn("awaiting_operator"::equals).hasSize(1);
        assertThat(statuses).filteredOn("duplicate"::equals).hasSize(7);
        assertThat(gate.pending(OPERATOR, null)).hasSize(1);
    }
}
