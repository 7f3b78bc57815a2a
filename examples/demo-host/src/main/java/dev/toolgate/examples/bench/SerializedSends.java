package dev.toolgate.examples.bench;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * A client transport whose {@link #sendMessage} runs one call at a time. The MCP Java SDK's
 * {@code StdioClientTransport} (2.1) hands each message to a Reactor sink with {@code tryEmitNext}, which
 * fails when two threads send at once ("Failed to enqueue message", modelcontextprotocol/java-sdk#875),
 * so one {@code McpSyncClient} on stdio cannot take calls from several threads. The SDK's transport
 * sends in {@code sendMessage} itself (not on subscription), so holding a lock around the call is enough.
 */
final class SerializedSends implements McpClientTransport {

    private final McpClientTransport delegate;

    SerializedSends(McpClientTransport delegate) {
        this.delegate = delegate;
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return delegate.connect(handler);
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        delegate.setExceptionHandler(handler);
    }

    @Override
    public synchronized Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return delegate.sendMessage(message);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return delegate.unmarshalFrom(data, typeRef);
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }
}
