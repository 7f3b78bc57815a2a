package dev.toolgate;

import dev.toolgate.policy.ModeOverride;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PolicyView;
import dev.toolgate.policy.ToolReview;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.ExecutionStore;
import dev.toolgate.spi.PolicyStore;
import dev.toolgate.spi.ToolgateStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps each call's policy read off the store for a short time. Every write through this gate clears
 * the cache at once, so this instance sees its own changes immediately; a change made through another
 * instance is seen here within the time to live. A zero time to live turns caching off.
 */
final class PolicyCache implements PolicyStore {

    /** Beyond this many cached views the cache starts over, so an unbounded set of scopes cannot grow it. */
    private static final int MAX_ENTRIES = 10_000;

    private record Key(String toolName, String tenantId, String automationId) {
    }

    private record Entry(PolicyView view, long expiresAtNanos) {
    }

    private final PolicyStore store;
    private final long ttlNanos;
    private final Map<Key, Entry> views = new ConcurrentHashMap<>();

    private PolicyCache(PolicyStore store, Duration ttl) {
        this.store = store;
        this.ttlNanos = ttl.toNanos();
    }

    /** {@code store} with its policy reads cached for {@code ttl}; the store itself when {@code ttl} is zero. */
    static ToolgateStore around(ToolgateStore store, Duration ttl) {
        if (ttl.isZero()) {
            return store;
        }
        PolicyCache cache = new PolicyCache(store.policies(), ttl);
        return new ToolgateStore() {
            @Override
            public CallStore calls() {
                return store.calls();
            }

            @Override
            public PolicyStore policies() {
                return cache;
            }

            @Override
            public ExecutionStore executions() {
                return store.executions();
            }

            @Override
            public dev.toolgate.spi.ConversationStore conversations() {
                return store.conversations();
            }

            @Override
            public void close() {
                store.close();
            }

            @Override
            public String toString() {
                return store + " (policy reads cached " + ttl + ")";
            }
        };
    }

    @Override
    public PolicyView view(String toolName, String tenantId, String automationId) {
        Key key = new Key(toolName, tenantId, automationId);
        long now = System.nanoTime();
        Entry entry = views.get(key);
        if (entry != null && now - entry.expiresAtNanos() < 0) {
            return entry.view();
        }
        PolicyView view = store.view(toolName, tenantId, automationId);
        if (views.size() >= MAX_ENTRIES) {
            views.clear();
        }
        views.put(key, new Entry(view, now + ttlNanos));
        return view;
    }

    @Override
    public void putOverride(ModeOverride override) {
        try {
            store.putOverride(override);
        } finally {
            views.clear();
        }
    }

    @Override
    public boolean removeOverride(OverrideScope scope, String scopeId, String toolName) {
        try {
            return store.removeOverride(scope, scopeId, toolName);
        } finally {
            views.clear();
        }
    }

    @Override
    public List<ModeOverride> overrides(OverrideScope scope, String scopeId) {
        return store.overrides(scope, scopeId);
    }

    @Override
    public ToolReview reviewIfAbsent(ToolReview review) {
        try {
            return store.reviewIfAbsent(review);
        } finally {
            views.clear();
        }
    }

    @Override
    public void putReview(ToolReview review) {
        try {
            store.putReview(review);
        } finally {
            views.clear();
        }
    }
}
