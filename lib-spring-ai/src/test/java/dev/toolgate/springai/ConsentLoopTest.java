package dev.toolgate.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.conversation.DecisionNotes;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.GateSettings;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.json.Json;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Tool;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import tools.jackson.databind.JsonNode;

/**
 * The consent loop as it is lived in Spring AI's own tool loop, wired as the README shows
 * ({@code defaultAdvisors(tools.advisor())}): a scripted model sends, in one response, a read, a mutation,
 * a tool it may not see, made-up and wrongly mapped names and the mutation again; an operator declines
 * with a reason; the model is told on its next turn, once; a retry is answered with the decline; a new
 * proposal is approved and the model is told the result. Every message the model receives is checked.
 */
class ConsentLoopTest {

    static final String CONVERSATION = "conv-1";
    static final String CREATE = "{\"title\":\"db down\",\"severity\":\"high\"}";
    static final String LIST = "{\"severity\":\"high\"}";

    private final Incidents incidents = new Incidents();
    private final Principal ana = Principal.user("ana", Incidents.READ, Incidents.WRITE);
    private final Principal operator = Principal.user("olga", Incidents.READ, Incidents.WRITE,
            GateSettings.DEFAULT_APPROVER_RULE);
    private final List<Toolgate> gates = new ArrayList<>();

    @AfterEach
    void close() {
        gates.forEach(Toolgate::close);
    }

    private Toolgate gate(Incidents domain, UnaryOperator<List<Tool<?, ?>>> tools) {
        Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(ToolBudget.unlimited()).tools("incident", tools.apply(domain.tools()).toArray(new Tool<?, ?>[0])).build();
        gates.add(gate);
        return gate;
    }

