package dev.toolgate.gate;

import dev.toolgate.call.GateSettings;
import dev.toolgate.access.Resolver;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.notice.ApprovalNotifier;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.tool.ToolRegistry;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;

/**
 * Everything an engine is built from, as assembled by the {@code Toolgate} builder.
 *
 * @param registry  the tools
 * @param resolver  the access predicate
 * @param budget    the per-principal limits
 * @param store     the storage backend
 * @param settings  the tunables
 * @param listeners the call listeners
 * @param mapper    the JSON mapper
 * @param notifiers the approval notifiers, each fed off the call path by the engine
 * @param noticeQueueCapacity how many notices may wait for one notifier before new ones are dropped
 */
public record EngineContext(ToolRegistry registry, Resolver resolver, ToolBudget budget, ToolgateStore store,
                            GateSettings settings, List<ToolCallListener> listeners, JsonMapper mapper,
                            List<ApprovalNotifier> notifiers, int noticeQueueCapacity) {

    /** How many notices may wait for one notifier by default. */
    public static final int DEFAULT_NOTICE_QUEUE_CAPACITY = 1_000;

    /** A context without approval notifiers. */
    public EngineContext(ToolRegistry registry, Resolver resolver, ToolBudget budget, ToolgateStore store,
                         GateSettings settings, List<ToolCallListener> listeners, JsonMapper mapper) {
        this(registry, resolver, budget, store, settings, listeners, mapper, List.of(), DEFAULT_NOTICE_QUEUE_CAPACITY);
    }

    /** Checks the components; see the class description for what each must hold. */
    public EngineContext {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(budget, "budget");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(settings, "settings");
        listeners = List.copyOf(listeners);
        Objects.requireNonNull(mapper, "mapper");
        notifiers = List.copyOf(notifiers);
        if (noticeQueueCapacity < 1) {
            throw new IllegalArgumentException("noticeQueueCapacity must be at least 1, got " + noticeQueueCapacity);
        }
    }
}
