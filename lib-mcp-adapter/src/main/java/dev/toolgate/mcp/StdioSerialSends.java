package dev.toolgate.mcp;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The SDK's stdio transport with its sends serialized. That transport hands every outgoing message
 * to a sink that accepts one emitting thread at a time; a second thread busy-waits at most 100 ms
 * and then the message is dropped ("Failed to enqueue message"), the failure ends the transport's
 * inbound pipeline and the server stops reading standard input. Two answers completing at once on
 * different threads (concurrent requests, a {@code tools/list_changed} notification) are enough
 * when the machine is busy. Here each send enters the SDK's transport under one lock, so there is
 * never a second emitter to wait for.
 */
final class StdioSerialSends implements McpServerTransportProvider, CatalogDispatch.Sink {

    private final StdioServerTransportProvider delegate;
    private volatile Serialized session;
    private volatile McpServerSession mcpSession;
    private volatile boolean closed;

    StdioSerialSends(StdioServerTransportProvider delegate) {
        this.delegate = delegate;
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory sessionFactory) {
        delegate.setSessionFactory(transport -> {
            Serialized serialized = new Serialized(transport);
            session = serialized;
            McpServerSession created = sessionFactory.create(serialized);
            mcpSession = created;
            return created;
        });
    }

    /**
     * How a task asks the user on stdio: a request of the SDK's session (its answer is read and matched
     * by the SDK), when the client declared elicitation ({@code input} saw its {@code initialize}).
     */
    TaskConsent.Channel consentChannel(StdioInput input) {
        return (sessionId, request, timeout) -> {
            McpServerSession target = mcpSession;
            if (target == null || closed || !input.clientElicits()) {
                return java.util.Optional.empty();
            }
            return TaskConsent.elicit(target, request, timeout);
        };
    }

    /** Sends one message (a response the catalog answered) through the session's serialized transport. */
    void send(McpSchema.JSONRPCMessage message) {
        Serialized target = session;
        if (target == null || closed) {
            return;
        }
        try {
            target.sendMessage(message).block(java.time.Duration.ofSeconds(30));
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(ToolgateMcpServer.class).debug("Not sent on stdio: {}", e.toString());
        }
    }

    @Override
    public void send(String sessionId, String method, Object params) {
        send(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, method, params));
    }

    @Override
    public boolean alive(String sessionId) {
        return !closed && CatalogDispatch.STDIO_SESSION.equals(sessionId);
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
    public Mono<Void> closeGracefully() {
        closed = true;
        return delegate.closeGracefully();
    }

    @Override
    public void close() {
        closed = true;
        delegate.close();
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }

    /** The session's transport; the provider's own notifications also go through it. */
    private static final class Serialized implements McpServerTransport {

        private final McpServerTransport transport;
        private final Object sending = new Object();

        Serialized(McpServerTransport transport) {
            this.transport = transport;
        }

        /**
         * Subscribes to the SDK's send under the lock. Once the transport is running (always, after the
         * first message was read) the SDK's send completes its emission inside {@code subscribe}, so
         * the lock covers it.
         */
        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return Mono.create(sink -> {
                synchronized (sending) {
                    transport.sendMessage(message).subscribe(done -> { }, sink::error, sink::success);
                }
            });
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return transport.unmarshalFrom(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return transport.closeGracefully();
        }

        @Override
        public void close() {
            transport.close();
        }

        @Override
        public List<String> protocolVersions() {
            return transport.protocolVersions();
        }
    }
}
