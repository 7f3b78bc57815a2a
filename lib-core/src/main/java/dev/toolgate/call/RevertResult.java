package dev.toolgate.call;

import java.util.Objects;

/**
 * What {@code ProposeApplyEngine.revert} did to one applied call.
 *
 * @param callId       the applied call
 * @param outcome      what happened
 * @param revertCallId the audit record of the revert, or null when none was made
 * @param message      why it was skipped or failed (redacted), or null
 */
public record RevertResult(String callId, Outcome outcome, String revertCallId, String message) {

    /** What happened to the call. */
    public enum Outcome {
        /** The tool's revert ran and returned; the call is marked reverted. */
        REVERTED,
        /** The tool's revert threw or timed out; recorded as a failed revert. Not retried. */
        FAILED,
        /** The call was reverted (or a revert of it was attempted) before: nothing ran. */
        ALREADY_REVERTED,
        /** Nothing to revert: the call did not apply, or its tool has no revert. */
        SKIPPED
    }

    /** Checks the components; see the class description for what each must hold. */
    public RevertResult {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(outcome, "outcome");
    }
}
