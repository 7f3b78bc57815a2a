package dev.toolgate.tool;

import java.util.Objects;

/**
 * The client model's answer to {@link ClientChannel#sample}.
 *
 * @param role       who produced it (normally {@link SamplingRequest.Role#ASSISTANT})
 * @param content    the message: text, an image or audio
 * @param model      the model that produced it, as the client names it, or null
 * @param stopReason why sampling stopped ({@code endTurn}, {@code stopSequence}, {@code maxTokens}, or
 *                   the client's own reason), or null
 */
public record SamplingResult(SamplingRequest.Role role, Content content, String model, String stopReason) {

    /** Checks the components. */
    public SamplingResult {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
    }

    /** The text of a text answer, or null for an image or audio. */
    public String text() {
        return content instanceof Content.Text text ? text.text() : null;
    }
}
