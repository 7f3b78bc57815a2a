package dev.toolgate.audit;

import java.util.Locale;

/** Where a durable execution (a run of a program) is in its life. */
public enum ExecutionStatus {
    /** An instance is running the program: a first attempt, a replay after an approval, or a takeover. */
    RUNNING,
    /** A step needs consent: the run waits for its pending step to be approved or rejected. */
    PAUSED,
    /** The program returned; its result is recorded. */
    COMPLETED,
    /** The program threw, or a replay diverged from the log; the error is recorded. */
    FAILED,
    /** An operator (or the run's principal) rejected its pending step; earlier steps stay applied. */
    REJECTED,
    /** Its pending step expired before anyone decided. */
    EXPIRED,
    /**
     * A step's outcome never arrived (the instance running it stopped while the tool ran): the step is
     * in doubt and the run cannot go on; nothing is re-run. An operator resolves the step and may roll
     * the run back.
     */
    INTERRUPTED,
    /** Its applied steps that can be reverted were reverted, newest first. */
    ROLLED_BACK;

    /** The lower-case wire name, for example {@code paused}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a {@linkplain #wireName() wire name}. */
    public static ExecutionStatus fromWireName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }

    /** True once the run can change no more (except by a rollback). */
    public boolean finished() {
        return this != RUNNING && this != PAUSED;
    }
}
