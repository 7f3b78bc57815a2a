package dev.toolgate.execution;

import dev.toolgate.audit.ExecutionStatus;

/**
 * Unwinds a program when its attempt must end here (a pause, a divergence, a refusal, a lost run).
 * An {@link Error}, so the {@code catch (Exception e)} blocks of ordinary program code do not swallow
 * it; and a program that swallows it anyway gets it again at its next call, and the attempt ends as
 * the first one said. No stack trace is filled in.
 */
abstract sealed class Stop extends Error {

    private static final long serialVersionUID = 1L;

    Stop(String message) {
        super(message, null, false, false);
    }

    /** A step needs consent: the run pauses on it. */
    static final class Pause extends Stop {
        private static final long serialVersionUID = 1L;
        final transient PendingAction action;

        Pause(PendingAction action) {
            super("paused at step " + action.seq());
            this.action = action;
        }
    }

    /** The replay asked for another call than the log holds at a step: nothing runs, the run fails. */
    static final class Diverged extends Stop {
        private static final long serialVersionUID = 1L;

        Diverged(String message) {
            super(message);
        }
    }

    /** The gate refused a call before logging it: the run fails (a replay could not repeat it). */
    static final class Refused extends Stop {
        private static final long serialVersionUID = 1L;

        Refused(int seq, RuntimeException cause) {
            super("step " + seq + " was refused: " + cause.getMessage());
        }
    }

    /** A logged step's outcome never arrived: the run is in doubt and stops; nothing is re-run. */
    static final class InDoubt extends Stop {
        private static final long serialVersionUID = 1L;

        InDoubt(int seq, String callId) {
            super("step " + seq + " (call " + callId + ") is in doubt: its outcome never arrived, so it is not re-run;"
                    + " an operator resolves it");
        }
    }

    /** The run's pending step was closed meanwhile (rejected, expired): the run ends so. */
    static final class Closed extends Stop {
        private static final long serialVersionUID = 1L;
        final ExecutionStatus status;

        Closed(ExecutionStatus status, String why) {
            super(why);
            this.status = status;
        }
    }

    /** Another runner has the run (it logged a step first): this attempt changes nothing more. */
    static final class Lost extends Stop {
        private static final long serialVersionUID = 1L;

        Lost(String why) {
            super(why);
        }
    }

    /**
     * The approver may not apply the approved step after all (rules, separation of duties, budget, a
     * stale payload): the run pauses again and the approver is told.
     */
    static final class ApproverRefused extends Stop {
        private static final long serialVersionUID = 1L;
        final transient RuntimeException cause;
        final int seq;
        final String callId;

        ApproverRefused(int seq, String callId, RuntimeException cause) {
            super(cause.getMessage());
            this.seq = seq;
            this.callId = callId;
            this.cause = cause;
        }
    }

    /** The store failed: the attempt ends, the run stays running (another instance takes it over later). */
    static final class Unavailable extends Stop {
        private static final long serialVersionUID = 1L;
        final transient RuntimeException cause;

        Unavailable(RuntimeException cause) {
            super(cause.getMessage());
            this.cause = cause;
        }
    }
}
