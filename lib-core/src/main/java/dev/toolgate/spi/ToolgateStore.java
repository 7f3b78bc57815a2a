package dev.toolgate.spi;

/**
 * One storage backend: the call store and the policy store. Core ships {@link InMemoryStore}
 * (single process); {@code toolgate-jdbc} ships durable stores on H2 and PostgreSQL.
 */
public interface ToolgateStore extends AutoCloseable {

    /** The audit trail, token store and budget ledger. */
    CallStore calls();

    /** Overrides and reviews. */
    PolicyStore policies();

    /**
     * The runs of durable executions. A store that keeps none throws
     * {@link UnsupportedOperationException}; the gate then refuses to start a run.
     */
    default ExecutionStore executions() {
        throw new UnsupportedOperationException(this + " does not store durable executions");
    }

    /**
     * What conversations have been told of the decisions on their proposals. A store that keeps no
     * such marks throws {@link UnsupportedOperationException}; decisions are then not reported back.
     */
    default ConversationStore conversations() {
        throw new UnsupportedOperationException(this + " does not record what conversations were told");
    }

    /** Releases connections and threads the store owns (never a host-supplied data source). */
    @Override
    void close();
}
