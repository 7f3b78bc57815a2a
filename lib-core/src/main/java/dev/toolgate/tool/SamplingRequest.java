package dev.toolgate.tool;

import java.util.List;
import java.util.Objects;

/**
 * A request to the client's model ({@code sampling/createMessage}) made with {@link ClientChannel#sample}.
 *
 * @param messages      the conversation to continue, 1 to {@value #MAX_MESSAGES} messages; copied
 * @param systemPrompt  a system prompt the client may use, or null
 * @param maxTokens     the most tokens to sample, at least 1
 * @param temperature   the sampling temperature, or null for the client's choice
 * @param stopSequences sequences that end sampling; empty for none; copied
 */
public record SamplingRequest(List<Message> messages, String systemPrompt, int maxTokens, Double temperature,
                              List<String> stopSequences) {

    /** The most messages a request may carry. */
    public static final int MAX_MESSAGES = 100;

    /** Who said a message. */
    public enum Role {
        /** The user. */
        USER,
        /** The model. */
        ASSISTANT
    }

    /**
     * One message: {@link Content.Text}, {@link Content.Image} or {@link Content.Audio}.
     *
     * @param role    who said it
     * @param content what was said
     */
    public record Message(Role role, Content content) {
        /** Checks the components. */
        public Message {
            Objects.requireNonNull(role, "role");
            if (!(content instanceof Content.Text || content instanceof Content.Image || content instanceof Content.Audio)) {
                throw new IllegalArgumentException("a sampling message holds text, an image or audio, got "
                        + (content == null ? "null" : content.type()));
            }
        }
    }

    /** Checks the components; see the class description. */
    public SamplingRequest {
        if (messages == null || messages.isEmpty() || messages.size() > MAX_MESSAGES) {
            throw new IllegalArgumentException("a sampling request needs 1-" + MAX_MESSAGES + " messages, got "
                    + (messages == null ? "null" : messages.size()));
        }
        messages = List.copyOf(messages);
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1, got " + maxTokens);
        }
        if (temperature != null && (temperature.isNaN() || temperature < 0)) {
            throw new IllegalArgumentException("temperature must be a number of at least 0, got " + temperature);
        }
        stopSequences = stopSequences == null ? List.of() : List.copyOf(stopSequences);
    }

    /** One user message of text, at most {@code maxTokens} in answer. */
    public static SamplingRequest ask(String prompt, int maxTokens) {
        return new SamplingRequest(List.of(new Message(Role.USER, Content.text(prompt))), null, maxTokens, null, List.of());
    }

    /** This request with a system prompt. */
    public SamplingRequest withSystemPrompt(String prompt) {
        return new SamplingRequest(messages, prompt, maxTokens, temperature, stopSequences);
    }
}
