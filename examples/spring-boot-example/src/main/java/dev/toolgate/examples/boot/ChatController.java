package dev.toolgate.examples.boot;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The chat API. The {@code ChatClient.Builder} comes from Spring AI's auto-configuration; the Toolgate
 * starter already added its advisor to it, so this client offers the signed-in user's governed tools
 * and runs the consent loop. The conversation id is the Toolgate session.
 */
@RestController
class ChatController {

    record Question(String conversation, String message) {
    }

    record Answer(String conversation, String answer) {
    }

    private final ChatClient chat;

    ChatController(ChatClient.Builder chat) {
        this.chat = chat.build();
    }

    @PostMapping("/chat")
    Answer chat(@RequestBody Question question) {
        String answer = chat.prompt(question.message())
                .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, question.conversation()))
                .call().content();
        return new Answer(question.conversation(), answer);
    }
}
