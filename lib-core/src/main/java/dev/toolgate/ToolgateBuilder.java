package dev.toolgate;

import dev.toolgate.access.Resolver;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.access.PrincipalDirectory;
import dev.toolgate.execution.Executions;
import dev.toolgate.execution.Program;
import dev.toolgate.execution.ProgramProvider;
import dev.toolgate.gate.EngineContext;
import dev.toolgate.notice.ApprovalNotifier;
import dev.toolgate.call.GateSettings;
import dev.toolgate.gate.ProposeApplyEngine;
import dev.toolgate.call.Retention;
import dev.toolgate.json.Json;
import dev.toolgate.json.Redactor;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.StoreSettings;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.source.SecretResolver;
import dev.toolgate.source.SourceCatalog;
import dev.toolgate.source.ToolSource;
import dev.toolgate.tool.ToolRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Configures and builds a {@link Toolgate}. Anything not set explicitly is discovered with
 * {@link java.util.ServiceLoader} (tool providers, a registry, a resolver, a budget, a store
 * provider, an engine factory, listeners, approval notifiers) or falls back to the defaults: the standard resolver,
 * 60 calls per 60 seconds per principal, and an {@link InMemoryStore}. Not thread-safe.
 */
public final class ToolgateBuilder {

    private static final Logger LOG = LoggerFactory.getLogger(Toolgate.class);

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
    private final List<ApprovalNotifier> notifiers = new ArrayList<>();
    private int noticeQueueCapacity = EngineContext.DEFAULT_NOTICE_QUEUE_CAPACITY;
    private final Map<String, Program> programs = new LinkedHashMap<>();
    private final List<ProgramProvider> programProviders = new ArrayList<>();
    private PrincipalDirectory directory;
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
    private boolean requireDistinctApprover = DEFAULTS.requireDistinctApprover();
    private boolean toolsOnCallerThread = DEFAULTS.toolsOnCallerThread();
    private Retention retention = DEFAULTS.retention();
    private final List<ToolSource> sources = new ArrayList<>();
    private SecretResolver secrets;
    private SourceCatalog.Settings sourceSettings = SourceCatalog.Settings.DEFAULT;

    ToolgateBuilder() {
    }

    /**
     * Adds a tool source (a remote MCP server, a database): its tools are registered as
     * {@code <source id>.<tool>} and governed like code tools. Sources listed in
     * {@code META-INF/services/dev.toolgate.source.ToolSource} are added too unless component discovery
     * is off. Toolgate closes its sources when it closes.
     */
    public ToolgateBuilder source(ToolSource source) {
        sources.add(Objects.requireNonNull(source, "source"));
        return this;
    }

    /**
     * Where sources get their credentials. Without one, a resolver found through
     * {@code META-INF/services/dev.toolgate.source.SecretResolver} is used, else one with no secrets.
     */
    public ToolgateBuilder secrets(SecretResolver secrets) {
        this.secrets = Objects.requireNonNull(secrets, "secrets");
        return this;
    }

    /**
     * How long a source's tool list is used before it is listed again (default five minutes), how
     * long one listing may take before the source counts as unavailable (default ten seconds), and
     * how long one call of a source's tool may take (default thirty seconds).
     */
    public ToolgateBuilder sourceTimings(Duration cacheTtl, Duration listTimeout, Duration callTimeout) {
        this.sourceSettings = new SourceCatalog.Settings(cacheTtl, listTimeout, callTimeout);
        return this;
    }

    /** Uses this registry instead of discovering one or creating a new one. */
    public ToolgateBuilder registry(ToolRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        return this;
    }

    /** Registers a provider's tools at build time. */
    public ToolgateBuilder provider(ToolProvider provider) {
        providers.add(Objects.requireNonNull(provider, "provider"));
        return this;
    }

    /** Registers tools for a plugin at build time. */
    public ToolgateBuilder tools(String pluginId, Tool<?, ?>... tools) {
        return provider(ToolProvider.of(pluginId, tools));
    }

