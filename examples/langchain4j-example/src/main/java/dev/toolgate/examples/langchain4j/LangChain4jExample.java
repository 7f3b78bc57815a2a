package dev.toolgate.examples.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.conversation.DecisionNotes;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.GateSettings;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import dev.toolgate.langchain4j.ToolgateToolProvider;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;

/**
 * LangChain4j's AiServices with Toolgate's tools, wired for the whole consent loop by
 * {@code tools.configure(AiServices.builder(...))}: the model sends several tool calls in one response (a
 * search, a create, the create again, a tool it was not offered) and gets an answer for each; the create
 * waits for consent; an operator declines it and the model is told on its next turn; its retry is
 * answered with the decline; a new proposal the user agrees to is applied, and the model is told the
 * result. The model is scripted so the example runs without an API key; swap in any LangChain4j ChatModel.
 *
 * <p>Run: {@code ./mvnw -q -pl examples/langchain4j-example -am compile exec:java}
 */
public final class LangChain4jExample {

    /** The AI service. */
    interface Assistant {
        String chat(@MemoryId String user, @UserMessage String message);
    }

    record Query(String text) {
    }

    record NewIncident(String title, String severity) {
    }

    private LangChain4jExample() {
    }

    public static void main(String[] args) {
        List<String> incidents = new CopyOnWriteArrayList<>(List.of("Database slow"));
        Tool<Query, List<String>> find = Tool.builder("find", Query.class).description("Find incidents by title text.")
                .effect(Effect.READ).requires("incident.read")
                .execute((Query q, ToolContext c) -> incidents.stream().filter(t -> t.contains(q.text())).toList())
                .build();
        Tool<NewIncident, String> create = Tool.builder("create", NewIncident.class).description("Open an incident.")
                .effect(Effect.MUTATE).requires("incident.manage")
                .dryRun((NewIncident in, ToolContext c) -> Preview.<NewIncident>of("Open incident \"" + in.title() + "\" ("
                        + in.severity() + ")"))
                .execute((NewIncident in, ToolContext c) -> {
                    incidents.add(in.title() + " (" + in.severity() + ")");
                    return "opened " + in.title();
                })
                .build();
        Map<String, Principal> users = Map.of("alice", Principal.user("alice", "incident.read", "incident.manage"));
        CallContext operator = CallContext.of(Principal.user("olga", "incident.read", "incident.manage",
                GateSettings.DEFAULT_APPROVER_RULE));
        List<Proposal> cards = new CopyOnWriteArrayList<>(); // the host's confirm cards, tokens included

        try (Toolgate gate = Toolgate.builder().discoverTools(false).tools("incident", find, create).build()) {
            // the adoption: a ToolProvider that resolves the caller per request, and the AI service wired by it
            ToolgateToolProvider tools = ToolgateToolProvider.builder(gate)
                    .principal(request -> users.get((String) request.chatMemoryId()))
                    .onProposal(cards::add)
                    .build();
            String slowAgain = "{\"title\":\"Database slow again\",\"severity\":\"high\"}";
            ScriptedModel model = new ScriptedModel(List.of(
                    List.of(call("incident__find", "{\"text\":\"Database\"}"), call("incident__create", slowAgain),
                            call("incident__create", slowAgain), call("incident__purge", "{}")),
                    List.of(),                                         // "any news?"
                    List.of(call("incident__create", slowAgain)),      // the model retries
                    List.of(call("incident__create", "{\"title\":\"Database slow again\",\"severity\":\"low\"}")),
                    List.of()));                                       // "done?"
            Assistant assistant = tools.configure(AiServices.builder(Assistant.class)).chatModel(model)
                    .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).build();

            System.out.println("1. alice: is the database slow? if so open an incident (four calls in one response)");
            System.out.println("   " + assistant.chat("alice", "Is the database slow? If so open an incident."));
            PendingProposal card = gate.pending(operator, "alice").get(0);
            System.out.println("   one proposal waits, nothing opened: " + card.summary() + "; incidents " + incidents);

            gate.reject(operator, card.callId(), "INC-4 already covers it");
            System.out.println("\n2. olga declines it in the inbox; alice: any news?");
            System.out.println("   " + assistant.chat("alice", "Any news?"));

            System.out.println("\n3. alice: please just open it (the model retries the declined change)");
            System.out.println("   " + assistant.chat("alice", "Please just open it."));

            System.out.println("\n4. alice: then a low one");
            System.out.println("   " + assistant.chat("alice", "Then a low one."));
            Proposal agreed = cards.get(cards.size() - 1); // alice agreed on the host's confirm card
            tools.apply(CallContext.of(users.get("alice")), agreed.token());
            System.out.println("   alice agrees and the host applies it; incidents now " + incidents);

            System.out.println("\n5. alice: done?");
            System.out.println("   " + assistant.chat("alice", "Done?"));
        }
    }

    private static ScriptedModel.Call call(String name, String arguments) {
        return new ScriptedModel.Call(name, arguments);
    }

    /**
     * Each user turn sends the next scripted response's tool calls, then answers with each tool's status,
     * and says what Toolgate told it before the user's message.
     */
    static final class ScriptedModel implements ChatModel {

        record Call(String name, String arguments) {
        }

        private final List<List<Call>> turns;
        private final AtomicInteger next = new AtomicInteger();

        ScriptedModel(List<List<Call>> turns) {
            this.turns = turns;
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            if (messages.get(messages.size() - 1) instanceof ToolExecutionResultMessage) {
                List<String> said = new ArrayList<>();
                for (int i = messages.size() - 1; i >= 0 && messages.get(i) instanceof ToolExecutionResultMessage r; i--) {
                    JsonNode json = Json.parse(r.text());
                    said.add(0, r.toolName() + " -> " + json.path("status").asString()
                            + (json.has("reason") ? " (" + json.path("reason").asString() + ")" : ""));
                }
                return ChatResponse.builder().aiMessage(AiMessage.from("(model) " + String.join("; ", said))).build();
            }
            String told = told(messages);
            int turn = next.getAndIncrement();
            List<Call> calls = turn < turns.size() ? turns.get(turn) : List.of();
            if (calls.isEmpty()) {
                return ChatResponse.builder().aiMessage(AiMessage.from("(model) " + (told.isEmpty() ? "Nothing new." : told)))
                        .build();
            }
            List<ToolExecutionRequest> requests = new ArrayList<>();
            for (Call call : calls) {
                requests.add(ToolExecutionRequest.builder().id("call-" + turn + "-" + requests.size()).name(call.name())
                        .arguments(call.arguments()).build());
            }
            return ChatResponse.builder().aiMessage(AiMessage.from(requests)).build();
        }

        private static String told(List<ChatMessage> messages) {
            var user = dev.langchain4j.data.message.UserMessage.findLast(messages).orElse(null);
            if (user == null || !(user.contents().get(0) instanceof TextContent first)
                    || !first.text().startsWith(DecisionNotes.HEADER)) {
                return "";
            }
            List<String> decisions = new ArrayList<>();
            for (String line : first.text().substring(DecisionNotes.HEADER.length()).strip().split("\n")) {
                JsonNode note = Json.parse(line);
                decisions.add("I was told that " + note.path("summary").asString() + " was "
                        + note.path("decision").asString() + " by the " + note.path("decidedBy").asString()
                        + (note.has("reason") ? ": \"" + note.path("reason").asString() + "\"" : "")
                        + (note.has("result") ? " -> " + Json.write(note.path("result")) : ""));
            }
            return String.join("; ", decisions) + ".";
        }
    }
}
