package dev.toolgate.tool;

import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * The user's answer to {@link ClientChannel#elicit}.
 *
 * @param action  what the user did
 * @param content the submitted values (a JSON object) when accepted; null otherwise
 */
public record Elicitation(Action action, ObjectNode content) {

    /** What the user did. */
    public enum Action {
        /** Submitted the form. */
        ACCEPT,
        /** Explicitly refused. */
        DECLINE,
        /** Dismissed it without choosing. */
        CANCEL
    }

    /** Checks the components; the content is copied. */
    public Elicitation {
        Objects.requireNonNull(action, "action");
        content = content == null ? null : content.deepCopy();
    }

    /** True if the user submitted the form. */
    public boolean accepted() {
        return action == Action.ACCEPT;
    }

    /** The submitted values (a copy), or null. */
    @Override
    public ObjectNode content() {
        return content == null ? null : content.deepCopy();
    }
}
