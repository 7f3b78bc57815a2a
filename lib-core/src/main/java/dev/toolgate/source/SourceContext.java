package dev.toolgate.source;

import dev.toolgate.tool.ToolContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a source is given when it lists or runs tools: the host's secrets and how long it may take.
 * Sources never read Toolgate's storage: everything they need arrives here or in their own
 * configuration.
 */
public final class SourceContext {

    private final SecretResolver secrets;
    private final Duration timeout;
    private final ToolContext call;
    private final List<String> skipped = Collections.synchronizedList(new ArrayList<>());

    SourceContext(SecretResolver secrets, Duration timeout, ToolContext call) {
        this.secrets = Objects.requireNonNull(secrets, "secrets");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.call = call;
    }

    /** A context for listing, for tests and for hosts that drive a source themselves. */
    public static SourceContext forListing(SecretResolver secrets, Duration timeout) {
        return new SourceContext(secrets, timeout, null);
    }

    /** A context for a call, for tests and for hosts that drive a source themselves. */
    public static SourceContext forCall(SecretResolver secrets, Duration timeout, ToolContext call) {
        return new SourceContext(secrets, timeout, Objects.requireNonNull(call, "call"));
    }

    /** The host's credentials, by name. */
    public SecretResolver secrets() {
        return secrets;
    }

    /** How long the source may take to answer this request. */
    public Duration timeout() {
        return timeout;
    }

    /**
     * Reports, while listing, a tool the source leaves out and why (an operation it cannot call safely,
     * say); it shows in {@code Toolgate.listSources()} beside the tools the gate could not register.
     * Ignored outside a listing.
     */
    public void skip(String tool, String reason) {
        if (call == null) {
            skipped.add(tool + ": " + reason);
        }
    }

    List<String> skipped() {
        synchronized (skipped) {
            return List.copyOf(skipped);
        }
    }

    /** The governed call being served (principal, tenant, session), or empty while listing. */
    public Optional<ToolContext> call() {
        return Optional.ofNullable(call);
    }
}
