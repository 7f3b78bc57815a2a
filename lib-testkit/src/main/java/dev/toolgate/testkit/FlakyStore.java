package dev.toolgate.testkit;

import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.ConversationStore;
import dev.toolgate.spi.ExecutionStore;
import dev.toolgate.spi.PolicyStore;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.spi.ToolgateStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store whose call store can be made to fail as an unavailable database does: while {@link #fail}
 * is in force every {@link CallStore} operation throws the given {@link StoreUnavailableException}
 * (and counts it), and after {@link #heal} they reach the wrapped store again. For testing what callers
 * get from a store outage, on every transport, without a database.
 */
public final class FlakyStore implements ToolgateStore {

    private final ToolgateStore inner;
    private final CallStore calls;
    private final AtomicInteger refused = new AtomicInteger();
    private volatile StoreUnavailableException failure;

    /** Wraps {@code inner}; it is closed with this store. */
    public FlakyStore(ToolgateStore inner) {
        this.inner = inner;
        CallStore target = inner.calls();
        this.calls = (CallStore) Proxy.newProxyInstance(CallStore.class.getClassLoader(), new Class<?>[] {CallStore.class},
                (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.invoke(target, args);
                    }
                    StoreUnavailableException now = failure;
                    if (now != null) {
                        refused.incrementAndGet();
                        throw now;
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** From now on every call store operation throws {@code e}. */
    public void fail(StoreUnavailableException e) {
        failure = e;
    }

    /** From now on the call store works again. */
    public void heal() {
        failure = null;
    }

    /** Operations refused while failing. */
    public int refused() {
        return refused.get();
    }

    @Override
    public CallStore calls() {
        return calls;
    }

    @Override
    public PolicyStore policies() {
        return inner.policies();
    }

    @Override
    public ExecutionStore executions() {
        return inner.executions();
    }

    @Override
    public ConversationStore conversations() {
        return inner.conversations();
    }

    @Override
    public void close() {
        inner.close();
    }
}
