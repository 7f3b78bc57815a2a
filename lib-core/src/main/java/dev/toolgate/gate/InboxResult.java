package dev.toolgate.gate;

import dev.toolgate.audit.CallStatus;
import java.util.Objects;

/** What an operator's decision on a proposal did. */
public sealed interface InboxResult {

    /** The proposal decided on. */
    String callId();

    /** Approved: the stored payload ran once. */
    record Approved(String callId, Applied applied) implements InboxResult {
        /** Checks the components; see the class description for what each must hold. */
        public Approved {
            Objects.requireNonNull(callId, "callId");
            Objects.requireNonNull(applied, "applied");
        }
    }

    /** Rejected: the proposal will never run. */
    record Rejected(String callId, String reason) implements InboxResult {
        /** Checks the components; see the class description for what each must hold. */
        public Rejected {
            Objects.requireNonNull(callId, "callId");
        }
    }

    /**
     * Edited: a new proposal (new dry-run, new policy decision, new token) replaced this one, which
     * is now {@code superseded}.
     */
    record Edited(String callId, CallResult replacement) implements InboxResult {
        /** Checks the components; see the class description for what each must hold. */
        public Edited {
            Objects.requireNonNull(callId, "callId");
            Objects.requireNonNull(replacement, "replacement");
        }
    }

    /**
     * Resolved: an operator settled an interrupted (in doubt) call after checking the target system;
     * it now reads {@code applied} (the mutation happened) or {@code failed} (it did not). Nothing ran.
     */
    record Resolved(String callId, CallStatus outcome) implements InboxResult {
        /** Checks the components; see the class description for what each must hold. */
        public Resolved {
            Objects.requireNonNull(callId, "callId");
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /**
     * The proposal was the pending step of a durable execution: the approval resumed the run, which
     * replayed and reached {@code outcome} ({@code completed}, {@code paused} at a later step,
     * {@code failed}, or {@code not_paused} if another approval got there first). The run's own
     * outcome is in {@code Toolgate.executions()}.
     */
    record Resumed(String callId, String executionId, String outcome) implements InboxResult {
        /** Checks the components; see the class description for what each must hold. */
        public Resumed {
            Objects.requireNonNull(callId, "callId");
            Objects.requireNonNull(executionId, "executionId");
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /**
     * Nothing happened: the proposal was no longer pending (applied, rejected, expired, superseded,
     * perhaps by another operator or instance), or the call to resolve was no longer interrupted. A
     * decision never revives a proposal.
     */
    record NotPending(String callId, CallStatus status) implements InboxResult {
        /** Checks the components; see the class description for what each must hold. */
        public NotPending {
            Objects.requireNonNull(callId, "callId");
            Objects.requireNonNull(status, "status");
        }

        /** For the operator: refresh the inbox. */
        public String message() {
            return "Proposal " + callId + " is no longer pending (" + status.wireName()
                    + "); nothing was changed. Refresh the inbox.";
        }
    }
}
