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
 * A {@link ChatModel} that answers as a tool-calling model does: for each scripted round it emits the
 * scripted tool calls, with ids {@code call_<round>_<index>}; when the script is used up it gives a final
 * answer that quotes the tool results it received. A polite model ({@link #calling}) calls only tools it
 * was offered, as a well-behaved model does, and answers instead when a scripted tool was not offered; a
 * model that {@link #sending sends} its script whatever it was offered stands for a model that makes names
 * up. A round scripted as {@link #ANSWER} answers; one scripted as {@link #FAIL} throws, as a provider's outage does. It records every prompt.
 */
final class ScriptedChatModel implements ChatModel {

    /** One scripted tool call: a chat tool name and its JSON arguments. */
    record Call(String tool, String arguments) {
    }

    /** A round that answers the user (no tool call), quoting the tool results it received. */
    static final List<Call> ANSWER = List.of();

    /** A round that fails: the model call throws. */
    static final List<Call> FAIL = List.of(new Call("\u0000fail", "{}"));

    private final List<List<Call>> rounds;
    private final boolean onlyOffered;
    private final AtomicInteger next = new AtomicInteger();
    private final List<List<String>> offered = Collections.synchronizedList(new ArrayList<>());
    private final List<String> toolResults = Collections.synchronizedList(new ArrayList<>());
    private final List<List<Message>> prompts = Collections.synchronizedList(new ArrayList<>());

    private ScriptedChatModel(List<List<Call>> rounds, boolean onlyOffered) {
        this.rounds = List.copyOf(rounds);
        this.onlyOffered = onlyOffered;
    }

    /** A model that makes one round per call, calling only tools it was offered. */
    static ScriptedChatModel calling(Call... oneRoundEach) {
        List<List<Call>> rounds = new ArrayList<>();
        for (Call call : oneRoundEach) {
            rounds.add(List.of(call));
        }
        return new ScriptedChatModel(rounds, true);
    }

    /** A model that sends each round's calls (several in one response) whatever it was offered. */
    @SafeVarargs
    static ScriptedChatModel sending(List<Call>... rounds) {
        return new ScriptedChatModel(List.of(rounds), false);
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
        prompts.add(List.copyOf(prompt.getInstructions()));
        Message last = prompt.getInstructions().get(prompt.getInstructions().size() - 1);
        if (last instanceof ToolResponseMessage responses) {
            responses.getResponses().forEach(r -> toolResults.add(r.responseData()));
        }
        int round = next.getAndIncrement();
        if (round < rounds.size() && rounds.get(round) == FAIL) {
            throw new IllegalStateException("the model provider is unavailable (scripted)");
        }
        if (round < rounds.size() && !rounds.get(round).isEmpty() && (!onlyOffered || rounds.get(round).stream().allMatch(call -> names.contains(call.tool())))) {
            List<AssistantMessage.ToolCall> calls = new ArrayList<>();
            for (Call call : rounds.get(round)) {
                calls.add(new AssistantMessage.ToolCall("call_" + round + "_" + calls.size(), "function", call.tool(),
                        call.arguments()));
            }
            return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("").toolCalls(calls).build())));
        }
        String answer = toolResults.isEmpty() ? "No tool was used." : "Tool said: " + String.join(" | ", toolResults);
        return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content(answer).build())));
    }

    /** The same answers as {@link #call}, each as one chunk. */
    @Override
    public reactor.core.publisher.Flux<ChatResponse> stream(Prompt prompt) {
        return reactor.core.publisher.Flux.defer(() -> reactor.core.publisher.Flux.just(call(prompt)));
    }

    /** The chat tool names offered on each round, in order. */
    List<List<String>> offered() {
        return List.copyOf(offered);
    }

    /** Every tool result the model received, in order. */
    List<String> toolResults() {
        return List.copyOf(toolResults);
    }

    /** The messages of every prompt the model received, in order. */
    List<List<Message>> prompts() {
        return List.copyOf(prompts);
    }
}
