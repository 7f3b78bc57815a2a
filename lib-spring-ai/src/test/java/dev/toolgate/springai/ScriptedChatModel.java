package dev.toolgate.springai;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;

/**
 * A {@link ChatModel} that answers as a tool-calling model does: for each scripted turn it emits the
 * scripted tool calls (only for tools it was offered, like a real model, which cannot call a function it
 * was not given); when the script is used up, or a scripted tool was not offered, it gives a final
 * answer that quotes the tool results it received. It records what it was offered on every round.
 */
final class ScriptedChatModel implements ChatModel {

    /** One scripted tool call: a chat tool name and its JSON arguments. */
    record Call(String tool, String arguments) {
    }

    private final List<List<Call>> turns;
    private final AtomicInteger next = new AtomicInteger();
    private final List<List<String>> offered = Collections.synchronizedList(new ArrayList<>());
    private final List<String> toolResults = Collections.synchronizedList(new ArrayList<>());

    ScriptedChatModel(List<List<Call>> turns) {
        this.turns = List.copyOf(turns);
    }

    static ScriptedChatModel calling(Call... oneTurnEach) {
        List<List<Call>> turns = new ArrayList<>();
        for (Call call : oneTurnEach) {
            turns.add(List.of(call));
        }
        return new ScriptedChatModel(turns);
    }

    @Override
    public ChatOptions getOptions() {
        return ToolCallingChatOptions.builder().build();
    }

    @Override
    public ChatResponse call(Prompt prompt) {
        List<String> names = new ArrayList<>();
        if (prompt.getOptions() instanceof ToolCallingChatOptions options) {
            for (ToolCallback callback : options.getToolCallbacks()) {
                names.add(callback.getToolDefinition().name());
            }
        }
        offered.add(List.copyOf(names));
        Message last = prompt.getInstructions().get(prompt.getInstructions().size() - 1);
        if (last instanceof ToolResponseMessage responses) {
            responses.getResponses().forEach(r -> toolResults.add(r.responseData()));
        }
        int turn = next.getAndIncrement();
        if (turn < turns.size() && turns.get(turn).stream().allMatch(call -> names.contains(call.tool()))) {
            List<AssistantMessage.ToolCall> calls = new ArrayList<>();
            for (Call call : turns.get(turn)) {
                calls.add(new AssistantMessage.ToolCall("call_" + turn + "_" + calls.size(), "function", call.tool(),
                        call.arguments()));
            }
            return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("").toolCalls(calls).build())));
        }
        String answer = toolResults.isEmpty() ? "No tool was used." : "Tool said: " + String.join(" | ", toolResults);
        return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content(answer).build())));
    }

    /** The chat tool names offered on each round, in order. */
    List<List<String>> offered() {
        return List.copyOf(offered);
    }

    /** Every tool result the model received, in order. */
    List<String> toolResults() {
        return List.copyOf(toolResults);
    }
}
