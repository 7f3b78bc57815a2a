package dev.toolgate.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import reactor.core.publisher.Mono;

/**
 * The SDK's servlet transport as the SDK's server sees it, keeping each session the SDK starts, so a
 * task can ask a session's user ({@link TaskConsent}): a request of that session goes out on its GET
 * stream and the client's answer, POSTed like any, is matched by the SDK's session. Everything else is
 * the SDK's transport's own.
 */
final class ServletTaskChannel implements McpStreamableServerTransportProvider, TaskConsent.Channel {

    private record Kept(McpStreamableServerSession session, boolean elicits) {
    }

    private final McpStreamableServerTransportProvider delegate;
    private final Predicate<String> alive;
    private final int pruneAbove;
    private final Map<String, Kept> sessions = new ConcurrentHashMap<>();

    /**
     * {@code alive}: whether a session id is still open (the guard's sessions); past {@code pruneAbove}
     * kept sessions, the ended ones are forgotten when a new one starts. (A session forgotten while it
     * starts, in a rare race, is never asked: its tasks wait for an operator.)
     */
    ServletTaskChannel(McpStreamableServerTransportProvider delegate, Predicate<String> alive, int pruneAbove) {
        this.delegate = delegate;
        this.alive = alive;
        this.pruneAbove = pruneAbove;
    }

    @Override
    public void setSessionFactory(McpStreamableServerSession.Factory factory) {
        delegate.setSessionFactory(initialize -> {
            McpStreamableServerSession.McpStreamableServerSessionInit init = factory.startSession(initialize);
            String id = init.session().getId();
            if (sessions.size() >= pruneAbove) {
                sessions.keySet().removeIf(other -> !alive.test(other));
            }
            sessions.put(id, new Kept(init.session(),
                    initialize.capabilities() != null && initialize.capabilities().elicitation() != null));
            return init;
        });
    }

    @Override
    public Optional<McpSchema.ElicitResult> elicit(String sessionId, Map<String, Object> request, Duration timeout) {
        Kept kept = sessionId == null ? null : sessions.get(sessionId);
        if (kept == null || !kept.elicits() || !kept.session().hasListeningStream() || !alive.test(sessionId)) {
            return Optional.empty();
        }
        return TaskConsent.elicit(kept.session(), request, timeout);
    }

    /** Sessions kept now (for tests). */
    int kept() {
        return sessions.size();
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return delegate.notifyClients(method, params);
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return delegate.notifyClient(sessionId, method, params);
    }

    @Override
    public void close() {
        sessions.clear();
        delegate.close();
    }

    @Override
    public Mono<Void> closeGracefully() {
        sessions.clear();
        return delegate.closeGracefully();
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }
}
