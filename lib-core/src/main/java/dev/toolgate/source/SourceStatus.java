package dev.toolgate.source;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a tool source stands: whether its last listing reached it, how many tools it has registered,
 * and what it could not register.
 *
 * @param id          the source id, such as {@code mcp:github}
 * @param displayName its name for people
 * @param state       whether it answered its last listing
 * @param tools       how many of its tools are registered now (possibly from an earlier listing)
 * @param listedAt    when its tools were last listed successfully, or null if never
 * @param error       why the last listing failed (no secret in it), or null
 * @param skipped     tools it offered that could not be registered, each {@code name: reason}
 */
public record SourceStatus(String id, String displayName, State state, int tools, Instant listedAt, String error,
                           List<String> skipped) {

    /** Whether a source answered. */
    public enum State {
        /** Not listed yet. */
        PENDING,
        /** Its last listing succeeded. */
        AVAILABLE,
        /** Its last listing failed; tools from an earlier listing, if any, stay registered. */
        UNAVAILABLE;

        /** The lower-case name used in guides and JSON. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Checks the components; see the class description for what each must hold. */
    public SourceStatus {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(displayName, "displayName");
        Objects.requireNonNull(state, "state");
        skipped = List.copyOf(skipped);
    }

    /** Why the last listing failed, if it did. */
    public Optional<String> failure() {
        return Optional.ofNullable(error);
    }

    /** True if the last listing reached the source. */
    public boolean available() {
        return state == State.AVAILABLE;
    }
}
