package dev.toolgate.examples.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
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
import dev.toolgate.gate.Applied;
import dev.toolgate.gate.CallContext;
import dev.toolgate.gate.Proposal;
import dev.toolgate.langchain4j.ToolgateToolProvider;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * LangChain4j's AiServices with Toolgate's tools. The model here is scripted (it searches, then opens
 * an incident, then answers with what it read) so the example runs without an API key; swap in any
 * LangChain4j ChatModel.
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

    public static void main(String[] args) {
        List<String> incidents = new CopyOnWriteArrayList<>(List.of("Database slow"));
        Tool<Query, List<String>> find = Tool.builder("find", Query.class).description("Find incidents by title text.")
                .effect(Effect.READ).requires("incident.read")
                .execute((Query q, ToolContext c) -> incidents.stream().filter(t -> t.contains(q.text())).toList())
                .build();
        Tool<NewIncident, Boolean> create = Tool.builder("create", NewIncident.class).description("Open an incident.")
                .effect(Effect.MUTATE).requires("incident.manage")
                .dryRun((NewIncident in, ToolContext c) -> Preview.<NewIncident>of("Open incident \"" + in.title() + "\""))
                .execute((NewIncident in, ToolContext c) -> incidents.add(in.title()))
                .build();
        Map<String, Principal> users = Map.of("alice", Principal.user("alice", "incident.read", "incident.manage"));
        List<Proposal> inbox = new CopyOnWriteArrayList<>();

        try (Toolgate gate = Toolgate.builder().discoverTools(false).tools("incident", find, create).build()) {
            // the adoption: a ToolProvider that resolves the caller per request
            ToolgateToolProvider tools = ToolgateToolProvider.builder(gate)
                    .principal(request -> users.get((String) request.chatMemoryId()))
                    .onProposal(inbox::add)
                    .build();
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(new ScriptedModel())
                    .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
                    .toolProvider(tools).build();

            System.out.println("model: " + assistant.chat("alice", "Is the database slow? If so open an incident."));
            System.out.println("incidents before consent: " + incidents);

            // the host's consent step (a confirm button in a real UI)
            Proposal proposal = inbox.get(0);
            System.out.println("awaiting consent: " + proposal.summary());
            Applied applied = tools.apply(CallContext.of(users.get("alice")), proposal.token());
            System.out.println("applied " + applied.toolName() + "; incidents now: " + incidents);
        }
    }

    /** Emits the tool calls a model would, then a final answer quoting the last tool result. */
    static final class ScriptedModel implements ChatModel {
        private final AtomicInteger turn = new AtomicInteger();

        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ToolExecutionRequest> script = List.of(
                    ToolExecutionRequest.builder().id("1").name("incident__find").arguments("{\"text\":\"Database\"}").build(),
                    ToolExecutionRequest.builder().id("2").name("incident__create")
                            .arguments("{\"title\":\"Database slow again\",\"severity\":\"high\"}").build());
            int step = turn.getAndIncrement();
            if (step < script.size()) {
                return ChatResponse.builder().aiMessage(AiMessage.from(script.get(step))).build();
            }
            List<ChatMessage> messages = request.messages();
            String last = messages.get(messages.size() - 1) instanceof ToolExecutionResultMessage result ? result.text() : "";
            return ChatResponse.builder().aiMessage(AiMessage.from("I proposed an incident; it awaits your approval. "
                    + "Tool said: " + last)).build();
        }
    }
}
