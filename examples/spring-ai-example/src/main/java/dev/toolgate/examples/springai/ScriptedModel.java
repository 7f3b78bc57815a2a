package dev.toolgate.examples.springai;

import dev.toolgate.conversation.DecisionNotes;
import dev.toolgate.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import tools.jackson.databind.JsonNode;

/**
 * Stands in for OpenAI, Anthropic or Ollama so the example runs offline: each user turn it sends the next
 * scripted response's tool calls (several at once, names it was not offered too, as real models do), then
 * answers with what it read: each tool's status, and any decisions Toolgate told it before the user's
 * message. Swap in any Spring AI ChatModel.
 */
final class ScriptedModel implements ChatModel {

    /** One tool call: a function name and its JSON arguments. */
    record Call(String name, String arguments) {
    }

    private final List<List<Call>> turns;
    private final AtomicInteger next = new AtomicInteger();

    ScriptedModel(List<List<Call>> turns) {
        this.turns = List.copyOf(turns);
    }

    @Override
    public ChatOptions getOptions() {
        return ToolCallingChatOptions.builder().build();
    }

    @Override
    public ChatResponse call(Prompt prompt) {
        List<Message> messages = prompt.getInstructions();
        Message last = messages.get(messages.size() - 1);
        if (last instanceof ToolResponseMessage responses) {
            List<String> said = new ArrayList<>();
            for (ToolResponseMessage.ToolResponse response : responses.getResponses()) {
                JsonNode json = Json.parse(response.responseData());
                said.add(response.name() + " -> " + json.path("status").asString()
                        + (json.has("reason") ? " (" + json.path("reason").asString() + ")" : ""));
            }
            return answer("(model) " + String.join("; ", said));
        }
        String told = told(prompt.getUserMessage());
        int turn = next.getAndIncrement();
        List<Call> calls = turn < turns.size() ? turns.get(turn) : List.of();
        if (calls.isEmpty()) {
            return answer("(model) " + (told.isEmpty() ? "Nothing new." : told));
        }
        List<AssistantMessage.ToolCall> toolCalls = new ArrayList<>();
        for (Call call : calls) {
            toolCalls.add(new AssistantMessage.ToolCall("call_" + turn + "_" + toolCalls.size(), "function", call.name(),
                    call.arguments()));
        }
        return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content(told).toolCalls(toolCalls).build())));
    }

    /** What Toolgate told the model before the user's message, in a sentence. */
    private static String told(UserMessage user) {
        String text = user == null ? null : user.getText();
        if (text == null || !text.startsWith(DecisionNotes.HEADER)) {
            return "";
        }
        List<String> decisions = new ArrayList<>();
        for (String line : text.substring(DecisionNotes.HEADER.length()).split("\n\n", 2)[0].strip().split("\n")) {
            JsonNode note = Json.parse(line);
            decisions.add("I was told that " + note.path("summary").asString() + " was " + note.path("decision").asString()
                    + " by the " + note.path("decidedBy").asString()
                    + (note.has("reason") ? ": \"" + note.path("reason").asString() + "\"" : "")
                    + (note.has("result") ? " -> " + Json.write(note.path("result")) : ""));
        }
        return String.join("; ", decisions) + ".";
    }

    private static ChatResponse answer(String text) {
        return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content(text).build())));
    }
}
