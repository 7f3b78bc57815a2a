package dev.toolgate.examples.springai;

import java.util.ArrayList;
import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * Stands in for OpenAI, Anthropic or Ollama so the example runs offline: it calls one scripted tool
 * (if it was offered), then answers with what the tool returned. Swap in any Spring AI ChatModel.
 */
final class ScriptedModel implements ChatModel {

    private final String tool;
    private final String arguments;

    ScriptedModel(String tool, String arguments) {
        this.tool = tool;
        this.arguments = arguments;
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
            String said = responses.getResponses().get(0).responseData();
            return answer("(model) The tool answered: " + said);
        }
        List<String> offered = new ArrayList<>();
        if (prompt.getOptions() instanceof ToolCallingChatOptions options) {
            options.getToolCallbacks().forEach(c -> offered.add(c.getToolDefinition().name()));
        }
        if (!offered.contains(tool)) {
            return answer("(model) I was offered " + offered + ", not " + tool + ", so I cannot do that.");
        }
        var call = new AssistantMessage.ToolCall("call_1", "function", tool, arguments);
        return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("").toolCalls(List.of(call)).build())));
    }

    private static ChatResponse answer(String text) {
        return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content(text).build())));
    }
}
