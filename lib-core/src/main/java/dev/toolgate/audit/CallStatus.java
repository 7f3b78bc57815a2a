package dev.toolgate.audit;

import java.util.Locale;

/** Where a call is in its life. */
public enum CallStatus {
    /** A read (or a permitted non-mutating call) ran and returned. */
    EXECUTED,
    /** Dry-run passed; waiting for apply or an operator. The row holds the token digest and payload. */
    PROPOSED,
    /**
     * Claimed for apply: exactly one caller (a token's holder, an operator, or policy) won the
     * proposal, and its stored payload is executing. The outcome is due by
     * {@link CallRecord#outcomeDueAt()}; it then becomes {@link #APPLIED} or {@link #FAILED}, or,
     * if no outcome arrives in time, {@link #INTERRUPTED}.
     */
    APPLYING,
    /**
     * A proposal was applied: claimed exactly once, executed, and its result recorded. A revert (a
     * rollback's undoing of an applied call) is recorded in this status too, as its own call whose
     * {@link CallRecord#reverts()} names the call it undid.
     */
    APPLIED,
    /**
     * Was {@link #APPLIED}, then undone: a rollback's revert ran and succeeded, and
     * {@link CallRecord#revertedBy()} names that revert's call. Finished; the change it made is no longer
     * in place. Only an applied call becomes reverted, once, together with its {@code revertedBy}.
     */
    REVERTED,
    /**
     * In doubt: a proposal was claimed and its execution began, but no outcome arrived by its
     * {@linkplain CallRecord#outcomeDueAt() due time}, typically because the instance running it
     * stopped (crashed, was killed, lost its database) while the tool ran. The mutation may or may not
     * have happened. Toolgate never re-runs it; an operator checks the target system and resolves it
     * as applied or not applied. An outcome that arrives late still replaces this status.
     */
    INTERRUPTED,
    /** Execution failed or timed out (or an operator resolved an interrupted call as not applied); the error is recorded, redacted. */
    FAILED,
    /** The dry-run found the model's draft semantically invalid; feedback went back to the model. */
    INVALID,
    /** Refused by policy (mode DENY) or by the pending cap. */
    DENIED,
    /** An operator rejected the proposal. */
    REJECTED,
    /** The proposal's time to live passed before anyone applied it. */
    EXPIRED,
    /** An operator edited the proposal, which created a new proposal replacing this one. */
    SUPERSEDED,
    /**
     * Refused when it was about to run: the state its preview was made from no longer holds (the object
     * changed since, or another change made from the same state was being applied), so what was approved
     * is not what would run. Nothing ran; {@link CallRecord#error()} says what changed (redacted).
     * Propose again from the current state.
     */
    STALE;

    /** The lower-case name, computed once: it is read on every call (tags, logs, rows). */
    private final String wireName = name().toLowerCase(Locale.ROOT);

    /** The lower-case wire name, for example {@code proposed}. */
    public String wireName() {
        return wireName;
    }

    /** Parses a {@linkplain #wireName() wire name}. */
    public static CallStatus fromWireName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
