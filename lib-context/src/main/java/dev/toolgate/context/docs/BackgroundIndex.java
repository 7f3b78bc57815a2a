package dev.toolgate.context.docs;

/** An index built on a daemon thread, waited for when first needed: see {@link DocsIndex#inBackground}. */
final class BackgroundIndex {

    private BackgroundIndex() {
    }

    /** Starts {@code build} now; the supplier waits for it at most {@code wait}. */
    static java.util.function.Supplier<DocsIndex> start(java.util.function.Supplier<DocsIndex> build,
                                                        java.time.Duration wait) {
        java.util.concurrent.CompletableFuture<DocsIndex> future = new java.util.concurrent.CompletableFuture<>();
        Thread builder = new Thread(() -> {
            try {
                future.complete(build.get());
            } catch (RuntimeException | Error e) {
                future.completeExceptionally(e);
            }
        }, "toolgate-docs-index");
        builder.setDaemon(true);
        builder.start();
        return () -> {
            try {
                return future.get(wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException("the documentation index is still building after " + wait.toMillis() + " ms");
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("the documentation index could not be built: " + e.getCause().getMessage(),
                        e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the documentation index");
            }
        };
    }
}