    static String ask(ChatClient chat, String question) {
        return chat.prompt(question).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, CONVERSATION)).call().content();
    }

    static ScriptedChatModel.Call call(String tool, String arguments) {
        return new ScriptedChatModel.Call(tool, arguments);
    }

    /** The tool responses of the prompt the model received in {@code round}, in order. */
    static List<ToolResponseMessage.ToolResponse> responsesIn(ScriptedChatModel model, int round) {
        List<Message> messages = model.prompts().get(round);
        return ((ToolResponseMessage) messages.get(messages.size() - 1)).getResponses();
    }

    static JsonNode json(ToolResponseMessage.ToolResponse response) {
        return Json.parse(response.responseData());
    }

    /** The last user message of the prompt the model received in {@code round}. */
    static String userText(ScriptedChatModel model, int round) {
        List<Message> messages = model.prompts().get(round);
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof UserMessage user) {
                return user.getText();
            }
        }
        throw new AssertionError("no user message in round " + round);
    }

    /** The decision notes in a user message, one JSON object each. */
    static List<JsonNode> notesIn(String userText) {
        if (!userText.startsWith(DecisionNotes.HEADER)) {
            return List.of();
        }
        String block = userText.substring(DecisionNotes.HEADER.length()).split("\n\n", 2)[0];
        return block.lines().filter(l -> !l.isBlank()).map(Json::parse).toList();
    }

    static String everything(ScriptedChatModel model) {
        return model.prompts().stream().flatMap(List::stream).map(m -> m.getText() + (m instanceof ToolResponseMessage t
                ? t.getResponses().stream().map(ToolResponseMessage.ToolResponse::responseData).collect(Collectors.joining())
                : "")).collect(Collectors.joining("\n"));
    }

    @Test
    void everyCallOfOneResponseIsAnsweredInOrderAndEveryDecisionIsToldOnce() {
        Toolgate gate = gate(incidents, t -> t);
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(() -> ana).build();
        ScriptedChatModel model = ScriptedChatModel.sending(
                List.of(call("incident__list", LIST), call("incident__create", CREATE), call("incident__purge", "{\"severity\":\"low\"}"),
                        call("drop_all_tables", "{}"), call("incident.create", CREATE), call("incident__create", CREATE)),
                ScriptedChatModel.ANSWER,                                  // turn 1 ends
                ScriptedChatModel.ANSWER,                                  // turn 2: told of the decline
                List.of(call("incident__create", CREATE)), ScriptedChatModel.ANSWER,   // turn 3: the retry
                List.of(call("incident__create", "{\"title\":\"db down\",\"severity\":\"critical\"}")),
                ScriptedChatModel.ANSWER,                                  // turn 4: a new proposal
                ScriptedChatModel.ANSWER,                                  // turn 5: told of the apply
                ScriptedChatModel.ANSWER);                                 // turn 6: nothing new
        ChatClient chat = ChatClient.builder(model).defaultAdvisors(tools.advisor()).build();

        // turn 1: six calls in one response
        ask(chat, "open an incident for the database and list the high ones");
        assertThat(model.offered().get(0)).as("the hidden tool is not offered")
                .containsExactly("incident__create", "incident__list", "incident__retitle");
        List<ToolResponseMessage.ToolResponse> answers = responsesIn(model, 1);
        assertThat(answers).extracting(ToolResponseMessage.ToolResponse::id)
                .containsExactly("call_0_0", "call_0_1", "call_0_2", "call_0_3", "call_0_4", "call_0_5");
        assertThat(answers).extracting(ToolResponseMessage.ToolResponse::name).containsExactly(
                "incident__list", "incident__create", "incident__purge", "drop_all_tables", "incident.create", "incident__create");
        assertThat(answers).extracting(a -> json(a).path("status").asString()).containsExactly(
                "executed", "awaiting_operator", "unknown_tool", "unknown_tool", "unknown_tool", "duplicate");
        assertThat(json(answers.get(5)).path("message").asString()).contains("Use the answer to the first call");
        String proposalId = json(answers.get(1)).path("proposalId").asString();
        assertThat(incidents.reads).hasValue(1);
        assertThat(incidents.executions).as("nothing hidden or unapproved ran").hasValue(0);
        List<PendingProposal> pending = gate.pending(CallContext.of(operator), null);
        assertThat(pending).as("the same mutation twice in one response: one proposal").singleElement()
                .satisfies(p -> assertThat(p.callId()).isEqualTo(proposalId));
        assertThat(tools.heldTokens()).isEqualTo(1);

        gate.reject(CallContext.of(operator), proposalId, "a duplicate of INC-7");

        // turn 2: the model is told of the decline, before the user's words, once
        ask(chat, "any news?");
        String told = userText(model, 2);
        assertThat(told).endsWith("\n\nany news?");
        List<JsonNode> notes = notesIn(told);
        assertThat(notes).singleElement().satisfies(note -> {
            assertThat(note.path("proposalId").asString()).isEqualTo(proposalId);
            assertThat(note.path("tool").asString()).isEqualTo("incident__create");
            assertThat(note.path("decision").asString()).isEqualTo("declined");
            assertThat(note.path("decidedBy").asString()).isEqualTo("operator");
            assertThat(note.path("reason").asString()).isEqualTo("a duplicate of INC-7");
            assertThat(note.path("summary").asString()).isEqualTo("Open incident 'db down' (high)");
        });
        assertThat(tools.heldTokens()).as("a decided proposal's token is released").isZero();

        // turn 3: the model retries the declined change: told it was declined, nothing new proposed
        ask(chat, "please just create it");
        assertThat(notesIn(userText(model, 3))).as("told once").isEmpty();
        JsonNode retry = json(responsesIn(model, 4).get(0));
        assertThat(retry.path("status").asString()).isEqualTo("declined");
        assertThat(retry.path("reason").asString()).isEqualTo("a duplicate of INC-7");
        assertThat(retry.path("proposalId").asString()).isEqualTo(proposalId);
        assertThat(gate.pending(CallContext.of(operator), null)).isEmpty();

        // turn 4: a different change is proposed, and approved
        ask(chat, "then make it critical");
        String second = json(responsesIn(model, 6).get(0)).path("proposalId").asString();
        gate.approve(CallContext.of(operator), second, Approval.once());
        assertThat(incidents.executions).hasValue(1);

        // turn 5: told of the apply, with its result
        ask(chat, "done?");
        assertThat(notesIn(userText(model, 7))).singleElement().satisfies(note -> {
            assertThat(note.path("proposalId").asString()).isEqualTo(second);
            assertThat(note.path("decision").asString()).isEqualTo("applied");
            assertThat(note.path("result").path("id").asString()).isEqualTo("INC-1");
            assertThat(note.path("result").path("severity").asString()).isEqualTo("critical");
        });

        // turn 6: nothing new
        ask(chat, "thanks");
        assertThat(notesIn(userText(model, 8))).isEmpty();
        assertThat(incidents.byId).hasSize(1);
        assertThat(incidents.executions).as("the approved mutation ran once").hasValue(1);
        assertThat(everything(model)).as("no token ever reaches the model").doesNotContain("propose:");
    }

    @Test
    void aProposalThatWentStaleBeforeItsApprovalIsToldAsStaleWithWhatChanged() {
        Toolgate gate = gate(incidents, t -> t);
        incidents.byId.put("INC-1", new Incidents.Incident("INC-1", "disk full", "high"));
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(() -> ana).build();
        ScriptedChatModel model = ScriptedChatModel.sending(
                List.of(call("incident__retitle", "{\"id\":\"INC-1\",\"title\":\"disk full on db-1\"}"),
                        call("incident__retitle", "{\"id\":\"INC-1\",\"title\":\"db-1 out of space\"}")),
                ScriptedChatModel.ANSWER, ScriptedChatModel.ANSWER);
        ChatClient chat = ChatClient.builder(model).defaultAdvisors(tools.advisor()).build();
        ask(chat, "give INC-1 a better title");
        List<ToolResponseMessage.ToolResponse> answers = responsesIn(model, 1);
        String first = json(answers.get(0)).path("proposalId").asString();
        String second = json(answers.get(1)).path("proposalId").asString();

        gate.approve(CallContext.of(operator), first, Approval.once());
        assertThat(gate.approve(CallContext.of(operator), second, Approval.once()))
                .isInstanceOf(dev.toolgate.call.InboxResult.Stale.class);

        ask(chat, "which one did you keep?");
        List<JsonNode> notes = notesIn(userText(model, 2));
        assertThat(notes).extracting(n -> n.path("decision").asString()).containsExactly("applied", "stale");
        assertThat(notes.get(1).path("reason").asString()).contains("/before/title")
                .contains("\"disk full\" -> \"disk full on db-1\"");
        assertThat(notes.get(1).path("next").asString()).contains("propose it again from the current state");
        assertThat(incidents.byId.get("INC-1").title()).isEqualTo("disk full on db-1");
        assertThat(incidents.executions).hasValue(1);
    }

    @Test
    void aHiddenToolsAnswerIsByteForByteTheAnswerForAToolThatDoesNotExist() {
        Toolgate withPurge = gate(incidents, t -> t);
        Toolgate withoutPurge = gate(new Incidents(), t -> t.subList(0, 2));
        List<String> answers = new ArrayList<>();
        for (Toolgate gate : List.of(withPurge, withoutPurge)) {
            ScriptedChatModel model = ScriptedChatModel.sending(List.of(call("incident__purge", "{\"severity\":\"low\"}")),
                    ScriptedChatModel.ANSWER);
            ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(() -> ana).build();
            ask(ChatClient.builder(model).defaultAdvisors(tools.advisor()).build(), "purge");
            answers.add(responsesIn(model, 1).get(0).responseData());
        }
        assertThat(answers.get(0)).isEqualTo(answers.get(1));
        assertThat(withPurge.findCalls(dev.toolgate.audit.CallQuery.latest(10))).as("a hidden call leaves no row").isEmpty();
    }

    @Test
    void aFailedModelCallKeepsItsDecisionsForTheNextTurnAndItsProposalsAreStillReported() {
        Toolgate gate = gate(incidents, t -> t);
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(() -> ana).build();
        ScriptedChatModel model = ScriptedChatModel.sending(
                List.of(call("incident__create", CREATE)), ScriptedChatModel.FAIL, // turn 1: proposes, then the model fails
                ScriptedChatModel.FAIL,                                             // turn 2: fails before its answer
                ScriptedChatModel.ANSWER);                                          // turn 3
        ChatClient chat = ChatClient.builder(model).defaultAdvisors(tools.advisor()).build();

        assertThatThrownBy(() -> ask(chat, "open it")).hasMessageContaining("unavailable");
        String proposalId = json(responsesIn(model, 1).get(0)).path("proposalId").asString();
        gate.reject(CallContext.of(operator), proposalId, "not during the freeze");

        assertThatThrownBy(() -> ask(chat, "hello?")).hasMessageContaining("unavailable");
        assertThat(notesIn(userText(model, 2))).as("the failed turn carried it").hasSize(1);

        ask(chat, "hello again?");
        assertThat(notesIn(userText(model, 3))).as("given back, told again").singleElement()
                .satisfies(n -> assertThat(n.path("reason").asString()).isEqualTo("not during the freeze"));
        assertThat(tools.heldTokens()).isZero();
    }

    @Test
    void withChatMemoryAndStreamingTheDecisionReachesTheModelOnce() {
        Toolgate gate = gate(incidents, t -> t);
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(() -> ana).build();
        ScriptedChatModel model = ScriptedChatModel.sending(List.of(call("incident__create", CREATE)), ScriptedChatModel.ANSWER,
                ScriptedChatModel.ANSWER, ScriptedChatModel.ANSWER);
        ChatMemory memory = MessageWindowChatMemory.builder().maxMessages(50).build();
        ChatClient chat = ChatClient.builder(model)
                .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build(), tools.advisor()).build();

        String first = chat.prompt("open it").advisors(a -> a.param(ChatMemory.CONVERSATION_ID, CONVERSATION)).stream()
                .content().collectList().block().stream().collect(Collectors.joining());
        assertThat(first).contains("awaiting_operator");
        String proposalId = json(responsesIn(model, 1).get(0)).path("proposalId").asString();
        gate.approve(CallContext.of(operator), proposalId, Approval.once());

        ask(chat, "is it open?");
        assertThat(notesIn(userText(model, 2))).singleElement()
                .satisfies(n -> assertThat(n.path("decision").asString()).isEqualTo("applied"));
        assertThat(model.prompts().get(2).stream().filter(m -> m instanceof UserMessage).map(Message::getText))
                .as("the memory holds the conversation").contains("open it");
        ask(chat, "and now?");
        assertThat(notesIn(userText(model, 3))).isEmpty();
        assertThat(incidents.executions).hasValue(1);
    }

    @Test
    void theHostsOwnToolsStayBesideTheGatesAndTheirFailuresAreAnswered() {
        Toolgate gate = gate(incidents, t -> t);
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(() -> ana).build();
        org.springframework.ai.tool.ToolCallback clock = org.springframework.ai.tool.function.FunctionToolCallback
                .builder("clock", (java.util.function.Function<String, String>) in -> {
                    throw new IllegalStateException("clock broken: password=hunter2");
                }).inputType(String.class).description("the time").build();
        ScriptedChatModel model = ScriptedChatModel.sending(List.of(call("clock", "{}"), call("incident__list", LIST)),
                ScriptedChatModel.ANSWER);
        ChatClient chat = ChatClient.builder(model).defaultAdvisors(tools.advisor()).build();

        chat.prompt("time?").toolCallbacks(clock).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, CONVERSATION)).call().content();

        assertThat(model.offered().get(0)).containsExactly("clock", "incident__create", "incident__list", "incident__retitle");
        List<ToolResponseMessage.ToolResponse> answers = responsesIn(model, 1);
        assertThat(answers.get(0).responseData()).doesNotContain("hunter2");
        assertThat(json(answers.get(1)).path("status").asString()).isEqualTo("executed");
    }

    @Test
    void pastTheTurnsCallLimitTheRestIsAnsweredWithoutRunningAndTheLoopEnds() {
        Toolgate gate = gate(incidents, t -> t);
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(() -> ana).build();
        List<ScriptedChatModel.Call> many = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            many.add(call("incident__list", "{\"severity\":\"s" + i + "\"}"));
        }
        ScriptedChatModel model = ScriptedChatModel.sending(many, ScriptedChatModel.ANSWER);
        ChatClient chat = ChatClient.builder(model)
                .defaultAdvisors(ToolgateAdvisor.builder(tools).maxCallsPerTurn(3).build()).build();

        String answer = ask(chat, "list a lot");

        assertThat(incidents.reads).hasValue(3);
        assertThat(model.prompts()).as("the loop ended without another model call").hasSize(1);
        assertThat(answer).contains("3");
    }
}
