package dev.toolgate;

import dev.toolgate.access.Principal;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.access.Resolver;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.gate.Applied;
import dev.toolgate.gate.Approval;
import dev.toolgate.gate.Approvers;
import dev.toolgate.gate.CallContext;
import dev.toolgate.gate.CallResult;
import dev.toolgate.gate.EngineContext;
import dev.toolgate.gate.GateSettings;
import dev.toolgate.gate.InboxResult;
import dev.toolgate.gate.PendingProposal;
import dev.toolgate.gate.Proposal;
import dev.toolgate.gate.UnknownToolException;
import dev.toolgate.gate.ProposeApplyEngine;
import dev.toolgate.gate.Retention;
import dev.toolgate.gate.StandardEngine;
import dev.toolgate.json.Json;
import dev.toolgate.json.Redactor;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeCascade;
import dev.toolgate.policy.ModeOverride;
import dev.toolgate.policy.ModeResolution;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.ToolReview;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.StoreProvider;
import dev.toolgate.spi.StoreSettings;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolDescriptor;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.tool.ToolRegistry;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one place a host sends its model's tool calls. Toolgate decides which tools a principal sees,
 * runs read tools directly, turns every mutation into a dry-run proposal that runs only after consent
 * (a single-use token, an operator's approval, or a policy's), meters each principal's calls across
 * every instance sharing the store, and records every call in an audit trail with no secrets in it.
 *
 * <pre>{@code
 * Toolgate gate = Toolgate.builder().build();          // plugins and storage found on the classpath
 * CallContext ctx = CallContext.of(Principal.user("carol", "incident.incident.manage")).withSession("c-42");
 * CallResult result = gate.call(ctx, "incident.create", "{\"title\":\"DB down\",\"systemId\":\"db\"}");
 * if (result instanceof Proposal p) {                   // show p.summary() and p.diff(); on consent:
 *     Applied applied = gate.apply(ctx, p.token());
 * }
 * }</pre>
 *
 * <p>Thread-safe. Build one per application and {@link #close()} it on shutdown; it closes the store
 * it opened itself (a store passed to the builder stays the host's to close).
 */
public final class Toolgate implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Toolgate.class);

    private final ToolRegistry registry;
    private final Resolver resolver;
    private final ToolgateStore store;
    private final boolean ownsStore;
    private final ProposeApplyEngine engine;
    private final GateSettings settings;
    private final int maxArgumentBytes;
    private final ScheduledExecutorService sweeper;
    private final Approvers approvers;

    private Toolgate(ToolRegistry registry, Resolver resolver, ToolgateStore store, boolean ownsStore,
                     ProposeApplyEngine engine, GateSettings settings, Duration sweepInterval) {
        this.registry = registry;
        this.resolver = resolver;
        this.store = store;
        this.ownsStore = ownsStore;
        this.engine = engine;
        this.settings = settings;
        this.maxArgumentBytes = settings.maxArgumentBytes();
        this.approvers = new Approvers(resolver, settings.approverRule());
        if (sweepInterval.isZero()) {
            this.sweeper = null;
        } else {
            this.sweeper = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, "toolgate-sweeper");
                thread.setDaemon(true);
                return thread;
            });
            long millis = sweepInterval.toMillis();
            sweeper.scheduleWithFixedDelay(this::sweepQuietly, millis, millis, TimeUnit.MILLISECONDS);
        }
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    // ---------------------------------------------------------------------------------------- listing

    /** Descriptors of the tools {@code principal} may see, sorted by name. */
    public List<ToolDescriptor> listTools(Principal principal) {
        return resolveTools(principal).stream().map(RegisteredTool::descriptor).toList();
    }

    /** The registered tools {@code principal} may see, sorted by name. */
    public List<RegisteredTool> resolveTools(Principal principal) {
        Objects.requireNonNull(principal, "principal");
        return resolver.resolveTools(principal, registry.tools());
    }

    /**
     * The tools the context's principal may see, each with the mode policy gives it in this context
     * (tenant and automation overrides, drift). Reads the policy store once per tool; for operator
     * screens and catalogs rather than every model turn.
     */
    public List<CatalogEntry> catalog(CallContext context) {
        List<CatalogEntry> entries = new ArrayList<>();
        for (RegisteredTool tool : resolveTools(context.principal())) {
            ModeResolution mode = ModeCascade.resolve(tool.effect(),
                    store.policies().view(tool.name(), context.tenantId(), context.automationId()), tool.schemaFingerprint());
            entries.add(new CatalogEntry(tool.descriptor(), mode));
        }
        return List.copyOf(entries);
    }

    /**
     * A tool with the mode it has in one context.
     *
     * @param descriptor the tool
     * @param mode       its mode, source and drift state
     */
    public record CatalogEntry(ToolDescriptor descriptor, ModeResolution mode) {
    }

    // ---------------------------------------------------------------------------------------- calls

    /**
     * A model's tool call with JSON text arguments (null or blank means no arguments).
     *
     * @throws ToolValidationException if the text is not one JSON object or is larger than the limit
     * @see ProposeApplyEngine#call
     */
    public CallResult call(CallContext context, String toolName, String argumentsJson) {
        return engine.call(context, toolName, parseArguments(toolName, argumentsJson));
    }

    /** A model's tool call; see {@link ProposeApplyEngine#call}. */
    public CallResult call(CallContext context, String toolName, JsonNode arguments) {
        return engine.call(context, toolName, arguments);
    }

    /** Proposes a call whatever the permission mode; see {@link ProposeApplyEngine#propose}. */
    public Proposal propose(CallContext context, String toolName, String argumentsJson) {
        return engine.propose(context, toolName, parseArguments(toolName, argumentsJson));
    }

    /** Applies a proposal by its token; see {@link ProposeApplyEngine#apply}. */
    public Applied apply(CallContext context, String token) {
        return engine.apply(context, token);
    }

    /** What a token would apply, checked as apply checks it; see {@link ProposeApplyEngine#inspect}. */
    public PendingProposal inspect(CallContext context, String token) {
        return engine.inspect(context, token);
    }

    // ---------------------------------------------------------------------------------------- inbox

    /** Pending proposals the viewer may see; see {@link ProposeApplyEngine#pending}. */
    public List<PendingProposal> pending(CallContext viewer, String sessionId) {
        return engine.pending(viewer, sessionId);
    }

    /** An operator approves a proposal; see {@link ProposeApplyEngine#approve}. */
    public InboxResult approve(CallContext approver, String callId, Approval approval) {
        return engine.approve(approver, callId, approval);
    }

    /** An operator rejects a proposal; see {@link ProposeApplyEngine#reject}. */
    public InboxResult reject(CallContext approver, String callId, String reason) {
        return engine.reject(approver, callId, reason);
    }

    /** An operator edits a proposal's arguments; see {@link ProposeApplyEngine#edit}. */
    public InboxResult edit(CallContext approver, String callId, String argumentsJson) {
        return engine.edit(approver, callId, parseArguments("the edit of " + callId, argumentsJson));
    }

    /** An operator re-confirms a drifted tool's schema; see {@link ProposeApplyEngine#confirmSchema}. */
    public void confirmSchema(CallContext approver, String toolName) {
        engine.confirmSchema(approver, toolName);
    }

    // ---------------------------------------------------------------------------------------- policy

    /**
     * An operator stores a mode for a tool at a scope: the automation or tenant of {@code approver}'s
     * context. Requires the approver rule. The tool's current schema becomes the reviewed one.
     */
    public void setMode(CallContext approver, OverrideScope scope, String toolName, Mode mode) {
        approvers.require(approver);
        RegisteredTool tool = registry.find(toolName).orElseThrow(() -> new UnknownToolException(toolName));
        String scopeId = scope == OverrideScope.AUTOMATION ? approver.automationId() : approver.tenantId();
        if (scopeId == null) {
            throw new IllegalArgumentException("the approver's context has no " + scope.wireName() + " to store a mode for");
        }
        PrincipalRef actor = PrincipalRef.of(approver.principal());
        store.policies().putOverride(new ModeOverride(scope, scopeId, tool.name(), mode, actor, null));
        store.policies().putReview(new ToolReview(approver.tenantId() == null ? "" : approver.tenantId(),
                tool.name(), tool.schemaFingerprint(), actor, null));
    }

    /** Removes a stored mode; the cascade falls through to the next scope. Requires the approver rule. */
    public boolean clearMode(CallContext approver, OverrideScope scope, String toolName) {
        approvers.require(approver);
        String scopeId = scope == OverrideScope.AUTOMATION ? approver.automationId() : approver.tenantId();
        return scopeId != null && store.policies().removeOverride(scope, scopeId, toolName);
    }

    /** The modes stored at one scope. */
    public List<ModeOverride> modes(OverrideScope scope, String scopeId) {
        return store.policies().overrides(scope, scopeId);
    }

    // ---------------------------------------------------------------------------------------- audit

    /** One audit record. */
    public Optional<CallRecord> findCall(String callId) {
        return store.calls().find(callId);
    }

    /**
     * The record a call finally became: follows operators' edits from a proposal to the proposal
     * that replaced it, so a model can be told what actually ran.
     */
    public Optional<CallRecord> outcomeOf(String callId) {
        Optional<CallRecord> current = findCall(callId);
        for (int hops = 0; hops < 100 && current.isPresent() && current.get().supersededBy() != null; hops++) {
            current = findCall(current.get().supersededBy());
        }
        return current;
    }

    /** Audit records matching a query, newest first. */
    public List<CallRecord> findCalls(CallQuery query) {
        return store.calls().query(query);
    }

    /** Marks expired proposals as expired now (the builder also schedules this). */
    public int sweepExpired() {
        return engine.expireDue();
    }

    // ---------------------------------------------------------------------------------------- parts

    /** The registry, for registering tools at runtime. */
    public ToolRegistry registry() {
        return registry;
    }

    /** The access predicate. */
    public Resolver resolver() {
        return resolver;
    }

    /** The gate's settings. */
    public GateSettings settings() {
        return settings;
    }

    /** Stops the sweeper and the tool threads, and closes the store if Toolgate opened it. */
    @Override
    public void close() {
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
        engine.close();
        if (ownsStore) {
            store.close();
        }
    }

    private void sweepQuietly() {
        try {
            engine.expireDue();
        } catch (RuntimeException e) {
            LOG.warn("Expiring proposals failed; apply still rejects expired tokens", e);
        }
    }

    private JsonNode parseArguments(String toolName, String json) {
        if (json == null || json.isBlank()) {
            return null;
        }
        if (json.length() > maxArgumentBytes) {
            throw new ToolValidationException(toolName, List.of(ValidationIssue.at("",
                    "the arguments are " + json.length() + " characters; the limit is " + maxArgumentBytes + " bytes")));
        }
        try {
            return Json.parse(json);
        } catch (JacksonException e) {
            throw new ToolValidationException(toolName, List.of(ValidationIssue.at("",
                    "malformed JSON: " + e.getOriginalMessage())));
        }
    }

    /**
     * Configures and builds a {@link Toolgate}. Anything not set explicitly is discovered with
     * {@link java.util.ServiceLoader} (tool providers, a registry, a resolver, a budget, a store
     * provider, an engine factory, listeners) or falls back to the defaults: the standard resolver,
     * 60 calls per 60 seconds per principal, and an {@link InMemoryStore}. Not thread-safe.
     */
    public static final class Builder {

        private ToolRegistry registry;
        private Resolver resolver;
        private ToolBudget budget;
        private ToolgateStore store;
        private ProposeApplyEngine.Factory engineFactory;
        private JsonMapper mapper = Json.mapper();
        private ClassLoader classLoader;
        private boolean discoverTools = true;
        private boolean discoverComponents = true;
        private final List<ToolProvider> providers = new ArrayList<>();
        private final List<ToolCallListener> listeners = new ArrayList<>();
        private final Map<String, String> storeSettings = new LinkedHashMap<>();
        private static final GateSettings DEFAULTS = GateSettings.defaults();

        private Duration interactiveTtl = DEFAULTS.interactiveTtl();
        private Duration unattendedTtl = DEFAULTS.unattendedTtl();
        private int maxPendingPerSession = DEFAULTS.maxPendingPerSession();
        private String approverRule = GateSettings.DEFAULT_APPROVER_RULE;
        private Duration executionTimeout = DEFAULTS.executionTimeout();
        private int resultLimitBytes = DEFAULTS.resultLimitBytes();
        private int maxArgumentBytes = DEFAULTS.maxArgumentBytes();
        private Redactor redactor = DEFAULTS.redactor();
        private Duration sweepInterval = Duration.ofSeconds(60);
        private Duration policyCacheTtl = Duration.ofSeconds(1);

        private Builder() {
        }

        /** Uses this registry instead of discovering one or creating a new one. */
        public Builder registry(ToolRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Registers a provider's tools at build time. */
        public Builder provider(ToolProvider provider) {
            providers.add(Objects.requireNonNull(provider, "provider"));
            return this;
        }

        /** Registers tools for a plugin at build time. */
        public Builder tools(String pluginId, Tool<?, ?>... tools) {
            return provider(ToolProvider.of(pluginId, tools));
        }

        /** Whether to register every {@link ToolProvider} listed in {@code META-INF/services} (default true). */
        public Builder discoverTools(boolean discover) {
            this.discoverTools = discover;
            return this;
        }

        /**
         * Whether to look up a registry, resolver, budget, store provider, engine factory and listeners
         * with {@link java.util.ServiceLoader} when not set explicitly (default true).
         */
        public Builder discoverComponents(boolean discover) {
            this.discoverComponents = discover;
            return this;
        }

        /** The class loader for discovery (default: the thread's context class loader). */
        public Builder classLoader(ClassLoader classLoader) {
            this.classLoader = classLoader;
            return this;
        }

        /** The access predicate (default: {@link Resolver#standard()}). */
        public Builder resolver(Resolver resolver) {
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /** Per-principal limits (default: {@link ToolBudget#standard()}, 60 calls per 60 seconds). */
        public Builder budget(ToolBudget budget) {
            this.budget = Objects.requireNonNull(budget, "budget");
            return this;
        }

        /** The store; the host keeps ownership and closes it. */
        public Builder store(ToolgateStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /** A setting for a discovered store provider, such as {@code jdbc.url}; see {@link StoreSettings}. */
        public Builder storeSetting(String key, String value) {
            storeSettings.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** Replaces the standard engine. */
        public Builder engine(ProposeApplyEngine.Factory factory) {
            this.engineFactory = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /** Adds a listener for call outcomes. */
        public Builder listener(ToolCallListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** The JSON mapper for schemas and binding (default: {@link Json#mapper()}). */
        public Builder jsonMapper(JsonMapper mapper) {
            this.mapper = Objects.requireNonNull(mapper, "mapper");
            return this;
        }

        /** How long an interactive session's proposal stays valid (default 10 minutes). */
        public Builder proposalTtl(Duration ttl) {
            this.interactiveTtl = ttl;
            return this;
        }

        /** How long an unattended run's proposal stays valid (default 24 hours). */
        public Builder unattendedProposalTtl(Duration ttl) {
            this.unattendedTtl = ttl;
            return this;
        }

        /** Most pending proposals per session (default 10). */
        public Builder maxPendingPerSession(int max) {
            this.maxPendingPerSession = max;
            return this;
        }

        /** The rule operators need to approve, reject, edit and set modes (default {@code toolgate.approvals.manage}). */
        public Builder approverRule(String rule) {
            this.approverRule = rule;
            return this;
        }

        /** Default limit on a dry-run or execution (default 30 seconds); tools may override it. */
        public Builder executionTimeout(Duration timeout) {
            this.executionTimeout = timeout;
            return this;
        }

        /** Cap on a stored or returned result in bytes (default 10 KB). */
        public Builder resultLimitBytes(int bytes) {
            this.resultLimitBytes = bytes;
            return this;
        }

        /** Cap on a call's arguments in bytes (default 256 KB). */
        public Builder maxArgumentBytes(int bytes) {
            this.maxArgumentBytes = bytes;
            return this;
        }

        /** What counts as a secret (default {@link Redactor#defaults()}). */
        public Builder redactor(Redactor redactor) {
            this.redactor = redactor;
            return this;
        }

        /**
         * How long a policy read (overrides and schema reviews of one tool in one tenant and
         * automation) is reused before the store is asked again (default 1 second; {@link Duration#ZERO}
         * reads the store on every call). Changes made through this gate apply at once; changes made
         * through another instance sharing the store apply here within this time.
         */
        public Builder policyCacheTtl(Duration ttl) {
            if (ttl.isNegative()) {
                throw new IllegalArgumentException("policyCacheTtl must not be negative");
            }
            this.policyCacheTtl = ttl;
            return this;
        }

        /** How often to mark expired proposals expired (default 60 seconds; {@link Duration#ZERO} turns it off). */
        public Builder sweepInterval(Duration interval) {
            if (interval.isNegative()) {
                throw new IllegalArgumentException("sweepInterval must not be negative");
            }
            this.sweepInterval = interval;
            return this;
        }

        /**
         * Builds the gate: registers tools (failing on any invalid or duplicate tool), discovers what
         * was not set explicitly, and opens the store.
         *
         * @throws dev.toolgate.tool.ToolDefinitionException if a tool or provider is invalid
         * @throws IllegalStateException                      if discovery finds ambiguous implementations
         */
        public Toolgate build() {
            GateSettings settings = new GateSettings(interactiveTtl, unattendedTtl, maxPendingPerSession, approverRule,
                    executionTimeout, resultLimitBytes, maxArgumentBytes, redactor, false, Retention.defaults());
            Discovery discovery = new Discovery(classLoader != null ? classLoader : Thread.currentThread().getContextClassLoader());
            ToolRegistry tools = registry != null ? registry
                    : discovered(discovery, ToolRegistry.class).orElseGet(() -> ToolRegistry.create(mapper));
            if (discoverTools) {
                discovery.all(ToolProvider.class).forEach(tools::register);
            }
            providers.forEach(tools::register);
            Resolver access = resolver != null ? resolver : discovered(discovery, Resolver.class).orElse(Resolver.standard());
            ToolBudget limits = budget != null ? budget : discovered(discovery, ToolBudget.class).orElse(ToolBudget.standard());
            List<ToolCallListener> allListeners = new ArrayList<>(listeners);
            if (discoverComponents) {
                allListeners.addAll(discovery.all(ToolCallListener.class));
            }
            boolean ownsStore = store == null;
            ToolgateStore opened = store != null ? store : openStore(discovery);
            ToolgateStore storage = PolicyCache.around(opened, policyCacheTtl);
            try {
                EngineContext context = new EngineContext(tools, access, limits, storage, settings, allListeners, mapper);
                ProposeApplyEngine.Factory factory = engineFactory != null ? engineFactory
                        : discovered(discovery, ProposeApplyEngine.Factory.class).map(f -> {
                            LOG.warn("The standard Toolgate engine is replaced by {} found on the classpath", f.getClass().getName());
                            return f;
                        }).orElse(StandardEngine::new);
                ProposeApplyEngine engine = factory.create(context);
                LOG.info("Toolgate ready: {} tool(s), store {}, resolver {}", tools.tools().size(), storage, access);
                return new Toolgate(tools, access, storage, ownsStore, engine, settings, sweepInterval);
            } catch (RuntimeException e) {
                if (ownsStore) {
                    opened.close();
                }
                throw e;
            }
        }

        private <T> Optional<T> discovered(Discovery discovery, Class<T> type) {
            return discoverComponents ? discovery.single(type) : Optional.empty();
        }

        private ToolgateStore openStore(Discovery discovery) {
            if (!discoverComponents) {
                return new InMemoryStore();
            }
            List<StoreProvider> found = discovery.all(StoreProvider.class);
            if (found.isEmpty()) {
                LOG.info("No store provider on the classpath: using an in-memory store (single process only)");
                return new InMemoryStore();
            }
            found.sort(Comparator.comparingInt(StoreProvider::priority).reversed());
            if (found.size() > 1 && found.get(0).priority() == found.get(1).priority()) {
                throw new IllegalStateException("Store providers " + found.get(0).name() + " and " + found.get(1).name()
                        + " have the same priority; pass a store to Toolgate.builder() explicitly");
            }
            return found.get(0).open(StoreSettings.of(storeSettings));
        }
    }
}
