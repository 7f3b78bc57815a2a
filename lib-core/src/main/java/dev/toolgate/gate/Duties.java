package dev.toolgate.gate;

import dev.toolgate.call.GateSettings;
import dev.toolgate.call.SeparationOfDutiesException;
import dev.toolgate.access.Principal;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;

/** Separation of duties: a principal may not decide on (apply, approve, edit) a proposal they made. */
final class Duties {

    private final GateSettings settings;

    Duties(GateSettings settings) {
        this.settings = settings;
    }

    /**
     * Under separation of duties, refuses {@code actor} deciding on (applying, approving, editing)
     * a proposal they made themselves.
     */
    void requireDistinctDecider(CallRecord proposal, Principal actor, String action) {
        String reason = sameDeciderReason(proposal, actor);
        if (reason != null) {
            throw new SeparationOfDutiesException(reason + " (" + action + " refused)", proposal.toolName());
        }
    }

    /** Why {@code viewer} may not decide on {@code proposal} under separation of duties, or null. */
    String sameDeciderReason(CallRecord proposal, Principal viewer) {
        if (!settings.requireDistinctApprover() || !proposal.principal().equals(PrincipalRef.of(viewer))) {
            return null;
        }
        return "Separation of duties: " + proposal.principal() + " proposed " + proposal.toolName() + " (call "
                + proposal.id() + "); another operator must apply or approve it";
    }
}
