package dev.toolgate.source;

import dev.toolgate.audit.SourceListing;
import dev.toolgate.audit.ToolDrift;
import dev.toolgate.json.Redactor;
import dev.toolgate.json.TextCap;
import java.util.function.Consumer;

import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolDefinitionException;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.tool.ToolRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate's tool sources: lists each one's tools, registers them in the gate's registry as
 * {@code <source id>.<tool>}, keeps the list fresh, and reports each source's state. Built by
 * {@code Toolgate.builder()}; hosts reach it through {@code Toolgate.listSources()} and
 * {@code Toolgate.refreshSources()}.
 *
 * <p>Listing: every source is listed in parallel when the gate starts, each bounded by the listing
 * timeout, so one that hangs or refuses never holds up the others. A listing is cached for the
 * cache TTL (default five minutes): after that, the next look at the tool list, or the periodic
 * refresh, lists the source again in the background while the cached tools stay in use. A listing
 * that changes the tools swaps them in the registry at once and the registry's listeners (the MCP
 * adapter's {@code tools/list_changed}) hear of it; one that changes nothing is silent. A failed
 * listing marks the source unavailable and keeps the tools it listed before.
 *
 * <p>Thread-safe.
 */
public final class SourceCatalog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SourceCatalog.class);
    /** Throwables from host code are logged redacted (a secret in a message or a URL stays out of the log). */
    private static final Redactor LOGGED = Redactor.defaults();

    /**
     * How sources are listed.
     *
     * @param cacheTtl    how long a listing is used before the source is listed again
     * @param listTimeout how long one listing may take before the source counts as unavailable
     * @param callTimeout how long one call of a source's tool may take (the tool's timeout in the gate)
     */
    public record Settings(Duration cacheTtl, Duration listTimeout, Duration callTimeout) {

        /** Five minutes of cache, ten seconds per listing, thirty seconds per call. */
        public static final Settings DEFAULT = new Settings(Duration.ofMinutes(5), Duration.ofSeconds(10),
                Duration.ofSeconds(30));

        /** Checks that both durations are positive. */
        public Settings {
            if (cacheTtl == null || cacheTtl.isNegative() || cacheTtl.isZero()) {
                throw new IllegalArgumentException("the source cache TTL must be positive, got " + cacheTtl);
            }
            if (listTimeout == null || listTimeout.isNegative() || listTimeout.isZero()) {
                throw new IllegalArgumentException("the source listing timeout must be positive, got " + listTimeout);
            }
            if (callTimeout == null || callTimeout.isNegative() || callTimeout.isZero()) {
                throw new IllegalArgumentException("the source call timeout must be positive, got " + callTimeout);
            }
        }
    }

    private final Map<String, SourceEntry> entries;
    private final ToolRegistry registry;
    private final Settings settings;
    private final Clock clock;
    private final ExecutorService listers;
    private final ScheduledExecutorService refresher;
    private final Consumer<SourceListing> observer;
    private final Consumer<ToolDrift> drifts;

    private SourceCatalog(List<ToolSource> sources, SecretResolver secrets, ToolRegistry registry, Settings settings,
                          Clock clock, Consumer<SourceListing> observer, Consumer<ToolDrift> drifts) {
        this.observer = observer;
        this.drifts = drifts;
        this.registry = registry;
        this.settings = settings;
        this.clock = clock;
        Map<String, SourceEntry> byId = new LinkedHashMap<>();
        for (ToolSource source : sources) {
            String id = idOf(source);
            if (byId.containsKey(id)) {
                throw new ToolDefinitionException("Tool source '" + id + "' is configured twice ("
                        + source.getClass().getName() + " and " + byId.get(id).source().getClass().getName() + ")");
            }
            if (registry.tools().stream().anyMatch(t -> t.pluginId().equals(id))) {
                throw new ToolDefinitionException("Tool source '" + id + "' has the id of a plugin already registered");
            }
            byId.put(id, new SourceEntry(id, source, new ScrubbingSecrets(secrets), settings));
        }
        this.entries = java.util.Collections.unmodifiableMap(byId);
        AtomicInteger threads = new AtomicInteger();
        this.listers = Executors.newCachedThreadPool(task -> daemon(task, "toolgate-source-" + threads.incrementAndGet()));
        this.refresher = entries.isEmpty() ? null
                : Executors.newSingleThreadScheduledExecutor(task -> daemon(task, "toolgate-source-refresh"));
    }

    /**
     * Lists every source once (in parallel, each bounded by the listing timeout) and keeps them fresh
     * from then on.
     *
     * @throws ToolDefinitionException if a source's id is invalid or used twice
     */
    public static SourceCatalog start(List<ToolSource> sources, SecretResolver secrets, ToolRegistry registry,
                                      Settings settings) {
        return start(sources, secrets, registry, settings, listing -> { });
    }

    /**
     * As {@link #start(List, SecretResolver, ToolRegistry, Settings)}, telling {@code observer} of every
     * listing (its duration and outcome; an exception it throws is logged and ignored).
     */
    public static SourceCatalog start(List<ToolSource> sources, SecretResolver secrets, ToolRegistry registry,
                                      Settings settings, Consumer<SourceListing> observer) {
        return start(sources, secrets, registry, settings, observer, drift -> { });
    }

    /**
     * As {@link #start(List, SecretResolver, ToolRegistry, Settings, Consumer)}, telling {@code drifts} of
     * every source tool whose schema fingerprint a listing found changed since the listing before, once
     * per change, on the listing's thread, before {@code observer} hears of that listing (see
     * {@link dev.toolgate.audit.ToolCallListener#onToolDrifted}; an exception it throws is logged and ignored).
     */
    public static SourceCatalog start(List<ToolSource> sources, SecretResolver secrets, ToolRegistry registry,
                                      Settings settings, Consumer<SourceListing> observer, Consumer<ToolDrift> drifts) {
        Objects.requireNonNull(secrets, "secrets");
        SourceCatalog catalog = new SourceCatalog(List.copyOf(sources), secrets, Objects.requireNonNull(registry, "registry"),
                Objects.requireNonNull(settings, "settings"), Clock.systemUTC(), Objects.requireNonNull(observer, "observer"),
                Objects.requireNonNull(drifts, "drifts"));
        for (SourceEntry entry : catalog.entries.values()) {
            try {
                entry.source().watch(() -> catalog.list(entry));
            } catch (RuntimeException e) {
                LOG.warn("Tool source {} cannot be watched for changes; it is listed every {}: {}", entry.id(),
                        settings.cacheTtl(), entry.secrets().scrub(describe(e)));
            }
        }
        catalog.refresh();
        if (catalog.refresher != null) {
            long millis = Math.max(1_000, settings.cacheTtl().toMillis());
            catalog.refresher.scheduleWithFixedDelay(catalog::refreshStale, millis, millis, TimeUnit.MILLISECONDS);
        }
        return catalog;
    }

    /** The state of every source, in the order they were configured. */
    public List<SourceStatus> statuses() {
        return entries.values().stream().map(SourceEntry::status).toList();
    }

    /** The state of one source. */
    public Optional<SourceStatus> status(String sourceId) {
        return Optional.ofNullable(entries.get(sourceId)).map(SourceEntry::status);
    }

    /** True if {@code pluginId} is one of these sources. */
    public boolean isSource(String pluginId) {
        return entries.containsKey(pluginId);
    }

    /**
     * Lists every source now, in parallel, and waits (at most the listing timeout) for all of them.
     *
     * @return every source's state afterwards
     */
    public List<SourceStatus> refresh() {
        List<CompletableFuture<SourceStatus>> running = entries.values().stream().map(this::list).toList();
        running.forEach(CompletableFuture::join);
        return statuses();
    }

    /**
     * Lists one source now.
     *
     * @throws IllegalArgumentException if there is no such source
     */
    public SourceStatus refresh(String sourceId) {
        SourceEntry entry = entries.get(sourceId);
        if (entry == null) {
            throw new IllegalArgumentException("no tool source '" + sourceId + "'; the sources are " + entries.keySet());
        }
        return list(entry).join();
    }

    /** Starts a background listing of every source whose listing is older than the cache TTL. */
    public void refreshStale() {
        for (SourceEntry entry : entries.values()) {
            if (entry.stale()) {
                list(entry);
            }
        }
    }

    /**
     * If {@code toolName} belongs to a source that is not available now, the refusal to throw for it
     * (nothing is recorded: the tool is not registered); otherwise empty.
     */
    public Optional<SourceUnavailableException> unavailable(String toolName) {
        if (toolName == null) {
            return Optional.empty();
        }
        for (SourceEntry entry : entries.values()) {
            if (toolName.startsWith(entry.id() + ".")) {
                SourceStatus status = entry.status();
                if (status.available()) {
                    return Optional.empty();
                }
                String why = status.failure().map(f -> ": " + f).orElse(": not listed yet");
                return Optional.of(new SourceUnavailableException(null, toolName, entry.id(),
                        "the tool source " + entry.id() + " is unavailable" + why));
            }
        }
        return Optional.empty();
    }

    /** The listing of one source, joined to the one already running if there is one. */
    private CompletableFuture<SourceStatus> list(SourceEntry entry) {
        CompletableFuture<SourceStatus> started = new CompletableFuture<>();
        CompletableFuture<SourceStatus> running = entry.begin(started);
        if (running != started) {
            return running;
        }
        Future<List<SourceTool>> listing;
        SourceContext context = entry.listingContext();
        long begun = System.nanoTime();
        try {
            listing = listers.submit(() -> entry.source().listTools(context));
        } catch (RuntimeException e) {
            entry.failed("the gate is closing", clock.instant());
            started.complete(entry.status());
            return started;
        }
        CompletableFuture.runAsync(() -> {
            try {
                List<SourceTool> tools = listing.get(settings.listTimeout().toMillis(), TimeUnit.MILLISECONDS);
                install(entry, tools == null ? List.of() : tools, context.skipped());
            } catch (TimeoutException e) {
                listing.cancel(true);
                failed(entry, "listing timed out after " + settings.listTimeout().toMillis() + " ms");
            } catch (ExecutionException e) {
                failed(entry, describe(e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed(entry, "listing was interrupted");
            } catch (RuntimeException | Error e) {
                failed(entry, describe(e));
            } finally {
                entry.end(started);
                SourceStatus status = entry.status();
                // listeners hear of the listing before anyone waiting on it goes on
                observe(new SourceListing(entry.id(), Duration.ofNanos(System.nanoTime() - begun), status.available(),
                        status.tools(), status.skipped().size()));
                started.complete(status);
            }
        }, listers);
        return started;
    }

    private void observe(SourceListing listing) {
        try {
            observer.accept(listing);
        } catch (RuntimeException e) {
            LOG.warn("A listener of tool source listings failed on {}", listing.sourceId(), LOGGED.redactThrowable(e));
        }
    }

    private void drifted(ToolDrift drift) {
        try {
            drifts.accept(drift);
        } catch (RuntimeException e) {
            LOG.warn("A listener of tool drift failed on {}", drift.toolName(), LOGGED.redactThrowable(e));
        }
    }

    private void install(SourceEntry entry, List<SourceTool> listed, List<String> skippedBySource) {
        List<Tool<?, ?>> tools = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        skippedBySource.forEach(reason -> skipped.add(entry.secrets().scrub(reason)));
        ToolRegistry scratch = ToolRegistry.create();
        Set<String> seen = new HashSet<>();
        for (SourceTool tool : listed) {
            if (tool == null) {
                continue;
            }
            if (!seen.add(tool.name())) {
                skipped.add(entry.secrets().scrub(tool.name() + ": listed twice"));
                continue;
            }
            try {
                Tool<?, ?> built = entry.toTool(tool);
                scratch.register(ToolProvider.of(entry.id(), built));
                tools.add(built);
            } catch (RuntimeException e) {
                String message = String.valueOf(e.getMessage()).replace("ToolProvider.of(" + entry.id() + "): ", "");
                skipped.add(entry.secrets().scrub(tool.name() + ": " + message));
            }
        }
        Map<String, String> before = new java.util.HashMap<>();
        for (RegisteredTool tool : registry.tools()) {
            if (tool.pluginId().equals(entry.id())) {
                before.put(tool.name(), tool.schemaFingerprint());
            }
        }
        List<RegisteredTool> registered = registry.replace(ToolProvider.of(entry.id(), tools.toArray(Tool<?, ?>[]::new)));
        for (RegisteredTool tool : registered) {
            String previous = before.get(tool.name());
            if (previous != null && !previous.equals(tool.schemaFingerprint())) {
                LOG.info("Tool {} of source {} changed its schema; it drifts from every tenant's review until an operator"
                        + " re-confirms it", tool.name(), entry.id());
                drifted(new ToolDrift(tool.name(), entry.id(), previous, tool.schemaFingerprint()));
            }
        }
        if (!skipped.isEmpty()) {
            LOG.warn("Tool source {} offered {} tool(s) the gate cannot register: {}", entry.id(), skipped.size(), skipped);
        }
        entry.listed(registered.size(), skipped, clock.instant());
        LOG.debug("Tool source {} lists {} tool(s)", entry.id(), registered.size());
    }

    private void failed(SourceEntry entry, String error) {
        String message = TextCap.forMessage(entry.secrets().scrub(error));
        SourceStatus before = entry.status();
        entry.failed(message, clock.instant());
        if (before.state() != SourceStatus.State.UNAVAILABLE || !message.equals(before.error())) {
            LOG.warn("Tool source {} is unavailable: {}{}", entry.id(), TextCap.forLog(message),
                    before.tools() > 0 ? " (its " + before.tools() + " tool(s) from an earlier listing stay registered)" : "");
        }
    }

    static String describe(Throwable e) {
        if (e instanceof SourceUnavailableException || e instanceof SecretResolver.MissingSecretException) {
            return e.getMessage();
        }
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
    }

    private static String idOf(ToolSource source) {
        String id;
        try {
            id = source.id();
        } catch (RuntimeException e) {
            throw new ToolDefinitionException(source.getClass().getName() + " failed to report its source id: " + e, e);
        }
        if (id == null || !ToolSource.ID.matcher(id).matches()) {
            throw new ToolDefinitionException(source.getClass().getName() + " has an invalid source id '" + id
                    + "': use <kind>:<name>, such as mcp:github (kind: 1-8 of a-z0-9; name: 1-32 of A-Za-z0-9_-)");
        }
        return id;
    }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    /** Stops refreshing and closes every source. Registered tools stay in the registry. */
    @Override
    public void close() {
        if (refresher != null) {
            refresher.shutdownNow();
        }
        listers.shutdownNow();
        for (SourceEntry entry : entries.values()) {
            try {
                entry.source().close();
            } catch (Exception e) {
                LOG.warn("Tool source {} failed to close: {}", entry.id(), entry.secrets().scrub(describe(e)));
            }
        }
    }

    @Override
    public String toString() {
        return "SourceCatalog" + entries.keySet();
    }
}
