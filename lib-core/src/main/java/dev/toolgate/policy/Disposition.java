package dev.toolgate.policy;

/** What the gate does with one permitted call. */
public enum Disposition {
    /** Execute now (a read under ALLOW). */
    RUN,
    /** Dry-run, store the proposal and wait for apply or an operator's approval. */
    PROPOSE_AND_WAIT,
    /** Dry-run, store the proposal, and apply it at once; the result is an applied card. */
    PROPOSE_AND_APPLY,
    /** Refuse and record the denial. */
    DENY
}
