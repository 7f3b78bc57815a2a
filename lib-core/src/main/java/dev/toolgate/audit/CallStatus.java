package dev.toolgate.audit;

import java.util.Locale;

/** Where a call is in its life. */
public enum CallStatus {
    /** A read (or a permitted non-mutating call) ran and returned. */
    EXECUTED,
    /** Dry-run passed; waiting for apply or an operator. The row holds the token digest and payload. */
    PROPOSED,
    /**
     * A proposal was applied: claimed exactly once, then executed. Until its outcome is recorded
     * ({@code completedAt} still null) it is running, or the instance stopped while it ran.
     */
    APPLIED,
    /** Execution failed or timed out; the error is recorded, redacted. */
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
    SUPERSEDED;

    /** The lower-case wire name, for example {@code proposed}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a {@linkplain #wireName() wire name}. */
    public static CallStatus fromWireName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