    /**
     * Registers a program for durable executions under {@code name} (1-100 characters of
     * {@code A-Za-z0-9_.-}, for example {@code incident.escalate}); see {@link Program}.
     */
    public ToolgateBuilder program(String name, Program program) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(program, "program");
        if (programs.putIfAbsent(name, program) != null) {
            throw new IllegalArgumentException("program " + name + " is registered twice");
        }
        return this;
    }

    /** Registers a provider's programs at build time. */
    public ToolgateBuilder programs(ProgramProvider provider) {
        programProviders.add(Objects.requireNonNull(provider, "provider"));
        return this;
    }

    /**
     * How to find a run's principal as it is now when a durable execution goes on without it (a
     * replay after an operator's approval, a takeover after a crash). Default: discovered, else none,
     * and such runs act with the rules their principal held when they started.
     */
    public ToolgateBuilder principalDirectory(PrincipalDirectory directory) {
        this.directory = Objects.requireNonNull(directory, "directory");
        return this;
    }

    /**
     * Whether to register every {@link ToolProvider} and {@link ProgramProvider} listed in
     * {@code META-INF/services} (default true).
     */
    public ToolgateBuilder discoverTools(boolean discover) {
        this.discoverTools = discover;
        return this;
    }

    /**
     * Whether to look up a registry, resolver, budget, store provider, engine factory, listeners and notifiers
     * with {@link java.util.ServiceLoader} when not set explicitly (default true).
     */
    public ToolgateBuilder discoverComponents(boolean discover) {
        this.discoverComponents = discover;
        return this;
    }

    /** The class loader for discovery (default: the thread's context class loader). */
    public ToolgateBuilder classLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
        return this;
    }

    /** The access predicate (default: {@link Resolver#standard()}). */
    public ToolgateBuilder resolver(Resolver resolver) {
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        return this;
    }

    /** Per-principal limits (default: {@link ToolBudget#standard()}, 60 calls per 60 seconds). */
    public ToolgateBuilder budget(ToolBudget budget) {
        this.budget = Objects.requireNonNull(budget, "budget");
        return this;
    }

    /** The store; the host keeps ownership and closes it. */
    public ToolgateBuilder store(ToolgateStore store) {
        this.store = Objects.requireNonNull(store, "store");
        return this;
    }

    /**
     * A setting for a discovered store provider, such as {@code jdbc.url}, or for the in-memory store
     * opened when none is found, such as {@code memory.max-finished-calls}; see {@link StoreSettings}.
     */
    public ToolgateBuilder storeSetting(String key, String value) {
        storeSettings.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /** Replaces the standard engine. */
    public ToolgateBuilder engine(ProposeApplyEngine.Factory factory) {
        this.engineFactory = Objects.requireNonNull(factory, "factory");
        return this;
    }

    /** Adds a listener for call outcomes. */
    public ToolgateBuilder listener(ToolCallListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * Adds an approval notifier: it hears, off the call path, when a proposal or a paused run's step
     * awaits a decision, and when it is decided or expires (see {@link ApprovalNotifier}). Several are
     * allowed; notifiers listed in {@code META-INF/services/dev.toolgate.notice.ApprovalNotifier} are
     * added too unless component discovery is off.
     */
    public ToolgateBuilder notifier(ApprovalNotifier notifier) {
        notifiers.add(Objects.requireNonNull(notifier, "notifier"));
        return this;
    }

    /**
     * How many approval notices may wait for one notifier before new ones are dropped (logged and
     * reported to {@link ApprovalNotifier#dropped}); default 1,000.
     */
    public ToolgateBuilder noticeQueueCapacity(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("noticeQueueCapacity must be at least 1, got " + capacity);
        }
        this.noticeQueueCapacity = capacity;
        return this;
    }

    /** The JSON mapper for schemas and binding (default: {@link Json#mapper()}). */
    public ToolgateBuilder jsonMapper(JsonMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        return this;
    }

    /** How long an interactive session's proposal stays valid (default 10 minutes). */
    public ToolgateBuilder proposalTtl(Duration ttl) {
        this.interactiveTtl = ttl;
        return this;
    }

    /** How long an unattended run's proposal stays valid (default 24 hours). */
    public ToolgateBuilder unattendedProposalTtl(Duration ttl) {
        this.unattendedTtl = ttl;
        return this;
    }

    /** Most pending proposals per session (default 10). */
    public ToolgateBuilder maxPendingPerSession(int max) {
        this.maxPendingPerSession = max;
        return this;
    }

    /** The rule operators need to approve, reject, edit and set modes (default {@code toolgate.approvals.manage}). */
    public ToolgateBuilder approverRule(String rule) {
        this.approverRule = rule;
        return this;
    }

    /** Default limit on a dry-run or execution (default 30 seconds); tools may override it. */
    public ToolgateBuilder executionTimeout(Duration timeout) {
        this.executionTimeout = timeout;
        return this;
    }

    /**
     * Whether a tool that runs on the thread that called the gate (each tool's default; see
     * {@link dev.toolgate.tool.Tool.Builder#onCallerThread(boolean)}) does (default true). False hands
     * every tool to the gate's own tool threads, whatever its plugin declared, so a caller is always
     * answered at the tool's timeout, even by a tool that ignores interruption, for two thread
     * wake-ups per call.
     */
    public ToolgateBuilder toolsOnCallerThread(boolean allowed) {
        this.toolsOnCallerThread = allowed;
        return this;
    }

    /** Cap on a stored or returned result in bytes (default 10 KB). */
    public ToolgateBuilder resultLimitBytes(int bytes) {
        this.resultLimitBytes = bytes;
        return this;
    }

    /** Cap on a call's arguments in bytes (default 256 KB). */
    public ToolgateBuilder maxArgumentBytes(int bytes) {
        this.maxArgumentBytes = bytes;
        return this;
    }

    /** What counts as a secret (default {@link Redactor#defaults()}). */
    public ToolgateBuilder redactor(Redactor redactor) {
        this.redactor = redactor;
        return this;
    }

    /**
     * How long a policy read (overrides and schema reviews of one tool in one tenant and
     * automation) is reused before the store is asked again (default 1 second; {@link Duration#ZERO}
     * reads the store on every call). Changes made through this gate apply at once; changes made
     * through another instance sharing the store apply here within this time.
     */
    public ToolgateBuilder policyCacheTtl(Duration ttl) {
        if (ttl.isNegative()) {
            throw new IllegalArgumentException("policyCacheTtl must not be negative");
        }
        this.policyCacheTtl = ttl;
        return this;
    }

    /**
     * Separation of duties (default false): when true, nobody decides on a proposal they made
     * themselves. Its proposer can neither apply its token nor approve or edit it in the inbox
     * ({@link dev.toolgate.call.SeparationOfDutiesException}); another principal with the tool's
     * rules (and, in the inbox, the approver rule) must. The inbox marks such proposals as not
     * decidable for their proposer. Policy's own consent (an ALLOW mode, AUTO permission mode)
     * still applies in one step.
     */
    public ToolgateBuilder requireDistinctApprover(boolean require) {
        this.requireDistinctApprover = require;
        return this;
    }

    /**
     * How long stored rows are kept before the sweeper purges them in small batches (default
     * {@link Retention#defaults()}: finished calls 90 days, the rest 7 days after they close).
     */
    public ToolgateBuilder retention(Retention retention) {
        this.retention = Objects.requireNonNull(retention, "retention");
        return this;
    }

    /**
     * How often the sweeper runs (default 60 seconds; {@link Duration#ZERO} turns it off): it marks
     * expired proposals expired, reports claimed calls whose outcome never arrived as interrupted,
     * and purges what the {@linkplain #retention retention} no longer keeps.
     */
    public ToolgateBuilder sweepInterval(Duration interval) {
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
                executionTimeout, resultLimitBytes, maxArgumentBytes, redactor, requireDistinctApprover, retention,
                toolsOnCallerThread);
        Discovery discovery = new Discovery(classLoader != null ? classLoader : Thread.currentThread().getContextClassLoader());
        ToolRegistry tools = registry != null ? registry
                : discovered(discovery, ToolRegistry.class).orElseGet(() -> ToolRegistry.create(mapper));
        if (discoverTools) {
            discovery.all(ToolProvider.class).forEach(tools::register);
        }
        providers.forEach(tools::register);
        List<ToolSource> allSources = new ArrayList<>(sources);
        if (discoverComponents) {
            allSources.addAll(discovery.all(ToolSource.class));
        }
        SecretResolver vault = secrets != null ? secrets
                : discovered(discovery, SecretResolver.class).orElse(SecretResolver.none());
        Resolver access = resolver != null ? resolver : discovered(discovery, Resolver.class).orElse(Resolver.standard());
        ToolBudget limits = budget != null ? budget : discovered(discovery, ToolBudget.class).orElse(ToolBudget.standard());
        List<ToolCallListener> allListeners = new ArrayList<>(listeners);
        if (discoverComponents) {
            allListeners.addAll(discovery.all(ToolCallListener.class));
        }
        List<ApprovalNotifier> allNotifiers = new ArrayList<>(notifiers);
        if (discoverComponents) {
            allNotifiers.addAll(discovery.all(ApprovalNotifier.class));
        }
        boolean ownsStore = store == null;
        ToolgateStore opened = store != null ? store : BuilderParts.openStore(discovery, discoverComponents, storeSettings);
        ToolgateStore storage = PolicyCache.around(opened, policyCacheTtl);
        SourceCatalog catalog = null;
        try {
            catalog = SourceCatalog.start(allSources, vault, tools, sourceSettings,
                    listing -> BuilderParts.listed(allListeners, listing), drift -> BuilderParts.drifted(allListeners, drift));
            EngineContext context = new EngineContext(tools, access, limits, storage, settings, allListeners, mapper,
                    allNotifiers, noticeQueueCapacity);
            ProposeApplyEngine.Factory factory = engineFactory != null ? engineFactory
                    : discovered(discovery, ProposeApplyEngine.Factory.class).map(f -> {
                        LOG.warn("The standard Toolgate engine is replaced by {} found on the classpath", f.getClass().getName());
                        return f;
                    }).orElse(ProposeApplyEngine.standard());
            ProposeApplyEngine engine = factory.create(context);
            Executions executions = executions(discovery, engine, storage, tools, access, settings);
            LOG.info("Toolgate ready: {} tool(s), {} program(s), {} source(s), store {}, resolver {}", tools.tools().size(),
                    executions == null ? 0 : executions.programs().size(), allSources.size(), storage, access);
            return new Toolgate(tools, access, storage, ownsStore, engine, settings, sweepInterval, executions, catalog);
        } catch (RuntimeException e) {
            if (catalog != null) {
                catalog.close();
            }
            if (ownsStore) {
                opened.close();
            }
            throw e;
        }
    }

    /** The durable executions runtime, or null when the store keeps no runs and no program is registered. */
    private Executions executions(Discovery discovery, ProposeApplyEngine engine, ToolgateStore storage, ToolRegistry tools,
                                  Resolver access, GateSettings settings) {
        List<ProgramProvider> found = new ArrayList<>(discoverTools ? discovery.all(ProgramProvider.class) : List.of());
        found.addAll(programProviders);
        Map<String, Program> all = BuilderParts.programs(found, programs);
        try {
            storage.executions();
        } catch (UnsupportedOperationException e) {
            if (!all.isEmpty()) {
                throw new IllegalStateException("programs are registered, but " + e.getMessage(), e);
            }
            return null;
        }
        PrincipalDirectory principals = directory != null ? directory
                : discovered(discovery, PrincipalDirectory.class).orElse(null);
        return Executions.of(new Executions.Parts(engine, storage, tools, access, settings, mapper, all, principals));
    }

    private <T> Optional<T> discovered(Discovery discovery, Class<T> type) {
        return discoverComponents ? discovery.single(type) : Optional.empty();
    }
}
