package dev.toolgate.call;

import dev.toolgate.json.FieldChange;
import java.util.List;
import java.util.Objects;

/**
 * Whether a pending proposal's preview is still true: the state its dry-run was made from (its
 * precondition) still holds now, checked by running the dry-run again on the stored payload. An operator's
 * card shows a stale preview before anyone clicks; approving it anyway ends it {@code stale} and runs
 * nothing. A proposal without a precondition is always fresh. See {@code Toolgate.freshness}.
 *
 * @param callId  the proposal
 * @param stale   true when the state moved (or the tool now refuses the stored payload)
 * @param message for a stale proposal, what changed (redacted); else null
 * @param changes for a stale proposal, the fields that changed, before-at-proposal and now (redacted)
 */
public record Freshness(String callId, boolean stale, String message, List<FieldChange> changes) {

    /** Checks the components; see the class description for what each must hold. */
    public Freshness {
        Objects.requireNonNull(callId, "callId");
        changes = List.copyOf(changes);
        if (stale) {
            Objects.requireNonNull(message, "message");
        }
    }

    /** A proposal whose preview still holds. */
    public static Freshness fresh(String callId) {
        return new Freshness(callId, false, null, List.of());
    }
}
