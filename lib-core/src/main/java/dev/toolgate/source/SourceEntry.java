package dev.toolgate.source;

import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolContext;
import dev.toolgate.tool.ToolValidationException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import tools.jackson.databind.JsonNode;

/** One source in the catalog: its state, its secrets, and how its tools become gate tools. */
final class SourceEntry {

    private static final int SUMMARY_DESCRIPTION = 300;

    private final String id;
    private final ToolSource source;
    private final ScrubbingSecrets secrets;
    private final SourceCatalog.Settings settings;
    private final String displayName;
    private volatile SourceStatus status;
    /** System.nanoTime() of the last successful listing; only meaningful once listed. */
    private volatile long listedNanos;
    private volatile boolean everListed;
    private CompletableFuture<SourceStatus> inFlight;

    SourceEntry(String id, ToolSource source, ScrubbingSecrets secrets, SourceCatalog.Settings settings) {
        this.id = id;
        this.source = source;
        this.secrets = secrets;
        this.settings = settings;
        String name;
        try {
            name = source.displayName();
        } catch (RuntimeException e) {
            name = null;
        }
        this.displayName = name == null || name.isBlank() ? id : name;
        this.status = new SourceStatus(id, displayName, SourceStatus.State.PENDING, 0, null, null, List.of());
    }

    String id() {
        return id;
    }

    ToolSource source() {
        return source;
    }

    ScrubbingSecrets secrets() {
        return secrets;
    }

    SourceStatus status() {
        return status;
    }

    boolean stale() {
        return !everListed || System.nanoTime() - listedNanos >= settings.cacheTtl().toNanos();
    }

    SourceContext listingContext() {
        return new SourceContext(secrets, settings.listTimeout(), null);
    }

    /** {@code started} if no listing is running (it becomes the running one), else the running one. */
    synchronized CompletableFuture<SourceStatus> begin(CompletableFuture<SourceStatus> started) {
        if (inFlight != null && !inFlight.isDone()) {
            return inFlight;
        }
        inFlight = started;
        return started;
    }

    synchronized void end(CompletableFuture<SourceStatus> finished) {
        if (inFlight == finished) {
            inFlight = null;
        }
    }

    void listed(int tools, List<String> skipped, Instant at) {
        listedNanos = System.nanoTime();
        everListed = true;
        status = new SourceStatus(id, displayName, SourceStatus.State.AVAILABLE, tools, at, null, skipped);
    }

    void failed(String error, Instant at) {
        SourceStatus before = status;
        // a failed listing is retried after the TTL like a good one, so a source that is down is not hammered
        listedNanos = System.nanoTime();
        everListed = true;
        status = new SourceStatus(id, displayName, SourceStatus.State.UNAVAILABLE, before.tools(), before.listedAt(), error,
                before.skipped());
    }

    /** The gate tool for one of the source's tools: validated locally, run through the source. */
    Tool<?, ?> toTool(SourceTool listed) {
        String qualified = id + "." + listed.name();
        String description = listed.description().isBlank()
                ? "Tool " + listed.name() + " of " + displayName + " (it gives no description)"
                : listed.description();
        Tool.Builder<JsonNode, Object> builder = Tool.builder(listed.name(), listed.inputSchema())
                .title(listed.title())
                .description(description)
                .effect(listed.effect())
                .requires(listed.requiredRules())
                .openWorld(listed.openWorld())
                .outputSchema(listed.outputSchema())
                .timeout(settings.callTimeout())
                // a remote call waits on a network: handed off, its caller is answered at the timeout
                // even when the source's client does not heed the interrupt
                .onCallerThread(false)
                .contract(listed.contract())
                .dynamic(true);
        if (listed.effect() != Effect.READ) {
            // a source's tool has no dry-run: the proposal shows the payload, what the source says the call
            // does, and what the tool says it does
            String fallback = "Call " + qualified + " of " + displayName + " with the payload below. It has no dry-run: "
                    + "nothing runs before consent. The tool says: " + shorten(description);
            builder.dryRun((JsonNode input, ToolContext context) -> Preview.of(describe(listed.name(), input, fallback)));
        }
        return builder.execute((JsonNode input, ToolContext context) -> call(listed.name(), qualified, input, context))
                .build();
    }

    private String describe(String tool, JsonNode input, String fallback) {
        String described;
        try {
            described = source.describeCall(tool, input);
        } catch (ToolValidationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new SourceToolException(secrets.scrub(SourceCatalog.describe(e)));
        }
        if (described == null || described.isBlank()) {
            return fallback;
        }
        return secrets.scrub(described.strip()) + ". It has no dry-run: nothing runs before consent.";
    }

    private JsonNode call(String tool, String qualified, JsonNode arguments, ToolContext context) {
        SourceContext sourceContext = new SourceContext(secrets, settings.callTimeout(), context);
        JsonNode result;
        try {
            result = source.callTool(tool, arguments, sourceContext);
        } catch (SourceUnavailableException | SecretResolver.MissingSecretException e) {
            throw new SourceUnavailableException(null, qualified, id, secrets.scrub(
                    "the tool source " + id + " is unavailable: " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SourceToolException(qualified + " was interrupted");
        } catch (SourceToolException e) {
            throw new SourceToolException(secrets.scrub(e.getMessage()));
        } catch (ToolValidationException e) {
            // arguments the schema allowed but the source cannot send: feedback for the model, nothing sent
            throw e;
        } catch (Exception e) {
            // the cause is dropped on purpose: its message or its stack may quote a credential
            throw new SourceToolException(secrets.scrub(SourceCatalog.describe(e)));
        }
        return secrets.scrub(result);
    }

    private static String shorten(String text) {
        String flat = text.strip().replaceAll("\\s+", " ");
        return flat.length() <= SUMMARY_DESCRIPTION ? flat : flat.substring(0, SUMMARY_DESCRIPTION - 1) + "…";
    }
}
