package dev.toolgate.openapi;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read up to a cap: the rest is not read (the subscription is cancelled), so a huge
 * or endless response costs at most the cap in memory.
 */
final class CappedBody implements HttpResponse.BodySubscriber<CappedBody.Bytes> {

    /** The bytes read, and whether the body went on past them. */
    record Bytes(byte[] bytes, boolean truncated) {
    }

    private final int cap;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final CompletableFuture<Bytes> result = new CompletableFuture<>();
    private Flow.Subscription subscription;

    CappedBody(int cap) {
        this.cap = cap;
    }

    static HttpResponse.BodyHandler<Bytes> handler(int cap) {
        return info -> new CappedBody(cap);
    }

    @Override
    public CompletionStage<Bytes> getBody() {
        return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (result.isDone()) {
            return;
        }
        for (ByteBuffer buffer : buffers) {
            int room = cap - out.size();
            int take = Math.min(room, buffer.remaining());
            byte[] chunk = new byte[take];
            buffer.get(chunk);
            out.write(chunk, 0, take);
            if (buffer.hasRemaining()) {
                result.complete(new Bytes(out.toByteArray(), true));
                subscription.cancel();
                return;
            }
        }
    }

    @Override
    public void onError(Throwable throwable) {
        result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
        result.complete(new Bytes(out.toByteArray(), false));
    }
}
