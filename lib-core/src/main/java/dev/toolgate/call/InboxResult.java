package dev.toolgate.call;

import dev.toolgate.json.FieldChange;
import dev.toolgate.audit.CallStatus;
import java.util.List;
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
     * Stale: the state the proposal's preview was made from no longer held when it was about to run, so
     * it did not run; it is now {@code stale}. Propose again from the current state.
     *
     * @param callId  the proposal
     * @param message what changed (redacted), for the operator
     * @param changes the fields that changed since the proposal, before-at-proposal and now (redacted);
     *                empty when another change made from the same state was being applied
     */
    record Stale(String callId, String message, List<FieldChange> changes) implements InboxResult {
        /** Checks the components; see the class description for what each must hold. */
        public Stale {
            Objects.requireNonNull(callId, "callId");
            Objects.requireNonNull(message, "message");
            changes = List.copyOf(changes);
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
