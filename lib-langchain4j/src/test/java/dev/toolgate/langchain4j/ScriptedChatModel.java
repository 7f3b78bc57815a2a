package dev.toolgate.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A chat model that plays a script as a real model would: each turn it emits the next tool call
 * (checking the tool was offered, as a provider's API would reject an unknown function) and, when the
 * script ends, a final answer quoting the last tool result it read. It records every request.
 */
final class ScriptedChatModel implements ChatModel {

    /** One tool call: the function name and the JSON arguments. */
    record Call(String name, String arguments) {
    }

    /** A round that answers the user without calling a tool. */
    static final List<Call> ANSWER = List.of();
    /** A round whose model call fails, as a provider's outage does. */
    static final List<Call> FAIL = List.of(new Call("\u0000fail", "{}"));

    private final List<List<Call>> rounds;
    private final AtomicInteger next = new AtomicInteger();
    final List<ChatRequest> requests = Collections.synchronizedList(new ArrayList<>());

    private final boolean callUnofferedTools;

    ScriptedChatModel(Call... script) {
        this(false, script);
    }

    /** @param callUnofferedTools true for a model that hallucinates: it calls tools it was not offered */
    ScriptedChatModel(boolean callUnofferedTools, Call... script) {
        this.rounds = java.util.Arrays.stream(script).map(List::of).toList();
        this.callUnofferedTools = callUnofferedTools;
    }

    private ScriptedChatModel(List<List<Call>> rounds) {
        this.rounds = List.copyOf(rounds);
        this.callUnofferedTools = true;
    }

    /**
     * A model that sends each round's calls in one response (ids {@code call-<round>-<index>}, or
     * {@code call-<round>} for a round of one call), whatever it
     * was offered; {@link #ANSWER} answers, {@link #FAIL} throws.
     */
    @SafeVarargs
    static ScriptedChatModel sending(List<Call>... rounds) {
        return new ScriptedChatModel(List.of(rounds));
    }

    static Call call(String name, String arguments) {
        return new Call(name, arguments);
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        requests.add(request);
        int step = next.getAndIncrement();
        if (step < rounds.size() && rounds.get(step) == FAIL) {
            throw new IllegalStateException("the model provider is unavailable (scripted)");
        }
        if (step < rounds.size() && !rounds.get(step).isEmpty()) {
            List<ToolExecutionRequest> calls = new ArrayList<>();
            for (Call call : rounds.get(step)) {
                boolean offered = request.toolSpecifications() != null && request.toolSpecifications().stream()
                        .anyMatch(spec -> spec.name().equals(call.name()));
                if (!offered && !callUnofferedTools) {
                    return answer("the tool " + call.name() + " is not available to me");
                }
                String id = "call-" + step + (rounds.get(step).size() == 1 ? "" : "-" + calls.size());
                calls.add(ToolExecutionRequest.builder().id(id).name(call.name()).arguments(call.arguments()).build());
            }
            return ChatResponse.builder().aiMessage(AiMessage.from(calls)).finishReason(FinishReason.TOOL_EXECUTION)
                    .build();
        }
        return answer("last tool result: " + lastToolResult(request.messages()));
    }

    private static ChatResponse answer(String text) {
        return ChatResponse.builder().aiMessage(AiMessage.from(text)).finishReason(FinishReason.STOP).build();
    }

    static String lastToolResult(List<ChatMessage> messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof ToolExecutionResultMessage result) {
                return result.text();
            }
        }
        return "none";
    }

    /** Every tool result the model was shown, in order, across all requests of the last conversation. */
    List<String> toolResultsSeen() {
        List<String> seen = new ArrayList<>();
        ChatRequest last = requests.get(requests.size() - 1);
        for (ChatMessage message : last.messages()) {
            if (message instanceof ToolExecutionResultMessage result) {
                seen.add(result.text());
            }
        }
        return seen;
    }
}
