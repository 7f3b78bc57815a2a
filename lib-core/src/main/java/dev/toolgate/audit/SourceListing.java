package dev.toolgate.audit;

import java.time.Duration;
import java.util.Objects;

/**
 * One listing of a tool source's tools, for listeners ({@link ToolCallListener#onSourceListed}):
 * metadata only, never the source's error text (it may name hosts or paths) or its credentials.
 *
 * @param sourceId  the source id, such as {@code mcp:github}
 * @param duration  how long the listing took (up to the listing timeout)
 * @param available true if the source answered; false if the listing failed or timed out
 * @param tools     how many of its tools are registered after the listing
 * @param skipped   how many tools it offered that could not be registered
 */
public record SourceListing(String sourceId, Duration duration, boolean available, int tools, int skipped) {

    /** Checks the components; see the class description for what each must hold. */
    public SourceListing {
        Objects.requireNonNull(sourceId, "sourceId");
        Objects.requireNonNull(duration, "duration");
    }
}
