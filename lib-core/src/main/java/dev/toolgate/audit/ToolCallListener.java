package dev.toolgate.audit;

/**
 * Receives an event for every call outcome (executed, proposed, applied, failed, invalid, denied,
 * rejected, interrupted, superseded, and expired: the sweep reports the proposals it expires, decided by
 * {@code service:toolgate}), and for budget refusals. Events carry metadata only; see {@link ToolCallEvent}.
 * With several instances sweeping one store, an expiry is reported once: by the instance whose sweep expired it.
 *
 * <p>Listeners run synchronously on the calling thread after the outcome is stored, so keep them
 * fast or hand off. An exception from a listener is logged and never breaks the call. Register one
 * with the builder or in {@code META-INF/services/dev.toolgate.audit.ToolCallListener}.
 */
@FunctionalInterface
public interface ToolCallListener {

    /** Called once per outcome. */
    void onCall(ToolCallEvent event);

    /**
     * Called when the budget refuses a call, or the apply or approval of a proposal, before any tool
     * code runs; nothing is recorded in the audit trail then. Does nothing by default.
     */
    default void onBudgetRefused(BudgetRefusal refusal) {
    }

    /**
     * Called after each listing of a tool source (at start, on refresh, when the source reports a
     * change), on a source thread; never on the call path. Does nothing by default.
     */
    default void onSourceListed(SourceListing listing) {
    }

    /**
     * Called once for each source tool whose schema fingerprint a listing of its source found changed
     * since the listing before, on a source thread (never on the call path), after the new schema is
     * registered and before {@link #onSourceListed} for that listing. The first listing after the gate
     * starts reports nothing (it has nothing to compare with), nor does a tool that is new or was
     * removed. Each instance that lists the source reports the change it sees. Whether a tool has drifted
     * from a tenant's review is state, not an event: see {@code Toolgate.catalog}. Does nothing by default.
     */
    default void onToolDrifted(ToolDrift drift) {
    }
}
