package dev.toolgate.examples.boot;

import dev.toolgate.conversation.DecisionNotes;
import dev.toolgate.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;

/**
 * Stands in for a real model so the example runs offline ({@code spring.ai.model.chat=scripted}, the
 * default in {@code application.properties}): "open an incident: X" calls {@code incident__create},
 * "list" calls {@code incident__list}; after the tools answer it says each one's status; and it relays
 * the decisions Toolgate told it before the user's words.
 */
@Component
@ConditionalOnProperty(name = "spring.ai.model.chat", havingValue = "scripted")
class ScriptedChatModel implements ChatModel {

    private static final String OPEN = "open an incident:";
    private final AtomicInteger ids = new AtomicInteger();

    @Override
    public ChatOptions getOptions() {
        return ToolCallingChatOptions.builder().build();
    }

    @Override
    public ChatResponse call(Prompt prompt) {
        List<Message> messages = prompt.getInstructions();
        if (messages.get(messages.size() - 1) instanceof ToolResponseMessage responses) {
            List<String> said = new ArrayList<>();
            for (ToolResponseMessage.ToolResponse response : responses.getResponses()) {
                JsonNode json = Json.parse(response.responseData());
                said.add(response.name() + ": " + json.path("status").asString()
                        + (json.has("summary") ? " (" + json.path("summary").asString() + ")" : "")
                        + (json.has("result") ? " " + Json.write(json.path("result")) : ""));
            }
            return answer(String.join("; ", said));
        }
        UserMessage user = prompt.getUserMessage();
        String text = user == null || user.getText() == null ? "" : user.getText();
        String told = told(text);
        String words = text.startsWith(DecisionNotes.HEADER)
                ? text.substring(DecisionNotes.HEADER.length()).split("\n\n", 2)[1] : text;
        String lower = words.toLowerCase(Locale.ROOT);
        if (lower.contains(OPEN)) {
            String title = words.substring(lower.indexOf(OPEN) + OPEN.length()).strip();
            return call(told, "incident__create", Json.object().put("title", title).toString());
        }
        if (lower.contains("list")) {
            return call(told, "incident__list", "{}");
        }
        return answer(told.isEmpty() ? "Nothing new." : told);
    }

    private ChatResponse call(String told, String tool, String arguments) {
        AssistantMessage.ToolCall call = new AssistantMessage.ToolCall("call_" + ids.incrementAndGet(), "function", tool, arguments);
        return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content(told).toolCalls(List.of(call)).build())));
    }

    /** The decisions Toolgate told the model before the user's words, in a sentence. */
    private static String told(String text) {
        if (!text.startsWith(DecisionNotes.HEADER)) {
            return "";
        }
        List<String> decisions = new ArrayList<>();
        for (String line : text.substring(DecisionNotes.HEADER.length()).split("\n\n", 2)[0].strip().split("\n")) {
            JsonNode note = Json.parse(line);
            decisions.add("\"" + note.path("summary").asString() + "\" was " + note.path("decision").asString()
                    + " by the " + note.path("decidedBy").asString()
                    + (note.has("reason") ? ": " + note.path("reason").asString() : "")
                    + (note.has("result") ? " " + Json.write(note.path("result")) : ""));
        }
        return "I was told: " + String.join("; ", decisions) + ".";
    }

    private static ChatResponse answer(String text) {
        return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content(text).build())));
    }
}
