package dev.toolgate.notice;

import java.util.Locale;

/** What happened to a proposal (or a paused run's step) that a notice reports. */
public enum NoticeKind {
    /** A proposal, or the step a run paused at, waits for someone to decide on it. */
    AWAITING_DECISION,
    /** It was approved (by an operator, or applied with its token) and applied. */
    APPLIED,
    /** An operator (or the run's principal) rejected it. */
    REJECTED,
    /** An operator edited it: a new proposal, which gets its own notice, replaces it. */
    SUPERSEDED,
    /** Its time to live passed before anyone decided. */
    EXPIRED,
    /**
     * It was about to run (approved, or applied with its token), but the state its preview was made from
     * had changed, so nothing ran.
     */
    STALE;

    /** The lower-case wire name, for example {@code awaiting_decision}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
